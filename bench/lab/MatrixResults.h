#pragma once
// The matrix results document (the format is in bench/lab/MatrixRunner.h): its
// shape check, the file a matrix writes as it goes, and resuming from one.
//
// Shape: CheckResultsJson checks every field that report, merge and diff
// read, with its type, so that a hand-edited or truncated results file is a
// one-line error naming the file and the field ("r.json: cells[3].jobs[0].
// read.iops: must be a number, got "fast""), exit code 2, and the readers
// below it never meet a value of the wrong type.
//
// Writing: ResultsFile holds the header and the finished cells (as their
// JSON text, indented as in the whole document) and writes the document
// atomically: a temp file next to the target, fsync, rename, fsync of the
// directory. Every version on disk is a complete results document holding
// the cells finished so far, in index order, so an interrupted or crashed
// matrix keeps them; Text() is byte for byte what dump(1) of the whole
// document gives, so a matrix run in one go writes the same file as before.
//
// Resuming: a results file from the same matrix (same matrix_hash, i.e.
// the same cells with the same ids and seeds, same shard, same tierlab
// version) gives the cells already done; anything else is refused.

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tiering/core/Expected.h"

namespace tierlab {

// Checks the shape of a results document (what report/diff/merge read).
Expected<void> CheckResultsJson(const nlohmann::json& j, const std::string& name);

class ResultsFile {
 public:
  // `header`: every top-level key but "cells" (tierlab_version, matrix,
  // matrix_name, matrix_hash, cell_count, shard).
  explicit ResultsFile(nlohmann::json header);

  // Adds (or replaces) the cell with this "index".
  void Add(const nlohmann::json& cell);
  bool Has(std::size_t index) const { return cells_.count(index) != 0; }
  std::size_t size() const { return cells_.size(); }

  // The whole document as dump(1) + "\n" writes it.
  std::string Text() const;
  // The whole document (parsed back from the cells' text).
  nlohmann::json Json() const;

  // Writes Text() to `path` atomically (see the file comment). Exit code 3
  // with the path and the system's reason on failure.
  Expected<void> WriteAtomic(const std::string& path) const;

 private:
  nlohmann::json header_;
  std::map<std::size_t, std::string> cells_;  // index -> the cell's text in the document
};

// What a resumed run must match.
struct ResumeKey {
  std::string matrix_hash;
  std::string shard;
  std::string tierlab_version;
};

// Checks that `previous` (read from `name`) is a results file of the same
// matrix, shard and version, and adds its cells to `into`. Exit code 2 when
// it is not.
Expected<void> LoadResumedCells(const nlohmann::json& previous, const std::string& name,
                                const ResumeKey& key, ResultsFile& into);

}  // namespace tierlab
