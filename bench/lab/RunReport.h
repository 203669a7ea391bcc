#pragma once
// A run's results as JSON (fio's key names where fio has them, plus
// tierlab's sections), and the same JSON rendered as a table, Markdown or CSV.
//
//   {"tierlab_version": ..., "mode": "sim", "seed": 1,
//    "layout": {effective layout}, "profile": {effective profile},
//    "jobs": [{"jobname": ..., "read": {...}, "write": {...}, "complete": {...}}],
//    "devices": [...], "tiers": [...], "cache": {...}}
//
// Every formatter reads the JSON, so a saved result renders exactly like a
// fresh one.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bench/lab/Runner.h"
#include "bench/workload/Profile.h"
#include "layouts/StackBuilder.h"

namespace tierlab {

struct RunMeta {
  std::string mode = "sim";  // "sim" or "real"
  std::uint64_t seed = 1;
};

nlohmann::json MakeRunJson(const RunResult& r, const Profile& p, const Volume& v,
                           const RunMeta& meta);

enum class TableFormat : std::uint8_t { kTable, kMarkdown, kCsv, kJson };
Expected<TableFormat> ParseTableFormat(std::string_view s);

// Renders one run. kJson pretty-prints the document.
std::string FormatRun(const nlohmann::json& run, TableFormat f);

}  // namespace tierlab
