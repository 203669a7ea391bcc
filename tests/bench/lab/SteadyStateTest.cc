#include <gtest/gtest.h>

#include "bench/lab/SteadyState.h"

namespace tierlab {
namespace {

SteadyStateSpec Spec(SteadyStateSpec::Metric m, bool slope, bool percent, double limit, int dur_s) {
  SteadyStateSpec s;
  s.metric = m;
  s.slope = slope;
  s.percent = percent;
  s.limit = limit;
  s.dur = dur_s * kSecond;
  return s;
}

using M = SteadyStateSpec::Metric;

// fio's iops:N%: every sample of the window within N% of its mean.
TEST(SteadyStateTest, DeviationIsAttainedOnceAWholeWindowIsWithinTheLimit) {
  SteadyState ss(Spec(M::kIops, false, true, 10, 4));
  ASSERT_EQ(ss.window(), 4u);
  // A rise (a cache filling), then a plateau around 1000.
  const std::uint64_t series[] = {200, 500, 800, 980, 1000, 1020, 990, 1010};
  int attained_at = -1;
  for (int i = 0; i < 8 && attained_at < 0; ++i) {
    if (ss.Add(series[i], series[i] * 4096, 100)) attained_at = i;
  }
  EXPECT_EQ(attained_at, 6);  // window 980..990: max distance 2 % of its mean
  const nlohmann::json j = ss.Json();
  EXPECT_EQ(j["ss"], "iops:10.000000%");
  EXPECT_EQ(j["attained"], 1);
  EXPECT_EQ(j["duration"], 4);
  EXPECT_EQ(j["data"]["iops"], nlohmann::json::parse("[980,1000,1020,990]"));
  EXPECT_EQ(j["data"]["iops_mean"], 997);
  EXPECT_NEAR(j["max_deviation"].get<double>(), 22.5, 1e-9);  // 1020 - 997.5
}

// fio's bw_slope: the least-squares slope per interval, here in bytes/s.
TEST(SteadyStateTest, SlopeSeesASteadyRiseThatDeviationWouldAccept) {
  SteadyState slope(Spec(M::kBw, true, false, 50, 5));
  SteadyState dev(Spec(M::kBw, false, true, 5, 5));
  bool slope_ok = false;
  bool dev_ok = false;
  for (int i = 0; i < 5; ++i) {  // +100 B/s per interval on 10 kB/s: within 2 %
    slope_ok = slope.Add(1, 10000 + 100 * static_cast<std::uint64_t>(i), 0);
    dev_ok = dev.Add(1, 10000 + 100 * static_cast<std::uint64_t>(i), 0);
  }
  EXPECT_FALSE(slope_ok);
  EXPECT_TRUE(dev_ok);
  EXPECT_NEAR(slope.Json()["slope"].get<double>(), 100.0, 1e-9);
  EXPECT_EQ(slope.Json()["attained"], 0);
  EXPECT_EQ(slope.Json()["criterion"], "100.000000");
}

TEST(SteadyStateTest, LatencyWindowAndAnUnfilledWindowPrintZerosAsFio) {
  SteadyState ss(Spec(M::kLat, true, true, 1, 10));
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(ss.Add(10, 40960, 90000));
  const nlohmann::json j = ss.Json();
  EXPECT_EQ(j["attained"], 0);
  EXPECT_EQ(j["data"]["lat_ns"].size(), 10u);
  EXPECT_EQ(j["data"]["lat_ns"][2], 90000);
  EXPECT_EQ(j["data"]["lat_ns"][3], 0);
  EXPECT_EQ(j["data"]["lat_mean"], 27000);  // over the whole window, as fio
  SteadyState off(SteadyStateSpec{});
  EXPECT_FALSE(off.enabled());
}

}  // namespace
}  // namespace tierlab
