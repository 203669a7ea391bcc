// Validation's arithmetic: relative errors per metric, the demerit figure of
// two latency distributions, and a model validated against itself (the same
// matrix simulated twice) reporting no error at all.

#include <gtest/gtest.h>

#include <cstdio>

#include "bench/lab/LatencyHistogram.h"
#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/Validation.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

// A cell with fio's percentiles at `lat(p)` ns, as the runner writes it.
template <class F>
json Cell(std::size_t index, const std::string& label, double iops, F lat) {
  json pc = json::object();
  double sum = 0;
  for (double p : kFioPercentiles) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", p);
    pc[key] = lat(p);
    sum += lat(p);
  }
  json op = {{"iops", iops},
             {"bw_bytes", iops * 4096},
             {"lat_ns", {{"mean", sum / kFioPercentiles.size()}, {"percentile", pc}}}};
  return {{"index", index}, {"id", label}, {"label", label}, {"jobs", {{{"complete", op}}}}};
}

json Results(std::vector<json> cells) {
  return {{"matrix", json::object()}, {"cells", std::move(cells)}};
}

TEST(ValidationTest, ErrorsAreModelAgainstMeasured) {
  const auto flat = [](double) { return 100'000.0; };
  auto v = CompareMeasuredAndModel(Results({Cell(0, "a", 1000, flat)}),
                                   Results({Cell(0, "a", 1100, flat)}));
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->cells.size(), 1u);
  const auto& m = v->cells[0].metrics;
  ASSERT_EQ(m.size(), ValidationMetrics().size());
  EXPECT_EQ(m[0].metric, "iops");
  EXPECT_DOUBLE_EQ(m[0].measured, 1000);
  EXPECT_DOUBLE_EQ(m[0].model, 1100);
  EXPECT_NEAR(m[0].error, 0.10, 1e-12);
  EXPECT_NEAR(m[1].error, 0.10, 1e-12);  // bandwidth
  EXPECT_DOUBLE_EQ(m[2].error, 0);       // the same latencies
  EXPECT_DOUBLE_EQ(v->cells[0].demerit_pct, 0);
  EXPECT_NEAR(v->worst[0].error, 0.10, 1e-12);
}

