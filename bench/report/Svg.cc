#include "bench/report/Svg.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>

namespace tierlab {

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string HtmlPageHead(const std::string& title) {
  return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + HtmlEscape(title) +
         "</title><style>body{font-family:sans-serif;max-width:900px;margin:2em auto}"
         "pre{background:#f6f6f6;padding:1em}</style></head><body>";
}

std::string SvgLinePlot(const std::string& title, const std::string& xlabel,
                        const std::string& ylabel,
                        const std::vector<std::pair<double, double>>& pts,
                        const std::vector<std::pair<double, std::string>>& hlines) {
  return SvgLinePlot(title, xlabel, ylabel, std::vector<SvgSeries>{{"", pts}}, hlines);
}

// A line plot as inline SVG: x and y in data units, optional horizontal marks.
std::string SvgLinePlot(const std::string& title, const std::string& xlabel,
                        const std::string& ylabel, const std::vector<SvgSeries>& series,
                        const std::vector<std::pair<double, std::string>>& hlines) {
  // Distinguishable colours (Tableau 10); they repeat after ten series.
  static constexpr const char* kColours[] = {"#2563eb", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                             "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  const double w = 640, h = 280, ml = 60, mr = 20, mt = 30, mb = 40;
  double xmax = 0, ymax = 0;
  for (const SvgSeries& s : series) {
    for (const auto& [x, y] : s.pts) xmax = std::max(xmax, x), ymax = std::max(ymax, y);
  }
  for (const auto& hl : hlines) ymax = std::max(ymax, hl.first);
  if (xmax <= 0) xmax = 1;
  if (ymax <= 0) ymax = 1;
  ymax *= 1.05;
  auto X = [&](double x) { return ml + x / xmax * (w - ml - mr); };
  auto Y = [&](double y) { return h - mb - y / ymax * (h - mt - mb); };
  std::ostringstream o;
  char b[160];
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" font-family=\"sans-serif\" font-size=\"11\">";
  o << "<text x=\"" << ml << "\" y=\"18\" font-size=\"13\">" << HtmlEscape(title) << "</text>";
  std::snprintf(
      b, sizeof b,
      "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>", ml, mt,
      w - ml - mr, h - mt - mb);
  o << b;
  for (int i = 0; i <= 4; ++i) {
    std::snprintf(b, sizeof b, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%.3g</text>", ml - 4,
                  Y(ymax * i / 4) + 4, ymax * i / 4);
    o << b;
    std::snprintf(b, sizeof b, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%.3g</text>",
                  X(xmax * i / 4), h - mb + 14, xmax * i / 4);
    o << b;
  }
  o << "<text x=\"" << (ml + w - mr) / 2 << "\" y=\"" << h - 6 << "\" text-anchor=\"middle\">"
    << HtmlEscape(xlabel) << "</text>";
  o << "<text x=\"12\" y=\"" << (mt + h - mb) / 2 << "\" transform=\"rotate(-90 12 "
    << (mt + h - mb) / 2 << ")\" text-anchor=\"middle\">" << HtmlEscape(ylabel) << "</text>";
  for (const auto& [y, label] : hlines) {
    std::snprintf(
        b, sizeof b,
        "<line x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\" stroke=\"#c33\" stroke-dasharray=\"4 3\"/>"
        "<text x=\"%g\" y=\"%g\" fill=\"#c33\" text-anchor=\"end\">",
        ml, w - mr, Y(y), Y(y), w - mr - 2, Y(y) - 3);
    o << b << HtmlEscape(label) << "</text>";
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % std::size(kColours)];
    o << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\" points=\"";
    for (const auto& [x, y] : series[i].pts) {
      std::snprintf(b, sizeof b, "%.1f,%.1f ", X(x), Y(y));
      o << b;
    }
    o << "\"/>";
    if (series[i].name.empty()) continue;
    // Legend, top right inside the frame, one row per series.
    const double ly = mt + 12 + 13 * static_cast<double>(i);
    std::snprintf(b, sizeof b,
                  "<line x1=\"%g\" x2=\"%g\" y1=\"%g\" y2=\"%g\" stroke=\"%s\" "
                  "stroke-width=\"2\"/><text x=\"%g\" y=\"%g\">",
                  w - mr - 110, w - mr - 92, ly - 4, ly - 4, colour, w - mr - 88, ly);
    o << b << HtmlEscape(series[i].name) << "</text>";
  }
  o << "</svg>";
  return o.str();
}

}  // namespace tierlab
