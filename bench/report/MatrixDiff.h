#pragma once
// The regression diff: two results documents (base, new) matched cell by
// cell on the cell id (the hash of the effective configuration), or one
// document pivoted on an axis (its first value is the baseline; every other
// value is compared with it, cells equal in every other coordinate).
//
// A metric regresses when it moves the wrong way (IOPS/bw down, latency up)
// by more than the threshold, relative to the baseline's mean, AND the two
// sides' 95% confidence intervals do not overlap (MatrixReport.h's Stat:
// Student's t over 2+ repeats, else the run's batch means). Where a side
// has no interval (a single run's percentiles, results from before
// intervals) the threshold alone decides, and the row says so.
// Improvements use the same rule the other way. Anything else is "ok"
// ("noise" when it is beyond the threshold but the intervals overlap).
//
// Metrics are report metric names (MatrixReport.h) on complete I/Os, or
// "read.p99" / "write.iops" for one direction.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/report/MatrixReport.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct DiffOptions {
  double threshold = 0.05;  // fraction (5% = 0.05)
  std::vector<std::string> metrics = {"iops", "p99"};
};

enum class DiffVerdict : std::uint8_t { kOk, kNoise, kImproved, kRegression };
std::string_view ToString(DiffVerdict v);

// Which conditions decided the verdict.
enum class DiffBasis : std::uint8_t {
  kWithinThreshold,  // |delta| <= threshold: ok whatever the intervals
  kCisApart,         // beyond the threshold, intervals apart: flagged
  kCisOverlap,       // beyond the threshold, intervals overlap: noise
  kNoCi,             // beyond the threshold, a side without an interval: flagged
};
// "|delta| <= 5.0%", "> 5.0%, 95% CIs apart"...
std::string DescribeBasis(DiffBasis b, double threshold);

struct DiffRow {
  std::string cell;                 // the cell label (without the pivot value)
  std::string metric;               // as given ("iops", "read.p99")
  std::string base_name, new_name;  // column titles ("base", "cache.read=false")
  Stat base, next;
  double delta = 0;  // (new - base) / base; 0 when base is 0
  DiffVerdict verdict = DiffVerdict::kOk;
  DiffBasis basis = DiffBasis::kWithinThreshold;
};

struct DiffResult {
  std::vector<DiffRow> rows;
  std::vector<std::string> only_base;  // labels of unmatched cells
  std::vector<std::string> only_new;
  std::string pivot;  // "" for a two-file diff
  std::size_t regressions() const;
  std::size_t noise() const;  // beyond the threshold, inside the intervals
};

// Parses "5%", "5", "0.05" is NOT a percentage: "5" and "5%" both mean 5 %.
Expected<double> ParseThreshold(std::string_view text);
// Checks metric names ("iops", "read.p99"...).
Expected<void> CheckDiffMetrics(const std::vector<std::string>& metrics);

// Two documents. Errors: malformed documents (exit code 2).
Expected<DiffResult> DiffResults(const nlohmann::json& base, const nlohmann::json& next,
                                 const DiffOptions& o);
// One document, pivoted on `pivot` (an axis path, "layout" or "profile").
Expected<DiffResult> DiffPivot(const nlohmann::json& results, const std::string& pivot,
                               const DiffOptions& o);

// The delta table (text, Markdown or CSV) and a one-line summary.
std::string FormatDiff(const DiffResult& d, TableStyle style, const DiffOptions& o);

}  // namespace tierlab
