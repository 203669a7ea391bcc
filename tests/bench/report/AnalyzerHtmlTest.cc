// The analyzer's page and the SVG module it shares with the matrix report.

#include <gtest/gtest.h>

#include "bench/report/AnalyzerHtml.h"
#include "bench/report/Svg.h"

namespace tierlab {
namespace {

std::size_t Count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t i = s.find(what); i != std::string::npos; i = s.find(what, i + 1)) ++n;
  return n;
}

TEST(SvgTest, EscapesEveryCharacterThatEndsTextOrAnAttribute) {
  EXPECT_EQ(HtmlEscape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(HtmlEscape("plain"), "plain");
}

TEST(SvgTest, LinePlotDrawsEveryPointAndMark) {
  const std::string svg =
      SvgLinePlot("t<1>", "x", "y", {{0, 0}, {1, 2}, {2, 4}}, {{3, "limit"}, {1, "low"}});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("t&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(Count(svg, "stroke-dasharray"), 2u);
  const std::size_t points = svg.find("points=\"");
  ASSERT_NE(points, std::string::npos);
  const std::string list = svg.substr(points, svg.find('"', points + 8) - points);
  EXPECT_EQ(Count(list, ","), 3u);
}

TEST(AnalyzerHtmlTest, OnePageWithItsPlotsAndNothingFetched) {
  AnalyzerReport r;
  r.workload = "msr<&>'trace'";
  r.recommendation = ">= 64 MiB";
  r.base.high_watermark_bytes = 48u << 20;
  r.base.low_watermark_bytes = 16u << 20;
  r.base.timeline = {{0, 0, 0, 0, 0}, {1000000000, 32u << 20, 0, 0, 32u << 20}};
  r.write_curve = {{16u << 20, 0.5, 0}, {32u << 20, 0.9, 0}};
  std::string html = RenderAnalyzerHtml(r);
  EXPECT_EQ(Count(html, "<svg"), 2u);  // dirty occupancy, absorption; no read MRC
  EXPECT_NE(html.find("msr&lt;&amp;&gt;&#39;trace&#39;"), std::string::npos);
  EXPECT_EQ(html.find("msr<&>"), std::string::npos);
  EXPECT_NE(html.find("high watermark"), std::string::npos);
  EXPECT_NE(html.find("&gt;= 64 MiB"), std::string::npos);
  // The only URL is the SVG namespace: the page opens offline.
  EXPECT_EQ(Count(html, "http"), Count(html, "http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("<script"), std::string::npos);

  r.read_mrc = MissRatioCurve{};
  r.read_mrc->block_size = 4096;
  r.read_mrc->points = {MrcPoint{}, MrcPoint{}};
  r.mrc_method = "exact";
  html = RenderAnalyzerHtml(r);
  EXPECT_EQ(Count(html, "<svg"), 3u);
  EXPECT_NE(html.find("Read miss-ratio curve (exact, lru)"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
