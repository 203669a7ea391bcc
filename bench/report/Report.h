#pragma once
// A matrix results document in the format the user asked for: the one entry
// point of `tierlab report`, `tierlab matrix` and the tests. The formats live
// beside each other (MatrixReport.h: text, Markdown, CSV, JSON; HtmlReport.h:
// HTML), and only this file knows them all, so neither includes the other.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bench/report/MatrixReport.h"
#include "tiering/core/Expected.h"

namespace tierlab {

enum class ReportFormat : std::uint8_t { kText, kMarkdown, kCsv, kJson, kHtml };
// table|text, md|markdown, csv, json, html; anything else names --format.
Expected<ReportFormat> ParseReportFormat(std::string_view s);

// Checks the options against the results (CheckReportOptions), then renders.
Expected<std::string> RenderReport(const nlohmann::json& results, ReportFormat f,
                                   const ReportOptions& o);

}  // namespace tierlab
