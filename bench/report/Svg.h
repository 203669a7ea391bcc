#pragma once
// What the HTML pages share: escaping text for HTML and inline SVG, and a
// line plot drawn as inline SVG (no scripts, no fetches: a report opens
// from a file, offline). The matrix report (HtmlReport.h) and the
// write-cache analyzer's page (AnalyzerHtml.h) both draw with it.

#include <string>
#include <utility>
#include <vector>

namespace tierlab {

// & < > " ' as entities.
std::string HtmlEscape(const std::string& s);

// A 640x280 line plot: `pts` in data units (x, y >= 0, axes from 0), and
// dashed horizontal marks at the given y values with their labels.
std::string SvgLinePlot(const std::string& title, const std::string& xlabel,
                        const std::string& ylabel,
                        const std::vector<std::pair<double, double>>& pts,
                        const std::vector<std::pair<double, std::string>>& hlines);

}  // namespace tierlab
