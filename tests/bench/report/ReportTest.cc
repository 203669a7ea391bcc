// The matrix report: Markdown and CSV against committed golden files (from a
// committed results fixture), HTML self-containment and charts, options.
//
// The fixture tests/data/matrix/results.json is the output of
//   tierlab matrix tests/data/matrix/report-fixture.json -o results.json
// stored compact; it is fixed so the goldens do not follow the models.
// Regenerate the goldens after an intended format change:
//   TIERLAB_UPDATE_GOLDEN=1 ./tests/bench_tests --gtest_filter='ReportTest.*'

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/HtmlReport.h"
#include "bench/report/Report.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

const std::string kDir = std::string(TIERLAB_SOURCE_DIR) + "/tests/data/matrix/";

nlohmann::json Fixture() {
  auto j = ReadJsonFile(kDir + "results.json");
  EXPECT_TRUE(j.ok()) << j.error().message;
  return j.ok() ? *j : nlohmann::json::object();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void ExpectGolden(const std::string& actual, const std::string& name) {
  const std::string path = kDir + name;
  if (std::getenv("TIERLAB_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
  }
  EXPECT_EQ(actual, ReadText(path)) << "golden " << path << " differs";
}

TEST(ReportTest, MarkdownMatchesGolden) {
  auto md = RenderReport(Fixture(), ReportFormat::kMarkdown, ReportOptions{});
  ASSERT_TRUE(md.ok()) << md.error().message;
  ExpectGolden(*md, "report.md");
  // Spot checks that do not depend on the golden: one table per profile,
  // layout rows, repeats shown with their spread.
  EXPECT_NE(md->find("### profile 4k-randread"), std::string::npos);
  EXPECT_NE(md->find("### profile 4k-70-30"), std::string::npos);
  EXPECT_NE(md->find("| layout "), std::string::npos);
  EXPECT_NE(md->find("IOPS read"), std::string::npos);
  EXPECT_NE(md->find("IOPS complete"), std::string::npos);
  EXPECT_NE(md->find(" ±"), std::string::npos);
}

TEST(ReportTest, CsvMatchesGoldenWithOneRowPerCell) {
  const nlohmann::json r = Fixture();
  auto csv = RenderReport(r, ReportFormat::kCsv, ReportOptions{});
  ASSERT_TRUE(csv.ok()) << csv.error().message;
  ExpectGolden(*csv, "report.csv");
  const auto lines = std::count(csv->begin(), csv->end(), '\n');
  EXPECT_EQ(static_cast<std::size_t>(lines), r["cells"].size() + 1);
  EXPECT_EQ(csv->rfind("index,id,label,layout,profile,", 0), 0u);
  EXPECT_NE(csv->find("complete_lat_p99_ns"), std::string::npos);
}

TEST(ReportTest, JsonAggregatesRepeats) {
  const nlohmann::json r = Fixture();
  auto text = RenderReport(r, ReportFormat::kJson, ReportOptions{});
  ASSERT_TRUE(text.ok());
  const auto j = nlohmann::json::parse(*text);
  ASSERT_FALSE(j["groups"].empty());
  const auto& g = j["groups"][0];
  EXPECT_EQ(g["repeats"], 2);
  const auto& iops = g["metrics"]["complete"]["iops"];
  EXPECT_LE(iops["min"].get<double>(), iops["mean"].get<double>());
  EXPECT_LE(iops["mean"].get<double>(), iops["max"].get<double>());
  // Two repeats: Student's t with 1 degree of freedom, s = range / sqrt(2).
  const auto& ci = iops["ci95"];
  EXPECT_EQ(ci["method"], "repeats");
  EXPECT_EQ(ci["n"], 2);
  const double range = iops["max"].get<double>() - iops["min"].get<double>();
  EXPECT_NEAR(ci["half_width"].get<double>(), 12.706204736 * range / 2, 1e-6 * range + 1e-9);
  EXPECT_NEAR(ci["lo"].get<double>(), iops["mean"].get<double>() - ci["half_width"].get<double>(),
              1e-6);
  // Over repeats, percentiles get their interval too.
  EXPECT_EQ(g["metrics"]["complete"]["p99"]["ci95"]["method"], "repeats");
}

// One run per configuration, from a real simulated matrix: the tables show
// each run's batch-means interval on IOPS, GB/s and mean latency (not on
// percentiles), the legend says so, CSV has the half-widths, JSON the
// intervals with their method.
TEST(ReportTest, SingleRunsShowTheirBatchMeansIntervals) {
  const nlohmann::json spec = {
      {"name", "one"},
      {"layouts", {"nvme1+hdd2"}},
      {"profiles", {"4k-randread"}},
      {"profile_override", {{"runtime", "1s"}, {"ramp_time", "0"}, {"size", "1g"}}}};
  auto parsed = ParseMatrixJson(spec, "one.json");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  auto m = ExpandMatrix(*parsed);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto results = RunMatrix(*m, MatrixRunOptions{});
  ASSERT_TRUE(results.ok()) << results.error().message;
  auto md = RenderReport(*results, ReportFormat::kMarkdown, ReportOptions{});
  ASSERT_TRUE(md.ok()) << md.error().message;
  EXPECT_NE(md->find("batch means over each run's measured window"), std::string::npos) << *md;
  const std::string row = md->substr(md->rfind("| nvme1+hdd2"));
  // IOPS, GB/s, lat carry "±"; p95 does not: three in the row.
  std::size_t n = 0;
  for (std::size_t at = row.find("±"); at != std::string::npos; at = row.find("±", at + 1)) ++n;
  EXPECT_EQ(n, 3u) << row;
  // The resource the run named its busiest closes the row, with its share.
  EXPECT_NE(md->find(" busiest |"), std::string::npos) << *md;
  const std::string busiest = (*results)["cells"][0]["busiest"]["resource"];
  EXPECT_NE(row.find(busiest + " "), std::string::npos) << row;
  EXPECT_NE(row.find("% |"), std::string::npos) << row;
  auto csv = RenderReport(*results, ReportFormat::kCsv, ReportOptions{});
  ASSERT_TRUE(csv.ok());
  const std::string header = csv->substr(0, csv->find('\n'));
  EXPECT_NE(header.find("complete_iops_ci95"), std::string::npos) << header;
  EXPECT_EQ(csv->find(",\n", header.size() + 1), std::string::npos)
      << "the last column (complete_lat_mean_ns_ci95) is filled: " << *csv;
  auto json = RenderReport(*results, ReportFormat::kJson, ReportOptions{});
  ASSERT_TRUE(json.ok());
  const auto g = nlohmann::json::parse(*json)["groups"][0]["metrics"]["read"];
  EXPECT_EQ(g["iops"]["ci95"]["method"], "batch_means");
  const int batches = g["iops"]["ci95"]["n"].get<int>();
  EXPECT_TRUE(batches == 20 || batches == 10) << batches;  // 10: the batches were correlated
  EXPECT_LT(g["iops"]["ci95"]["lo"].get<double>(), g["iops"]["mean"].get<double>());
  EXPECT_TRUE(g["p99"]["ci95"].is_null());
  auto html = RenderReport(*results, ReportFormat::kHtml, ReportOptions{});
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("class=\"whisker\""), std::string::npos);
}

TEST(ReportTest, HtmlIsOneSelfContainedPageWithCharts) {
  auto html = RenderReport(Fixture(), ReportFormat::kHtml, ReportOptions{});
  ASSERT_TRUE(html.ok()) << html.error().message;
  EXPECT_EQ(html->rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* s :
       {"class=\"bar-chart\"", "IOPS (complete I/Os)", "Bandwidth (GB/s)", "Mean latency (ms)",
        "class=\"percentile-chart\"", "<polyline", "<table>", "<style>"}) {
    EXPECT_NE(html->find(s), std::string::npos) << s;
  }
  // Nothing fetched from anywhere: no scripts, no links, no remote URLs
  // (the SVG namespace is an identifier, not a fetch).
  EXPECT_EQ(html->find("<script"), std::string::npos);
  EXPECT_EQ(html->find("<link"), std::string::npos);
  std::string stripped = *html;
  for (std::size_t p;
       (p = stripped.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;)
    stripped.erase(p, 34);
  EXPECT_EQ(stripped.find("http://"), std::string::npos);
  EXPECT_EQ(stripped.find("https://"), std::string::npos);
  EXPECT_EQ(HtmlEscape("<a&\"b'>"), "&lt;a&amp;&quot;b&#39;&gt;");
}

TEST(ReportTest, RowsColsAndMetricsOptions) {
  const nlohmann::json r = Fixture();
  ReportOptions o;
  o.cols = "";
  o.metrics = {"p99"};
  o.split_rw = false;
  auto text = RenderReport(r, ReportFormat::kText, o);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text->find("all cells"), std::string::npos);
  EXPECT_NE(text->find("p99 ms complete"), std::string::npos);
  EXPECT_EQ(text->find("IOPS complete"), std::string::npos);
  // With no column key, the profile becomes a row key (it varies).
  EXPECT_NE(text->find("profile"), std::string::npos);

  ReportOptions bad;
  bad.metrics = {"iops", "p98"};
  auto e = RenderReport(r, ReportFormat::kMarkdown, bad);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::kInput);
  EXPECT_EQ(e.error().message.rfind("--metrics: unknown \"p98\"", 0), 0u);
  ReportOptions bad_rows;
  bad_rows.rows = {"colour"};
  auto e2 = RenderReport(r, ReportFormat::kMarkdown, bad_rows);
  ASSERT_FALSE(e2.ok());
  EXPECT_EQ(e2.error().message.rfind("--rows: unknown key \"colour\"", 0), 0u);
}

}  // namespace
}  // namespace tierlab
