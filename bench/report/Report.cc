#include "bench/report/Report.h"

#include "bench/report/HtmlReport.h"

namespace tierlab {

Expected<ReportFormat> ParseReportFormat(std::string_view s) {
  if (s == "table" || s == "text") return ReportFormat::kText;
  if (s == "md" || s == "markdown") return ReportFormat::kMarkdown;
  if (s == "csv") return ReportFormat::kCsv;
  if (s == "json") return ReportFormat::kJson;
  if (s == "html") return ReportFormat::kHtml;
  return MakeError("--format: unknown \"" + std::string(s) +
                   "\"; known: table, md, csv, json, html");
}

Expected<std::string> RenderReport(const nlohmann::json& results, ReportFormat f,
                                   const ReportOptions& o) {
  auto ok = CheckReportOptions(results, o);
  if (!ok.ok()) return ok.error();
  switch (f) {
    case ReportFormat::kCsv: return RenderCsvReport(results);
    case ReportFormat::kJson: return RenderJsonReport(results);
    case ReportFormat::kHtml: return RenderHtmlReport(results, o);
    case ReportFormat::kText: return RenderTextReport(results, o, false);
    case ReportFormat::kMarkdown: return RenderTextReport(results, o, true);
  }
  return RenderTextReport(results, o, false);
}

}  // namespace tierlab
