// The regression diff: thresholds, the spread rule for repeats, unmatched
// cells, the pivot, and a real simulated read-cache toggle.

#include <gtest/gtest.h>

#include <cstdio>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/MatrixDiff.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

// A cell as the runner writes it, with only the fields the diff reads.
nlohmann::json Cell(std::size_t index, const std::string& id, double iops, double p99_ns,
                    int repeat = 0, nlohmann::json axes = nlohmann::json::object()) {
  nlohmann::json lat = {{"mean", p99_ns / 2},
                        {"max", p99_ns * 2},
                        {"percentile", {{"99.000000", p99_ns}, {"50.000000", p99_ns / 3}}}};
  nlohmann::json op = {
      {"iops", iops}, {"bw_bytes", iops * 4096}, {"total_ios", 1000}, {"lat_ns", lat}};
  return {{"index", index},
          {"id", id},
          {"label", "L | P " + id + (repeat > 0 ? " #" + std::to_string(repeat) : "")},
          {"layout_name", "L"},
          {"profile_name", "P"},
          {"axes", axes},
          {"repeat", repeat},
          {"jobs", {{{"read", op}, {"write", op}, {"complete", op}}}}};
}

nlohmann::json Results(std::vector<nlohmann::json> cells, nlohmann::json matrix = {}) {
  return {{"matrix_hash", "h"}, {"matrix", matrix}, {"cells", std::move(cells)}};
}

DiffResult MustDiff(const nlohmann::json& a, const nlohmann::json& b, const DiffOptions& o = {}) {
  auto d = DiffResults(a, b, o);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return d.ok() ? std::move(d.value()) : DiffResult{};
}

TEST(DiffTest, TenPercentIopsDropIsARegressionOnePercentIsNot) {
  const auto base = Results({Cell(0, "a", 100000, 1e6), Cell(1, "b", 50000, 2e6)});
  const auto ten = Results({Cell(0, "a", 90000, 1e6), Cell(1, "b", 50000, 2e6)});
  const auto one = Results({Cell(0, "a", 99000, 1e6), Cell(1, "b", 50000, 2e6)});
  DiffResult d = MustDiff(base, ten);
  EXPECT_EQ(d.regressions(), 1u);
  ASSERT_EQ(d.rows.size(), 4u);  // 2 cells x (iops, p99)
  EXPECT_EQ(d.rows[0].metric, "iops");
  EXPECT_EQ(d.rows[0].verdict, DiffVerdict::kRegression);
  EXPECT_NEAR(d.rows[0].delta, -0.10, 1e-9);
  EXPECT_EQ(MustDiff(base, one).regressions(), 0u);
  // More IOPS is an improvement, not a regression.
  DiffResult up = MustDiff(ten, base);
  EXPECT_EQ(up.regressions(), 0u);
  EXPECT_EQ(up.rows[0].verdict, DiffVerdict::kImproved);
}

TEST(DiffTest, LatencyUpIsARegressionAndThresholdIsConfigurable) {
  const auto base = Results({Cell(0, "a", 100000, 1e6)});
  const auto slow = Results({Cell(0, "a", 100000, 1.08e6)});
  EXPECT_EQ(MustDiff(base, slow).regressions(), 1u);
  DiffOptions loose;
  loose.threshold = 0.10;
  EXPECT_EQ(MustDiff(base, slow, loose).regressions(), 0u);
  DiffOptions iops_only;
  iops_only.metrics = {"iops"};
  EXPECT_EQ(MustDiff(base, slow, iops_only).regressions(), 0u);
  DiffOptions read_p99;
  read_p99.metrics = {"read.p99"};
  EXPECT_EQ(MustDiff(base, slow, read_p99).regressions(), 1u);
}

TEST(DiffTest, WithRepeatsTheChangeMustLeaveTheSpread) {
  // Base 100k +- 10%, new 88k +- 10%: 12% down but the ranges overlap.
  const auto base = Results({Cell(0, "a", 90000, 1e6), Cell(1, "a", 110000, 1e6, 1)});
  const auto overlap = Results({Cell(0, "a", 80000, 1e6), Cell(1, "a", 96000, 1e6, 1)});
  DiffResult d = MustDiff(base, overlap);
  EXPECT_EQ(d.regressions(), 0u);
  EXPECT_EQ(d.rows[0].verdict, DiffVerdict::kNoise);
  EXPECT_EQ(d.rows[0].base.n, 2u);
  const auto apart = Results({Cell(0, "a", 80000, 1e6), Cell(1, "a", 85000, 1e6, 1)});
  EXPECT_EQ(MustDiff(base, apart).regressions(), 1u);
}

