#include "bench/report/HtmlReport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

// Colour-blind-safe palette (Okabe-Ito, then Tableau-like extras).
constexpr const char* kColors[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                   "#56B4E9", "#F0E442", "#000000", "#8C564B", "#7F7F7F"};
constexpr std::size_t kColorCount = sizeof(kColors) / sizeof(kColors[0]);

std::string Num(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A short tick label: 1500000 -> "1.5M", 0.25 -> "0.25".
std::string TickLabel(double v) {
  const double a = std::fabs(v);
  char buf[32];
  if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
  } else if (a >= 1e4) {
    std::snprintf(buf, sizeof buf, "%gk", v / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

double NiceStep(double max, int ticks) {
  if (max <= 0) return 1;
  const double raw = max / ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (raw <= m * mag) return m * mag;
  }
  return 10 * mag;
}

struct Series {
  std::string name;
  std::vector<double> mean, lo, hi;  // per category
};

// A grouped bar chart; categories along x, one bar per series in each.
std::string BarChart(const std::string& title, const std::string& unit,
                     const std::vector<std::string>& categories,
                     const std::vector<Series>& series) {
  // The right margin leaves room for the last category's slanted label.
  const double width = 1200, left = 80, right = 150, top = 60, plot_h = 260;
  const double bottom = 130;
  const double height = top + plot_h + bottom;
  const double plot_w = width - left - right;
  double max = 0;
  for (const auto& s : series) {
    for (std::size_t i = 0; i < s.hi.size(); ++i) max = std::max({max, s.hi[i], s.mean[i]});
  }
  const double step = NiceStep(max, 5);
  const double ymax = max > 0 ? std::ceil(max / step) * step : 1;
  auto y = [&](double v) { return top + plot_h - plot_h * v / ymax; };
  std::ostringstream o;
  o << "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bar-chart\" "
       "viewBox=\"0 0 "
    << width << " " << height << "\" role=\"img\" aria-label=\"" << HtmlEscape(title) << "\">\n";
  o << "<title>" << HtmlEscape(title) << "</title>\n";
  o << "<text class=\"chart-title\" x=\"" << left << "\" y=\"24\">" << HtmlEscape(title)
    << "</text>\n";
  // Legend.
  double lx = left;
  for (std::size_t s = 0; s < series.size(); ++s) {
    o << "<rect x=\"" << Num(lx) << "\" y=\"36\" width=\"12\" height=\"12\" fill=\""
      << kColors[s % kColorCount] << "\"/><text class=\"legend\" x=\"" << Num(lx + 16)
      << "\" y=\"46\">" << HtmlEscape(series[s].name) << "</text>\n";
    lx += 28 + 7.5 * static_cast<double>(series[s].name.size());
  }
  // Grid and y axis.
  for (double v = 0; v <= ymax + step / 2; v += step) {
    o << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\""
      << Num(y(v)) << "\" y2=\"" << Num(y(v)) << "\"/><text class=\"tick\" x=\"" << left - 6
      << "\" y=\"" << Num(y(v) + 4) << "\" text-anchor=\"end\">" << TickLabel(v) << "</text>\n";
  }
  o << "<text class=\"unit\" transform=\"translate(16," << Num(top + plot_h / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">" << HtmlEscape(unit) << "</text>\n";
  const double group_w =
      categories.empty() ? plot_w : plot_w / static_cast<double>(categories.size());
  const double bar_w = series.empty() ? 0 : group_w * 0.8 / static_cast<double>(series.size());
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double gx = left + group_w * static_cast<double>(c) + group_w * 0.1;
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double v = series[s].mean[c];
      const double x = gx + bar_w * static_cast<double>(s);
      o << "<rect class=\"bar\" x=\"" << Num(x) << "\" y=\"" << Num(y(v)) << "\" width=\""
        << Num(std::max(bar_w - 1, 1.0)) << "\" height=\"" << Num(top + plot_h - y(v))
        << "\" fill=\"" << kColors[s % kColorCount] << "\"><title>"
        << HtmlEscape(categories[c] + " | " + series[s].name + ": " + TickLabel(v) + " " + unit)
        << "</title></rect>\n";
      if (series[s].hi[c] > series[s].lo[c]) {
        const double cx = x + bar_w / 2;
        o << "<line class=\"whisker\" x1=\"" << Num(cx) << "\" x2=\"" << Num(cx) << "\" y1=\""
          << Num(y(series[s].lo[c])) << "\" y2=\"" << Num(y(series[s].hi[c])) << "\"/>\n";
      }
    }
    const double cx = left + group_w * (static_cast<double>(c) + 0.5);
    o << "<text class=\"cat\" transform=\"translate(" << Num(cx) << "," << Num(top + plot_h + 14)
      << ") rotate(30)\">" << HtmlEscape(categories[c]) << "</text>\n";
  }
  o << "<line class=\"axis\" x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\""
    << Num(top + plot_h) << "\" y2=\"" << Num(top + plot_h) << "\"/>\n";
  o << "</svg></figure>\n";
  return o.str();
}

// Latency percentiles, one line per configuration, log-scale y.
std::string PercentileChart(const std::vector<CellGroup>& groups) {
  const std::vector<std::string> pcts = {"p50", "p90", "p95", "p99", "p99.9", "p99.99"};
  const double width = 1200, left = 80, right = 20, top = 40, plot_h = 360;
  const double legend_rows = std::ceil(static_cast<double>(groups.size()) / 2);
  const double bottom = 50 + 18 * legend_rows;
  const double height = top + plot_h + bottom;
  const double plot_w = width - left - right;
  double lo = 1e300, hi = 0;
  for (const auto& g : groups) {
    for (const auto& p : pcts) {
      const double v = g.Metric("complete", p).mean / 1e6;
      if (v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  if (hi <= 0) lo = 0.001, hi = 1;
  const double dlo = std::floor(std::log10(lo));
  const double dhi = std::max(std::ceil(std::log10(hi)), dlo + 1);
  auto y = [&](double ms) {
    const double l = std::log10(std::max(ms, std::pow(10.0, dlo)));
    return top + plot_h - plot_h * (l - dlo) / (dhi - dlo);
  };
  auto x = [&](std::size_t i) {
    return left + 30 +
           (plot_w - 60) * static_cast<double>(i) / static_cast<double>(pcts.size() - 1);
  };
  std::ostringstream o;
  const std::string title = "Latency percentiles (complete I/Os, ms, log scale)";
  o << "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
       "class=\"percentile-chart\" "
       "viewBox=\"0 0 "
    << width << " " << height << "\" role=\"img\" aria-label=\"" << title << "\">\n";
  o << "<title>" << title << "</title>\n";
  o << "<text class=\"chart-title\" x=\"" << left << "\" y=\"24\">" << title << "</text>\n";
  for (double d = dlo; d <= dhi + 0.5; d += 1) {
    const double v = std::pow(10.0, d);
    o << "<line class=\"grid\" x1=\"" << left << "\" x2=\"" << width - right << "\" y1=\""
      << Num(y(v)) << "\" y2=\"" << Num(y(v)) << "\"/><text class=\"tick\" x=\"" << left - 6
      << "\" y=\"" << Num(y(v) + 4) << "\" text-anchor=\"end\">" << TickLabel(v) << "</text>\n";
  }
  o << "<text class=\"unit\" transform=\"translate(16," << Num(top + plot_h / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">ms</text>\n";
  for (std::size_t i = 0; i < pcts.size(); ++i) {
    o << "<text class=\"tick\" x=\"" << Num(x(i)) << "\" y=\"" << Num(top + plot_h + 18)
      << "\" text-anchor=\"middle\">" << pcts[i] << "</text>\n";
  }
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const auto& g = groups[gi];
    const char* color = kColors[gi % kColorCount];
    const bool dashed = (gi / kColorCount) % 2 == 1;
    std::string points;
    for (std::size_t i = 0; i < pcts.size(); ++i) {
      const double v = g.Metric("complete", pcts[i]).mean / 1e6;
      points += Num(x(i)) + "," + Num(y(v)) + " ";
    }
    o << "<polyline class=\"pline\" fill=\"none\" stroke=\"" << color << "\""
      << (dashed ? " stroke-dasharray=\"6 3\"" : "") << " points=\"" << points << "\"><title>"
      << HtmlEscape(g.label) << "</title></polyline>\n";
    const double ly = top + plot_h + 40 + 18 * std::floor(static_cast<double>(gi) / 2);
    const double lx = left + (gi % 2 == 0 ? 0 : plot_w / 2);
    o << "<line x1=\"" << Num(lx) << "\" x2=\"" << Num(lx + 20) << "\" y1=\"" << Num(ly - 4)
      << "\" y2=\"" << Num(ly - 4) << "\" stroke=\"" << color << "\" stroke-width=\"2\""
      << (dashed ? " stroke-dasharray=\"6 3\"" : "") << "/><text class=\"legend\" x=\""
      << Num(lx + 26) << "\" y=\"" << Num(ly) << "\">" << HtmlEscape(g.label) << "</text>\n";
  }
  o << "</svg></figure>\n";
  return o.str();
}

constexpr const char* kCss =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:1.5em;margin-bottom:4px}h2{font-size:1.2em;margin-top:32px;border-bottom:1px solid #ddd}
p.meta{color:#555;font-size:.9em}
figure.chart{margin:12px 0}svg{width:100%;height:auto;background:#fff}
.chart-title{font-size:16px;font-weight:600}.legend,.cat{font-size:12px}.tick,.unit{font-size:11px;fill:#444}
.grid{stroke:#e5e5e5;stroke-width:1}.axis{stroke:#333;stroke-width:1}.whisker{stroke:#222;stroke-width:1.5}
.pline{stroke-width:2}
table{border-collapse:collapse;margin:8px 0 24px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td.label,th.label{text-align:left}
tr:nth-child(even) td{background:#fafafa})";

}  // namespace

std::string RenderHtmlReport(const nlohmann::json& results, const ReportOptions& o) {
  const std::vector<CellGroup> groups = GroupCells(results);
  const std::vector<std::string> row_keys = ResolveRowKeys(results, groups, o);
  const std::string name = results.value("matrix_name", "matrix");

  // Categories: the row keys' values; series: the column key's values.
  std::vector<std::string> categories, series_names;
  auto category_of = [&](const CellGroup& g) {
    std::string s;
    for (const auto& k : row_keys) {
      if (!s.empty()) s += ' ';
      if (k != "layout") s += k + '=';
      s += g.Key(k);
    }
    return s;
  };
  for (const auto& g : groups) {
    const std::string c = category_of(g);
    if (std::find(categories.begin(), categories.end(), c) == categories.end())
      categories.push_back(c);
    const std::string s = o.cols.empty() ? "all" : g.Key(o.cols);
    if (std::find(series_names.begin(), series_names.end(), s) == series_names.end()) {
      series_names.push_back(s);
    }
  }
  auto chart = [&](const std::string& metric, const std::string& title, const std::string& unit) {
    std::vector<Series> series;
    for (const auto& sn : series_names) {
      Series s;
      s.name = o.cols.empty() ? sn : o.cols + " " + sn;
      s.mean.assign(categories.size(), 0);
      s.lo.assign(categories.size(), 0);
      s.hi.assign(categories.size(), 0);
      for (const auto& g : groups) {
        if (!o.cols.empty() && g.Key(o.cols) != sn) continue;
        const std::size_t c = static_cast<std::size_t>(
            std::find(categories.begin(), categories.end(), category_of(g)) - categories.begin());
        const Stat st = g.Metric("complete", metric);
        s.mean[c] = MetricDisplay(metric, st.mean);
        // Clipped at 0, the chart's floor (a wide interval of few repeats).
        s.lo[c] = MetricDisplay(metric, st.ci.valid() ? std::max(0.0, st.ci.lo()) : st.mean);
        s.hi[c] = MetricDisplay(metric, st.ci.valid() ? st.ci.hi() : st.mean);
      }
      series.push_back(std::move(s));
    }
    return BarChart(title, unit, categories, series);
  };

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>tierlab matrix " << HtmlEscape(name) << "</title>\n<style>" << kCss
    << "</style></head><body>\n";
  h << "<h1>tierlab matrix " << HtmlEscape(name) << "</h1>\n";
  h << "<p class=\"meta\">" << results.at("cells").size() << " cells, " << groups.size()
    << " configurations, tierlab " << HtmlEscape(results.value("tierlab_version", "?"))
    << ", matrix hash " << HtmlEscape(results.value("matrix_hash", "?"))
    << ". Bars: mean over repeats (whiskers: its 95% confidence interval, Student's t over "
       "repeats or batch means of one run); complete I/Os.</p>\n";
  h << "<h2>Throughput and latency</h2>\n";
  h << chart("iops", "IOPS (complete I/Os)", "IOPS");
  h << chart("bw", "Bandwidth (GB/s)", "GB/s");
  h << chart("lat", "Mean latency (ms)", "ms");
  h << "<h2>Latency percentiles</h2>\n" << PercentileChart(groups);
  h << "<h2>Tables</h2>\n";
  for (const auto& t : BuildReportTables(results, groups, o)) {
    h << "<h3>" << HtmlEscape(t.title) << "</h3>\n<table>\n<tr>";
    for (std::size_t i = 0; i < t.table.header.size(); ++i) {
      h << "<th" << (i < t.table.label_columns ? " class=\"label\"" : "") << ">"
        << HtmlEscape(t.table.header[i]) << "</th>";
    }
    h << "</tr>\n";
    for (const auto& r : t.table.rows) {
      h << "<tr>";
      for (std::size_t i = 0; i < r.size(); ++i) {
        h << "<td" << (i < t.table.label_columns ? " class=\"label\"" : "") << ">"
          << HtmlEscape(r[i]) << "</td>";
      }
      h << "</tr>\n";
    }
    h << "</table>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace tierlab
