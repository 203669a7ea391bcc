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

// The start of a self-contained page up to <body>: charset, `title`
// (escaped here) and the pages' one style sheet.
std::string HtmlPageHead(const std::string& title);

// One line of a plot; named series get a legend entry.
struct SvgSeries {
  std::string name;
  std::vector<std::pair<double, double>> pts;  // data units, x and y >= 0
};

// A 640x280 line plot: each series in its own colour (axes from 0), and
// dashed horizontal marks at the given y values with their labels.
std::string SvgLinePlot(const std::string& title, const std::string& xlabel,
                        const std::string& ylabel, const std::vector<SvgSeries>& series,
                        const std::vector<std::pair<double, std::string>>& hlines);
// The same with one unnamed series.
std::string SvgLinePlot(const std::string& title, const std::string& xlabel,
                        const std::string& ylabel,
                        const std::vector<std::pair<double, double>>& pts,
                        const std::vector<std::pair<double, std::string>>& hlines);

}  // namespace tierlab
