#pragma once
// The matrix report as ONE self-contained HTML page: inline CSS and inline
// SVG, no script, no network, no external file, so it can be mailed,
// attached to a CI run or opened offline.
//
// Contents: grouped bar charts of IOPS, GB/s and mean latency (complete
// I/Os; one group per table row, one bar per column value, default: per
// layout and profile; whiskers: the 95% confidence interval), a
// latency percentile chart (p50 .. p99.99, one line per configuration, log
// scale), then the same tables as the Markdown report.

#include <nlohmann/json.hpp>
#include <string>

#include "bench/report/MatrixReport.h"
#include "bench/report/Svg.h"  // HtmlEscape

namespace tierlab {

// `results` is a matrix results document; `o` is validated by the caller
// (RenderReport does it).
std::string RenderHtmlReport(const nlohmann::json& results, const ReportOptions& o);

}  // namespace tierlab
