// The regression diff: thresholds, the confidence-interval rule (repeats'
// Student's t, one run's batch means), the conditions each row reports,
// unmatched cells, the pivot, and a real simulated read-cache toggle.

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

// The repeats of one configuration, one cell per IOPS figure.
std::vector<nlohmann::json> Repeats(const std::string& id, const std::vector<double>& iops) {
  std::vector<nlohmann::json> cells;
  for (std::size_t r = 0; r < iops.size(); ++r) {
    cells.push_back(Cell(r, id, iops[r], 1e6, static_cast<int>(r)));
  }
  return cells;
}

TEST(DiffTest, WithRepeatsTheChangeMustLeaveTheConfidenceIntervals) {
  // Two repeats: base 100k, new 82.5k, 17.5% down, ranges apart ([90k,
  // 110k], [80k, 85k]); but t(0.975, 1) = 12.7 makes the intervals +-127k and
  // +-32k: they overlap, so it is noise.
  const auto base2 = Results(Repeats("a", {90000, 110000}));
  const auto next2 = Results(Repeats("a", {80000, 85000}));
  DiffResult d = MustDiff(base2, next2);
  EXPECT_EQ(d.regressions(), 0u);
  EXPECT_EQ(d.rows[0].verdict, DiffVerdict::kNoise);
  EXPECT_EQ(d.rows[0].basis, DiffBasis::kCisOverlap);
  EXPECT_EQ(d.rows[0].base.n, 2u);
  EXPECT_EQ(d.rows[0].base.ci_method, "repeats");
  EXPECT_NEAR(d.rows[0].base.ci.half_width, 12.706204736 * 10000, 1e-3);
  // Five repeats each, 1% apart within a side, 10% between: a regression.
  const auto base5 = Results(Repeats("a", {99000, 100000, 101000, 100500, 99500}));
  const auto next5 = Results(Repeats("a", {89000, 90000, 91000, 90500, 89500}));
  DiffResult r = MustDiff(base5, next5);
  EXPECT_EQ(r.regressions(), 1u);
  EXPECT_EQ(r.rows[0].basis, DiffBasis::kCisApart);
  // p99 is the same on every repeat: within the threshold.
  EXPECT_EQ(r.rows[1].basis, DiffBasis::kWithinThreshold);
}

// A cell whose complete I/Os carry a batch-means interval on IOPS.
nlohmann::json CellWithCi(const std::string& id, double iops, double half_width) {
  nlohmann::json c = Cell(0, id, iops, 1e6);
  c["jobs"][0]["complete"]["iops_ci95"] = {{"lo", iops - half_width},
                                           {"hi", iops + half_width},
                                           {"half_width", half_width},
                                           {"n", 20},
                                           {"method", "batch_means"}};
  return c;
}

TEST(DiffTest, OneRunUsesItsBatchMeansIntervalAndTheRowSaysWhichConditionHeld) {
  DiffOptions iops;
  iops.metrics = {"iops"};
  // 10% down, intervals of +-1%: apart, a regression.
  DiffResult apart = MustDiff(Results({CellWithCi("a", 100000, 1000)}),
                              Results({CellWithCi("a", 90000, 1000)}), iops);
  EXPECT_EQ(apart.regressions(), 1u);
  EXPECT_EQ(apart.rows[0].basis, DiffBasis::kCisApart);
  EXPECT_EQ(apart.rows[0].base.ci_method, "batch_means");
  // 10% down, intervals of +-6%: they overlap, noise, exit code 0.
  DiffResult overlap = MustDiff(Results({CellWithCi("a", 100000, 6000)}),
                                Results({CellWithCi("a", 90000, 6000)}), iops);
  EXPECT_EQ(overlap.regressions(), 0u);
  EXPECT_EQ(overlap.rows[0].verdict, DiffVerdict::kNoise);
  // A side without an interval: the threshold alone.
  DiffResult one_side =
      MustDiff(Results({CellWithCi("a", 100000, 6000)}), Results({Cell(0, "a", 90000, 1e6)}), iops);
  EXPECT_EQ(one_side.regressions(), 1u);
  EXPECT_EQ(one_side.rows[0].basis, DiffBasis::kNoCi);
  const std::string text = FormatDiff(overlap, TableStyle::kText, iops);
  EXPECT_NE(text.find("100000 ± 6000"), std::string::npos) << text;
  EXPECT_NE(text.find("noise  > 5.0%, 95% CIs overlap"), std::string::npos) << text;
  EXPECT_NE(text.find("1 beyond the threshold within the intervals (noise)"), std::string::npos)
      << text;
  EXPECT_NE(FormatDiff(apart, TableStyle::kText, iops).find("REGRESSION  > 5.0%, 95% CIs apart"),
            std::string::npos);
  EXPECT_NE(FormatDiff(one_side, TableStyle::kText, iops).find("no CI: threshold only"),
            std::string::npos);
  DiffResult same = MustDiff(Results({CellWithCi("a", 100000, 6000)}),
                             Results({CellWithCi("a", 99000, 6000)}), iops);
  EXPECT_NE(FormatDiff(same, TableStyle::kText, iops).find("ok  |delta| <= 5.0%"),
            std::string::npos)
      << FormatDiff(same, TableStyle::kText, iops);
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
