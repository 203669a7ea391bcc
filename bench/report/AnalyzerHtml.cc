#include "bench/report/AnalyzerHtml.h"

#include <sstream>

#include "bench/report/Svg.h"

namespace tierlab {

std::string RenderAnalyzerHtml(const AnalyzerReport& r) {
  const CacheRunFigures& b = r.base;
  constexpr double kMiB = 1 << 20;
  std::vector<std::pair<double, double>> dirty;
  for (const DirtySample& s : b.timeline) {
    dirty.push_back({static_cast<double>(s.t) / 1e9, static_cast<double>(s.dirty_bytes) / kMiB});
  }
  std::vector<std::pair<double, double>> wc;
  for (const WriteCurvePoint& p : r.write_curve) {
    wc.push_back({static_cast<double>(p.cache_bytes) / kMiB, 100 * p.absorbed_share});
  }
  std::ostringstream o;
  o << HtmlPageHead("tierlab analyze: " + r.workload);
  o << "<h1>Write-cache analysis: " << HtmlEscape(r.workload) << "</h1>";
  o << "<p><b>Recommendation:</b> " << HtmlEscape(r.recommendation) << "</p>";
  o << SvgLinePlot("Dirty occupancy over time", "time (s)", "dirty MiB", dirty,
                   {{static_cast<double>(b.high_watermark_bytes) / kMiB, "high watermark"},
                    {static_cast<double>(b.low_watermark_bytes) / kMiB, "low watermark"}});
  o << SvgLinePlot("Writes absorbed without throttling vs cache size", "cache MiB", "% absorbed",
                   wc, {{100 * r.absorb_target, "target"}});
  if (r.read_mrc) {
    std::vector<std::pair<double, double>> m;
    for (const MrcPoint& p : r.read_mrc->points) {
      m.push_back({static_cast<double>(p.cache_blocks * r.read_mrc->block_size) / kMiB,
                   100 * p.read_miss_ratio});
    }
    o << SvgLinePlot("Read miss-ratio curve (" + r.mrc_method + ", " + r.mrc_policy + ")",
                     "cache MiB", "read miss %", m, {});
  }
  o << "<h2>Figures</h2><pre>" << HtmlEscape(ToTextTable(r)) << "</pre></body></html>\n";
  return o.str();
}

}  // namespace tierlab
