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

SteadyStateSpec Snia(Nanos interval, int rounds) {
  SteadyStateSpec s;
  s.snia = true;
  s.slope = false;
  s.limit = 20;
  s.interval = interval;
  s.dur = interval * rounds;
  return s;
}

// The SNIA PTS criterion: over five rounds, range <= 20 % of the mean and
// the least-squares excursion <= 10 % of it; both must hold.
TEST(SteadyStateTest, SniaNeedsBothTheRangeAndTheExcursionWithinTheirLimits) {
  {
    // Range 19 % of the mean, flat: attained at the fifth round.
    SteadyState ss(Snia(100 * kMilli, 5));
    ASSERT_EQ(ss.window(), 5u);
    const std::uint64_t flat[] = {1000, 905, 1095, 1000, 1000};
    bool attained = false;
    for (int i = 0; i < 5; ++i) attained = ss.Add(flat[i], 0, 0, (i + 1) * 100 * kMilli);
    EXPECT_TRUE(attained);
    EXPECT_DOUBLE_EQ(ss.Json()["attained_at_s"].get<double>(), 0.5);
  }
  {
    // A steady rise of 3 % a round: range 12 %, within 20 %, but the line
    // climbs 12 % across the window, beyond 10 %: not steady.
    SteadyState ss(Snia(100 * kMilli, 5));
    bool attained = false;
    for (int i = 0; i < 5; ++i) attained = ss.Add(1000 + 30 * i, 0, 0, (i + 1) * 100 * kMilli);
    EXPECT_FALSE(attained);
    EXPECT_GT(ss.Json()["excursion_pct"].get<double>(), 10.0);
    EXPECT_LT(ss.Json()["range_pct"].get<double>(), 20.0);
  }
  {
    // One round 25 % off, flat otherwise: the range fails.
    SteadyState ss(Snia(100 * kMilli, 5));
    bool attained = false;
    for (std::uint64_t v : {1000, 1000, 750, 1000, 1000}) attained = ss.Add(v, 0, 0);
    EXPECT_FALSE(attained);
  }
}

// Attainment stays; a later window that fails says the job left steady
// state, and when (a write cache that filled).
TEST(SteadyStateTest, SniaReportsWhenAJobLeavesSteadyState) {
  SteadyState ss(Snia(kSecond, 5));
  int t = 0;
  for (int i = 0; i < 6; ++i) ss.Add(1000, 0, 0, ++t * kSecond);
  ASSERT_TRUE(ss.attained());
  EXPECT_EQ(ss.left_sample(), 0u);
  for (std::uint64_t v : {950, 600, 600}) EXPECT_TRUE(ss.Add(v, 0, 0, ++t * kSecond));
  EXPECT_EQ(ss.attained_sample(), 5u);
  EXPECT_EQ(ss.left_sample(), 8u);
  const nlohmann::json j = ss.Json();
  EXPECT_EQ(j["ss"], "snia");
  EXPECT_EQ(j["rounds"], 5);
  EXPECT_DOUBLE_EQ(j["attained_at_s"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(j["left_at_s"].get<double>(), 8.0);
}

// A round the stack marks as absorbing (a write cache filling) cannot be
// the one the criterion first holds on; once attained, it does not undo it.
TEST(SteadyStateTest, SniaIsNotFirstAttainedOnAnAbsorbingRound) {
  SteadyState ss(Snia(100 * kMilli, 5));
  for (int i = 0; i < 7; ++i) {
    EXPECT_FALSE(ss.Add(1000, 0, 0, (i + 1) * 100 * kMilli, /*absorbing=*/true)) << i;
  }
  EXPECT_TRUE(ss.Add(1000, 0, 0, 800 * kMilli));
  EXPECT_DOUBLE_EQ(ss.Json()["attained_at_s"].get<double>(), 0.8);
  EXPECT_TRUE(ss.Add(1000, 0, 0, 900 * kMilli, /*absorbing=*/true));
}

}  // namespace
}  // namespace tierlab