// The host's speed measured beside a cell: the factors its model's CPU
// ran at, in the JSON and as the table's last column ("-" for a cell
// without one; no column when no cell has one).
TEST(ValidationTest, TheHostReferenceScaleIsShownPerCell) {
  const auto flat = [](double) { return 100'000.0; };
  json a = Cell(0, "a", 1000, flat);
  a["host_reference"] = {{"read_scale", 1.031}, {"write_scale", 0.96}};
  auto v = CompareMeasuredAndModel(Results({a, Cell(1, "b", 1000, flat)}),
                                   Results({Cell(0, "a", 1000, flat), Cell(1, "b", 1000, flat)}));
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_TRUE(v->cells[0].read_scale.has_value());
  EXPECT_DOUBLE_EQ(*v->cells[0].read_scale, 1.031);
  EXPECT_DOUBLE_EQ(*v->cells[0].write_scale, 0.96);
  EXPECT_FALSE(v->cells[1].read_scale.has_value());
  const json j = ValidationJson(*v);
  EXPECT_DOUBLE_EQ(j["cells"][0]["read_scale"].get<double>(), 1.031);
  EXPECT_DOUBLE_EQ(j["cells"][0]["write_scale"].get<double>(), 0.96);
  EXPECT_FALSE(j["cells"][1].contains("read_scale"));
  const std::string csv = FormatValidation(*v, TableStyle::kCsv);
  EXPECT_NE(csv.find(",demerit,host\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",x1.031/0.960\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("%,-\n"), std::string::npos) << csv;

  auto none = CompareMeasuredAndModel(Results({Cell(0, "a", 1000, flat)}),
                                      Results({Cell(0, "a", 1000, flat)}));
  EXPECT_EQ(FormatValidation(*none, TableStyle::kCsv).find("host"), std::string::npos);
}

// The pauses probed after a cell: their rate, all probed devices together
// and the mean over the cell's repeats, in the JSON and as the table's
// last column ("-" for a cell without a probe).
TEST(ValidationTest, ThePauseRateProbedAfterACellIsShown) {
  const auto flat = [](double) { return 100'000.0; };
  json a0 = Cell(0, "a", 1000, flat), a1 = Cell(1, "a", 1000, flat);
  a0["device_pauses"] = {{{"tier", "cap"}, {"per_second", 3.0}},
                         {{"tier", "log"}, {"per_second", 1.0}}};
  a1["device_pauses"] = {{{"tier", "cap"}, {"per_second", 6.0}}};
  const json b = Cell(2, "b", 1000, flat);
  auto v = CompareMeasuredAndModel(Results({a0, a1, b}), Results({a0, a1, b}));
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->cells.size(), 2u);
  ASSERT_TRUE(v->cells[0].pauses_per_second.has_value());
  EXPECT_DOUBLE_EQ(*v->cells[0].pauses_per_second, 5.0);  // (3 + 1 + 6) / 2 repeats
  EXPECT_FALSE(v->cells[1].pauses_per_second.has_value());
  const json j = ValidationJson(*v);
  EXPECT_DOUBLE_EQ(j["cells"][0]["pauses_per_second"].get<double>(), 5.0);
  EXPECT_FALSE(j["cells"][1].contains("pauses_per_second"));
  const std::string csv = FormatValidation(*v, TableStyle::kCsv);
  EXPECT_NE(csv.find(",demerit,pauses/s\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("%,5.0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("%,-\n"), std::string::npos) << csv;
  // No probe in any cell: no column.
  auto none = CompareMeasuredAndModel(Results({b}), Results({b}));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(FormatValidation(*none, TableStyle::kCsv).find("pauses"), std::string::npos);
}

TEST(ValidationTest, TheDemeritOfAShiftedDistributionIsTheShift) {
  // Every quantile 20 us later: the CDFs are 20 us apart everywhere, which
  // is 20% of the measured mean of 100 us.
  const auto measured = [](double) { return 100'000.0; };
  const auto model = [](double) { return 120'000.0; };
  auto v = CompareMeasuredAndModel(Results({Cell(0, "a", 1000, measured)}),
                                   Results({Cell(0, "a", 1000, model)}));
  ASSERT_TRUE(v.ok());
  EXPECT_NEAR(v->cells[0].demerit_pct, 20.0, 1e-9);
  EXPECT_NEAR(v->worst_demerit_pct, 20.0, 1e-9);
}

TEST(ValidationTest, TheDemeritWeighsEachQuantileByItsShareOfProbability) {
  // Only the tail above p99 differs (by 1 ms): about 1% of the probability
  // sees it, so the RMS is far below 1 ms but not zero.
  const auto measured = [](double) { return 100'000.0; };
  const auto model = [](double p) { return p > 99 ? 1'100'000.0 : 100'000.0; };
  auto v = CompareMeasuredAndModel(Results({Cell(0, "a", 1000, measured)}),
                                   Results({Cell(0, "a", 1000, model)}));
  ASSERT_TRUE(v.ok());
  const double d = v->cells[0].demerit_pct;
  EXPECT_GT(d, 50.0);   // sqrt(~0.7% x (1 ms)^2) ~ 84 us: 84% of 100 us
  EXPECT_LT(d, 120.0);  // but not the 1000% of a whole-distribution shift
}

TEST(ValidationTest, DocumentsOfDifferentPlansAreRefused) {
  const auto flat = [](double) { return 1.0; };
  auto count = CompareMeasuredAndModel(Results({Cell(0, "a", 1, flat)}),
                                       Results({Cell(0, "a", 1, flat), Cell(1, "b", 1, flat)}));
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message, "the measured results have 1 configurations and the modelled 2");
  auto label =
      CompareMeasuredAndModel(Results({Cell(0, "a", 1, flat)}), Results({Cell(0, "b", 1, flat)}));
  ASSERT_FALSE(label.ok());
  EXPECT_EQ(label.error().message, "configuration 0 is \"a\" measured and \"b\" modelled");
}

TEST(ValidationTest, AModelValidatedAgainstItselfHasNoError) {
  const json j = {
      {"name", "self"},
      {"layouts", {"nvme2+hdd4"}},
      {"profiles", {"4k-randread", "4k-70-30"}},
      {"profile_override", {{"runtime", "300ms"}, {"ramp_time", "100ms"}, {"size", "1g"}}}};
  auto spec = ParseMatrixJson(j, "self.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto m = ExpandMatrix(*spec);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto a = RunMatrix(*m, MatrixRunOptions{});
  auto b = RunMatrix(*m, MatrixRunOptions{});
  ASSERT_TRUE(a.ok() && b.ok());
  auto v = CompareMeasuredAndModel(*a, *b);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->cells.size(), 2u);
  for (const ValidationCell& c : v->cells) {
    for (const ValidationMetric& mt : c.metrics) {
      EXPECT_GT(mt.measured, 0) << c.label << " " << mt.metric;
      EXPECT_DOUBLE_EQ(mt.error, 0) << c.label << " " << mt.metric;
    }
    EXPECT_DOUBLE_EQ(c.demerit_pct, 0) << c.label;
    EXPECT_EQ(c.cdf_measured.size(), kFioPercentiles.size());
  }
  const std::string table = FormatValidation(*v, TableStyle::kText);
  EXPECT_NE(table.find("nvme2+hdd4 | 4k-randread"), std::string::npos) << table;
  EXPECT_NE(table.find("+0.0%"), std::string::npos) << table;
  const std::string html = ValidationHtml(*v, "self");
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<td>nvme2+hdd4 | 4k-70-30</td>"), std::string::npos);
  EXPECT_EQ(ValidationJson(*v)["cells"].size(), 2u);
}

}  // namespace
}  // namespace tierlab
