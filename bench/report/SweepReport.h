#pragma once
// The results of a policy sweep (bench/analysis/PolicySweep.h) as a table
// (text, Markdown or CSV), JSON, and an HTML page with one miss-ratio curve
// per policy: what `tierlab trace simulate` prints.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/analysis/PolicySweep.h"
#include "bench/report/TextTable.h"

namespace tierlab {

// What was swept, for the headers of every rendering.
struct SweepSummary {
  std::string trace;
  std::string format;  // the trace format read
  std::uint64_t requests = 0;
  std::uint64_t references = 0;  // line references (requests in the object view)
  std::uint64_t unique_lines = 0;
  std::uint64_t line_size = 0;
  bool object = false;
  std::string writes;     // SweepWriteMode name
  std::string admission;  // spec, "always" when none
};

// {"trace": ..., "results": [{"policy", "size_lines", "size_bytes",
// "requests", "miss_ratio", "byte_miss_ratio", "read_miss_ratio",
// "write_miss_ratio", ...}]}; docs/ANALYZER.md lists every field.
nlohmann::json SweepToJson(const SweepSummary& s, const std::vector<SweepResult>& results);
// One row per cell: policy, size, miss ratios (all, read, write, bytes),
// evictions, dirty evictions.
std::string SweepTable(const std::vector<SweepResult>& results, TableStyle style);
// A page with the summary, the miss-ratio curves (all references, and reads
// where the trace has writes) and the table.
std::string SweepHtml(const SweepSummary& s, const std::vector<SweepResult>& results);

}  // namespace tierlab
