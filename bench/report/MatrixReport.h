#pragma once
// Reads a matrix results document (bench/lab/MatrixRunner.h) and renders it:
//   Markdown / text  one table per column value (default: per profile), rows
//                    = layout + the other axes' values, columns = metrics x
//                    read / write / complete, as storage reviews publish them,
//                    and the resource each cell names as its busiest
//   CSV              one row per cell (every repeat) with every metric, for pandas
//   JSON             the aggregated groups (mean, min, max per metric)
//   HTML             bench/report/HtmlReport.h
//
// Repeats: cells with the same id are one group; tables show the mean ± its
// 95% confidence interval: Student's t over the repeats when there are 2+,
// else the run's own interval by batch means over its measured window
// (iops, bw and lat only: a single run's percentiles carry none;
// docs/METHODOLOGY.md).
//
// Metrics (names used by --metrics and the diff's --metric):
//   iops, bw (bytes/s; tables show GB/s), lat (mean latency; tables: ms),
//   p50 p90 p95 p99 p99.9 p99.99 (latency percentiles), max (max latency)
// each for op read, write or complete (all I/Os, the VMFleet/HCIBench name).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/analysis/ConfidenceInterval.h"
#include "bench/report/TextTable.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// A metric of one cell's run JSON; 0 when absent. `metric` must be valid
// (IsKnownMetric).
double CellMetric(const nlohmann::json& cell, std::string_view op, std::string_view metric);
bool IsKnownMetric(std::string_view metric);
bool HigherIsBetter(std::string_view metric);  // iops, bw
const std::vector<std::string>& KnownMetrics();
// "IOPS", "GB/s", "lat ms", "p99 ms"...
std::string MetricTitle(std::string_view metric);
// Value in display units (GB/s, ms), formatted: "152340", "1.23", "0.412".
std::string FormatMetric(std::string_view metric, double raw);
// Display units, unformatted (bytes/s -> GB/s, ns -> ms).
double MetricDisplay(std::string_view metric, double raw);

// The run's own 95% interval on a metric of one cell's run JSON (batch
// means: iops_ci95, bw_bytes_ci95, lat_ns.mean_ci95); invalid for other
// metrics and for results without intervals.
ConfidenceInterval CellMetricCi(const nlohmann::json& cell, std::string_view op,
                                std::string_view metric);

struct Stat {
  double mean = 0, min = 0, max = 0;
  std::size_t n = 0;
  // 95%: over the repeats when n >= 2 (method "repeats"), else the run's
  // batch means ("batch_means"); invalid when there is none.
  ConfidenceInterval ci;
  std::string_view ci_method;
  // ±half the range in % of the mean; 0 for one sample.
  double SpreadPercent() const;
  // Mean, range and, for 2+ values, Student's t interval.
  static Stat Of(const std::vector<double>& values);
};

// "1217 ± 12" in display units, or the value alone without an interval.
std::string FormatStat(std::string_view metric, const Stat& s);

// One configuration: the repeats of one cell id.
struct CellGroup {
  std::string id;
  std::string label;  // the cell label without the repeat suffix
  std::string layout;
  std::string profile;
  std::vector<std::pair<std::string, nlohmann::json>> axes;
  std::vector<const nlohmann::json*> runs;  // one per repeat, by repeat

  Stat Metric(std::string_view op, std::string_view metric) const;
  // "layout", "profile" or an axis path -> the value as text ("" if absent).
  std::string Key(const std::string& key) const;
  // The group's JSON value for a key (layout/profile as strings).
  nlohmann::json KeyValue(const std::string& key) const;
};

// Groups in order of their first cell's index. `results` must outlive them.
std::vector<CellGroup> GroupCells(const nlohmann::json& results);

// The results' "matrix" section, or an empty object.
const nlohmann::json& MatrixSection(const nlohmann::json& results);

// Axis paths in the matrix's order (the "matrix" section), then any other
// coordinate keys the cells carry (include extras).
std::vector<std::string> CoordinateKeys(const nlohmann::json& results);

struct ReportOptions {
  std::vector<std::string> rows;  // empty: "layout" + every coordinate key that varies
  std::string cols = "profile";   // one table per value of this key; "" = one table
  std::vector<std::string> metrics = {"iops", "bw", "lat", "p95"};
  bool split_rw = true;  // read / write / complete columns; false: complete only
};

// Validates names (metrics, row/col keys against the results). Exit code 2.
Expected<void> CheckReportOptions(const nlohmann::json& results, const ReportOptions& o);

// The resolved row keys (defaults filled in, the varying keys the user did
// not name appended so that distinct groups never share a row).
std::vector<std::string> ResolveRowKeys(const nlohmann::json& results,
                                        const std::vector<CellGroup>& groups,
                                        const ReportOptions& o);

// One table per value of the `cols` key (one of all groups when cols is ""),
// with text cells formatted per metric. Returned as a TextTable so the
// callers pick the style (and HTML renders the same cells).
struct ReportTable {
  std::string title;  // "profile 4k-randread"
  TextTable table;
};
std::vector<ReportTable> BuildReportTables(const nlohmann::json& results,
                                           const std::vector<CellGroup>& groups,
                                           const ReportOptions& o);

// The report as text or Markdown tables, CSV (one row per cell) and JSON
// (groups with their statistics). The options are not checked here
// (CheckReportOptions; Report.h's RenderReport does both).
std::string RenderTextReport(const nlohmann::json& results, const ReportOptions& o, bool markdown);
std::string RenderCsvReport(const nlohmann::json& results);
std::string RenderJsonReport(const nlohmann::json& results);

}  // namespace tierlab