TEST(DiffTest, UnmatchedCellsAreListedNotFlagged) {
  const auto base = Results({Cell(0, "a", 100000, 1e6), Cell(1, "b", 1, 1)});
  const auto next = Results({Cell(0, "a", 100000, 1e6), Cell(1, "c", 1, 1)});
  DiffResult d = MustDiff(base, next);
  EXPECT_EQ(d.regressions(), 0u);
  ASSERT_EQ(d.only_base.size(), 1u);
  ASSERT_EQ(d.only_new.size(), 1u);
  const std::string text = FormatDiff(d, TableStyle::kText, DiffOptions{});
  EXPECT_NE(text.find("only in base: L | P b"), std::string::npos) << text;
  EXPECT_NE(text.find("0 regressions in 2 comparisons"), std::string::npos) << text;
}

TEST(DiffTest, BadOptionsAndDocuments) {
  EXPECT_NEAR(*ParseThreshold("5%"), 0.05, 1e-12);
  EXPECT_NEAR(*ParseThreshold("2.5"), 0.025, 1e-12);
  EXPECT_FALSE(ParseThreshold("five").ok());
  EXPECT_FALSE(ParseThreshold("-1%").ok());
  DiffOptions bad;
  bad.metrics = {"iopz"};
  auto d = DiffResults(Results({}), Results({}), bad);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::kInput);
  EXPECT_EQ(d.error().message.rfind("--metric: unknown \"iopz\"", 0), 0u);
  auto notresults = DiffResults(nlohmann::json{{"jobs", 1}}, Results({}), DiffOptions{});
  ASSERT_FALSE(notresults.ok());
  EXPECT_NE(notresults.error().message.find("not a tierlab matrix results document"),
            std::string::npos);
}

TEST(DiffTest, PivotComparesEveryValueWithTheFirst) {
  const nlohmann::json matrix = {{"axes", {{"cache.read", {true, false}}}}};
  const auto r = Results({Cell(0, "on", 40000, 1e6, 0, {{"cache.read", true}}),
                          Cell(1, "off", 4000, 9e6, 0, {{"cache.read", false}})},
                         matrix);
  auto d = DiffPivot(r, "cache.read", DiffOptions{});
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->rows.size(), 2u);
  EXPECT_EQ(d->rows[0].base_name, "cache.read=true");
  EXPECT_EQ(d->rows[0].new_name, "cache.read=false");
  EXPECT_EQ(d->regressions(), 2u);  // IOPS down 90 %, p99 up 9x
  auto unknown = DiffPivot(r, "cache.write", DiffOptions{});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message.rfind("--pivot: unknown key \"cache.write\"", 0), 0u);
}

// The story the diff exists for: a read cache switched off costs IOPS on a working set
// that fits the cache, and the gate catches it. A real simulated matrix.
TEST(DiffTest, ReadCacheOffOnACacheFittingWorkingSetIsFlagged) {
  const nlohmann::json j = {{"name", "readcache"},
                            {"layouts", {"nvme2+hdd4"}},
                            {"profiles", {"4k-randread"}},
                            {"profile_override",
                             {{"runtime", "2s"},
                              {"ramp_time", "1s"},
                              {"size", "2g"},
                              {"random_distribution", "zipf:1.2"}}},
                            {"axes", {{"cache.read", {true, false}}}}};
  auto spec = ParseMatrixJson(j, "readcache.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto m = ExpandMatrix(*spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto results = RunMatrix(*m, MatrixRunOptions{});
  ASSERT_TRUE(results.ok()) << results.error().message;
  auto d = DiffPivot(*results, "cache.read", DiffOptions{});
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->rows.size(), 2u);
  const DiffRow& iops = d->rows[0];
  EXPECT_EQ(iops.metric, "iops");
  EXPECT_EQ(iops.verdict, DiffVerdict::kRegression)
      << "on " << iops.base.mean << " off " << iops.next.mean;
  EXPECT_LT(iops.delta, -0.5);  // the cache is worth far more than the threshold
  EXPECT_GE(d->regressions(), 1u);
}

}  // namespace
}  // namespace tierlab
