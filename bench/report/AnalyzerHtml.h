#pragma once
// The write-cache analyzer's report as one self-contained HTML page: the
// recommendation, dirty occupancy over time against the watermarks, writes
// absorbed against cache size, the read miss-ratio curve, and the figures.

#include <string>

#include "bench/lab/WriteCacheAnalyzer.h"

namespace tierlab {

std::string RenderAnalyzerHtml(const AnalyzerReport& r);

}  // namespace tierlab
