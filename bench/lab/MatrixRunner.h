#pragma once
// Runs the cells of an expanded matrix (bench/lab/Matrix.h) and collects one
// results document; merges the documents of several shards.
//
// Results JSON:
//   {"tierlab_version": "0.1.0",
//    "matrix": {the matrix file as given},
//    "matrix_name": "s2d", "matrix_hash": "16 hex digits",
//    "cell_count": 32,                 // cells in the whole matrix
//    "shard": "1/4",                   // "1/1" unsharded, "merged" after merge
//    "cells": [{"index": 0, "id": "...", "label": "...",
//               "layout_name": "...", "profile_name": "...",
//               "axes": {"cache.read": true}, "repeat": 0, "seed": 1,
//               ...MakeRunJson (bench/lab/RunReport.h): "mode", "layout", "profile",
//               "jobs", "devices", "tiers", "cache"}]}
// Cells are sorted by index whatever -j is, and a cell's JSON holds nothing
// that depends on wall time, so the same matrix gives the same bytes.
//
// Threading: `jobs` std::threads take the next cell from a shared counter;
// each cell builds its own engine and volume and runs single-threaded, so
// cells share nothing. The progress callback runs under the runner's mutex
// (never concurrently with itself).

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/lab/Matrix.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct MatrixProgress {
  std::size_t done = 0;                    // finished cells of this run
  std::size_t total = 0;                   // cells of this run (the shard's)
  double elapsed_s = 0;                    // wall time since the start
  const MatrixCell* finished = nullptr;    // the cell that just finished
  double cell_wall_s = 0;                  // its wall time
  const nlohmann::json* result = nullptr;  // its run JSON
  std::vector<const MatrixCell*> running;  // cells in progress, by index
};

struct MatrixRunOptions {
  unsigned jobs = 0;  // 0: std::thread::hardware_concurrency() (1 in real mode)
  Shard shard;
  std::string temp_dir;  // real mode: where device files go (default: a new temp dir)
  std::function<void(const MatrixProgress&)> progress;
};

struct MatrixRunStats {
  double wall_s = 0;
  std::uint64_t simulated_ios = 0;  // issued I/Os, ramp included, all cells
  std::size_t cells = 0;
  unsigned jobs = 1;
};

// Runs the shard's cells. Errors: a cell whose volume cannot be built or
// whose profile does not fit (exit code 2; message names the matrix file and
// the cell), I/O errors in real mode (3). `stats` may be null.
Expected<nlohmann::json> RunMatrix(const ExpandedMatrix& m, const MatrixRunOptions& options,
                                   MatrixRunStats* stats = nullptr);

// One cell, as RunMatrix does it: the cell's JSON (with its coordinates).
Expected<nlohmann::json> RunMatrixCell(const MatrixCell& cell, const std::string& mode,
                                       const std::string& temp_dir = "");

// Joins shard results: every part must carry the same matrix_hash, no cell
// index may appear twice; cells come out sorted by index, so the order of
// `parts` does not matter. `names` label the parts in errors. A merge that
// does not cover every cell succeeds; `missing` (may be null) gets the count.
Expected<nlohmann::json> MergeMatrixResults(const std::vector<nlohmann::json>& parts,
                                            const std::vector<std::string>& names,
                                            std::size_t* missing = nullptr);

// Checks the shape of a results document (what report/diff/merge read).
Expected<void> CheckResultsJson(const nlohmann::json& j, const std::string& name);

}  // namespace tierlab
