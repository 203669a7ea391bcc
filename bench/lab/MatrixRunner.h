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
// A run that was interrupted or failed keeps its finished cells: such a file
// holds fewer cells than cell_count (merge reports the missing ones, and
// `tierlab matrix --resume` runs them; bench/lab/MatrixResults.h).
//
// Threading: `jobs` std::threads take the next cell from one cursor over
// the plan (cells are expanded as they are taken, never all at once); each
// cell builds its own engine and volume and runs single-threaded, so cells
// share nothing. The calling thread waits for them and runs the tick
// callback under the runner's mutex (never concurrently with itself).

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixResults.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct MatrixProgress {
  std::uint64_t done = 0;                  // cells finished in this run
  std::uint64_t total = 0;                 // cells this run runs (the shard's, minus resumed)
  double elapsed_s = 0;                    // wall time since the start
  std::vector<const MatrixCell*> running;  // cells in progress, by index
  const nlohmann::json* last = nullptr;    // the run JSON of the last cell finished, if any
  std::string last_label;                  // and its label
};

struct MatrixRunOptions {
  unsigned jobs = 0;  // 0: std::thread::hardware_concurrency() (1 in real mode)
  Shard shard;
  std::string temp_dir;  // real mode: where device files go (default: a new temp dir)
  // Indices of cells not to run (already in a resumed results file).
  const std::set<std::uint64_t>* skip = nullptr;
  // Read by every worker: once true, no cell starts, and running simulated
  // cells are abandoned (real-mode cells finish: their I/O is on real
  // devices). Finished cells are kept. A signal handler may set it.
  const std::atomic<bool>* stop = nullptr;
  // Called every `tick_s` seconds and once at the end, from the thread that
  // waits for the workers, under the runner's lock (workers finishing a cell
  // wait): progress on stderr, and saving the results as they grow.
  std::function<void(const MatrixProgress&, const ResultsFile&)> tick;
  double tick_s = 0.2;
  // Called by the worker that runs a cell, outside the runner's lock, right
  // before the cell runs (it may change the cell: validate scales a model's
  // CPU) and right after it ran (it may add to the cell's JSON); with
  // jobs > 1, concurrently for different cells. An error fails the run as
  // the cell's own would.
  std::function<Expected<void>(MatrixCell&)> before_cell;
  std::function<Expected<void>(const MatrixCell&, nlohmann::json&)> after_cell;
};

struct MatrixRunStats {
  double wall_s = 0;
  std::uint64_t simulated_ios = 0;  // issued I/Os, ramp included, cells of this run
  std::uint64_t cells = 0;          // cells finished by this run
  unsigned jobs = 1;
  bool stopped = false;  // `stop` was set: some cells did not run
};

// The results document's header: version, matrix, name, hash, cell count,
// shard (every key but "cells").
nlohmann::json MakeResultsHeader(const MatrixPlan& plan, const std::string& hash,
                                 const Shard& shard);

// Runs the shard's cells (but `skip`ped ones) and adds each finished cell to
// `results`. Errors: a cell whose volume cannot be built or whose profile
// does not fit (exit code 2; message names the matrix file and the cell),
// I/O errors in real mode (3). After an error no new cell starts, and the
// cells finished so far stay in `results`. `stats` may be null.
Expected<void> RunMatrixInto(const MatrixPlan& plan, const MatrixRunOptions& options,
                             ResultsFile& results, MatrixRunStats* stats = nullptr);

// RunMatrixInto on a new document: the whole results JSON.
Expected<nlohmann::json> RunMatrix(const MatrixPlan& plan, const std::string& hash,
                                   const MatrixRunOptions& options,
                                   MatrixRunStats* stats = nullptr);
inline Expected<nlohmann::json> RunMatrix(const ExpandedMatrix& m, const MatrixRunOptions& o,
                                          MatrixRunStats* stats = nullptr) {
  return RunMatrix(m.plan, m.hash, o, stats);
}

// One cell, as RunMatrix does it: the cell's JSON (with its coordinates).
// `cancel`: see RunOptions::cancel.
Expected<nlohmann::json> RunMatrixCell(const MatrixCell& cell, const std::string& mode,
                                       const std::string& temp_dir = "",
                                       const std::atomic<bool>* cancel = nullptr);

// Joins shard results: every part must carry the same matrix_hash, no cell
// index may appear twice; cells come out sorted by index, so the order of
// `parts` does not matter. `names` label the parts in errors. A merge that
// does not cover every cell succeeds; `missing` (may be null) gets the count.
Expected<nlohmann::json> MergeMatrixResults(const std::vector<nlohmann::json>& parts,
                                            const std::vector<std::string>& names,
                                            std::size_t* missing = nullptr);

}  // namespace tierlab
