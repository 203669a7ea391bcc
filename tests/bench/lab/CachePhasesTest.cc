// The cache phases of a run: each round named from counter deltas, in the
// documented order, equal neighbours joined; and what a real run reports.

#include <gtest/gtest.h>

#include "bench/lab/CachePhases.h"
#include "bench/lab/RunCell.h"

namespace tierlab {
namespace {

CacheStats Base() {
  CacheStats s;
  s.capacity_lines = 10000;
  s.dirty_lines = 2000;
  return s;
}

TEST(CachePhasesTest, EachRoundIsNamedByTheFirstRuleThatHolds) {
  const CacheStats a = Base();
  CacheStats b = a;
  EXPECT_EQ(ClassifyCacheRound(a, b), "steady");
  b.read_requests = 1000;
  b.promotions = 11;  // more than 1 % of the reads
  EXPECT_EQ(ClassifyCacheRound(a, b), "warming");
  b.destaged_bytes = 4096;
  b.dirty_lines = a.dirty_lines - 50;  // within 1 % of the cache
  EXPECT_EQ(ClassifyCacheRound(a, b), "destaging");
  b.dirty_lines = a.dirty_lines - 500;  // destage draining faster: not equilibrium
  EXPECT_EQ(ClassifyCacheRound(a, b), "warming");
  b.dirty_lines = a.dirty_lines + 5;  // a little, while destage runs: equilibrium
  EXPECT_EQ(ClassifyCacheRound(a, b), "destaging");
  CacheStats c = b;
  c.destaged_bytes = 0;  // a little with no destage at all: the cache fills
  EXPECT_EQ(ClassifyCacheRound(a, c), "absorbing");
  b.dirty_lines = a.dirty_lines + 101;  // grew by more than 1 %
  EXPECT_EQ(ClassifyCacheRound(a, b), "absorbing");
  b.write_throttled = 1;
  EXPECT_EQ(ClassifyCacheRound(a, b), "throttled");
}

TEST(CachePhasesTest, EqualRoundsJoinAndTimesAreFromTheOrigin) {
  CacheStats s = Base();
  CachePhases p(kSecond, s);
  for (int i = 2; i <= 4; ++i) {
    s.dirty_lines += 500;
    p.Round(i * kSecond, s);
  }
  s.write_throttled = 7;
  p.Round(5 * kSecond, s);
  const nlohmann::json j = p.Json(kSecond);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["phase"], "absorbing");
  EXPECT_EQ(j[0]["rounds"], 3);
  EXPECT_DOUBLE_EQ(j[0]["start_s"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j[1]["end_s"].get<double>(), 4.0);
  EXPECT_EQ(j[1]["phase"], "throttled");
}

// Runs 4k random writes, 1 GiB, QD 16, time-based, with `extra` profile
// options, on a 128 Ki-line (512 MiB) write-back cache on one NVMe over
// one HDD; the job's JSON (null if the cell could not run: a failure).
nlohmann::json RunWriteBurst(const nlohmann::json& extra) {
  const Expected<LayoutSpec> layout = ParseLayoutJson(
      {{"name", "l"},
       {"tiers",
        {{{"name", "c"}, {"preset", "nvme-pm1725"}, {"count", 1}, {"capacity", "512m"}},
         {{"name", "h"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "4g"}}}},
       {"cache", {{"tier", "c"}, {"write", "writeback"}, {"capacity", "512m"}}}},
      "test");
  EXPECT_TRUE(layout.ok()) << layout.error().message;
  nlohmann::json profile = {
      {"rw", "randwrite"}, {"bs", "4k"}, {"iodepth", 16}, {"size", "1g"}, {"time_based", true}};
  profile.update(extra);
  auto p = ParseProfileJson(profile, "test");
  EXPECT_TRUE(p.ok()) << p.error().message;
  if (!layout.ok() || !p.ok()) return nullptr;
  auto runs = RunCell(*layout, Workload{std::vector<Profile>{*p}}, RunSettings{});
  EXPECT_TRUE(runs.ok()) << runs.error().message;
  return runs.ok() ? (*runs)[0].json["jobs"][0] : nlohmann::json();
}

// ss=snia, five rounds of 10 ms.
const nlohmann::json kSnia = {{"ss", "snia"}, {"ss_interval", "10ms"}, {"ss_dur", "50ms"}};

TEST(CachePhasesTest, ARandomWriteBurstIsAbsorbedThenThrottled) {
  // The cache absorbs the writes at NVMe speed until the high watermark
  // (64 Ki lines, well over one 100 ms round), then writes wait for
  // destage to the disk.
  const nlohmann::json job = RunWriteBurst({{"runtime", "2s"}});
  const nlohmann::json& phases = job["phases"];
  ASSERT_GE(phases.size(), 2u) << phases.dump();
  EXPECT_EQ(phases[0]["phase"], "absorbing") << phases.dump();
  EXPECT_EQ(phases.back()["phase"], "throttled") << phases.dump();
}

// ss=snia on a write burst that fills the cache within 100 rounds: its
// rounds look steady, but the cache is filling (CachePhases::filling), so
// steady state is attained only once writes wait for destage, and the
// measured window is what the disk sustains.
TEST(CachePhasesTest, AFillingCacheIsNotSteadyUntilItThrottles) {
  nlohmann::json extra = {{"runtime", "1s"}, {"ramp_time", "10s"}};
  extra.update(kSnia);
  const nlohmann::json job = RunWriteBurst(extra);
  const nlohmann::json& ss = job["steadystate"];
  ASSERT_EQ(ss["attained"], 1) << ss.dump();
  const nlohmann::json& phases = job["phases"];
  ASSERT_GE(phases.size(), 2u) << phases.dump();
  EXPECT_EQ(phases[0]["phase"], "absorbing") << phases.dump();
  // Attained after the cache began to throttle; what is measured is the
  // disk's pace (one HDD's 4k random writes: hundreds a second), not the
  // NVMe's (over 100k).
  double throttled_at = -1;
  for (const auto& ph : phases) {
    if (ph["phase"] == "throttled" && throttled_at < 0) throttled_at = ph["start_s"];
  }
  ASSERT_GE(throttled_at, 0) << phases.dump();
  EXPECT_GT(ss["attained_at_s"].get<double>(), throttled_at) << ss.dump();
  EXPECT_LT(job["write"]["iops"].get<double>(), 5000) << job["write"].dump();
}

// A burst that would take more than 100 rounds to fill the cache
// (rate_iops; the cache fills at about 3.6 s) is steady while it absorbs
// it, then the rounds fall when writes wait for destage: the job has left
// steady state. ss_leave=stop ends it there; report (the default)
// measures on.
TEST(CachePhasesTest, ALeftSteadyStateIsReportedOrEndsTheJob) {
  double window_s[2] = {0, 0};
  for (int stop = 0; stop < 2; ++stop) {
    nlohmann::json extra = {{"rate_iops", 50000},
                            {"runtime", "5s"},
                            {"ramp_time", "1s"},
                            {"ss_leave", stop ? "stop" : "report"}};
    extra.update(kSnia);
    const nlohmann::json job = RunWriteBurst(extra);
    const nlohmann::json& ss = job["steadystate"];
    EXPECT_EQ(ss["attained"], 1) << ss.dump();
    EXPECT_GT(ss["left_at_s"].get<double>(), ss["attained_at_s"].get<double>()) << ss.dump();
    window_s[stop] = job["window_ns"].get<double>() / 1e9;
  }
  EXPECT_GT(window_s[0], 4.99);
  EXPECT_LT(window_s[1], 4.5);
  auto bad = ParseProfileJson({{"ss_leave", "stop"}}, "job.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("ss_leave: stop needs ss=snia"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
