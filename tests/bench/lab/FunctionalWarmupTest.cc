// Functional warming (BlockDevice::Warm) and the fast warm-up built on it:
// the state it leaves is the state timed requests leave, its convergence
// test, and what a run reports.

#include <gtest/gtest.h>

#include <string>

#include "bench/lab/FunctionalWarmup.h"
#include "bench/lab/RunCell.h"
#include "bench/workload/JobStream.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

// One NVMe caching one HDD; the cache holds `cache` bytes of 4 KiB lines.
LayoutSpec SmallCachedHdd(const std::string& policy, const std::string& write,
                          const std::string& cache = "1m") {
  nlohmann::json j = {
      {"name", "small"},
      {"tiers",
       {{{"name", "c"}, {"preset", "nvme-pm1725"}, {"count", 1}, {"capacity", "64m"}},
        {{"name", "h"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "1g"}}}},
      {"cache",
       {{"tier", "c"},
        {"policy", policy},
        {"write", write},
        {"capacity", cache},
        {"line_size", "4k"}}}};
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
  return *l;
}

Profile MakeProfile(const nlohmann::json& fields) {
  nlohmann::json j = {{"name", "w"}, {"bs", "4k"}, {"iodepth", 1}};
  j.update(fields);
  auto p = ParseProfileJson(j, "test");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

// Which of the first `lines` volume lines the cache holds.
std::vector<bool> Residency(const Volume& v, std::uint64_t lines) {
  std::vector<bool> out(lines);
  for (std::uint64_t l = 0; l < lines; ++l) out[l] = v.cache()->IsResident(l);
  return out;
}

// Warms a freshly built volume with the profile's own stream, `n` requests,
// and returns the residency (without settling: the fill of the last read is
// still in flight when a timed run of the same requests ends).
std::vector<bool> WarmedResidency(const LayoutSpec& layout, const Profile& p, std::uint64_t n,
                                  std::uint64_t lines) {
  SimEngine engine;
  auto v = BuildVolume(engine, layout, BuildOptions{});
  EXPECT_TRUE(v.ok());
  auto s = JobStream::Create(p, v->top().Size(), v->top().BlockSize(), 0, {});
  EXPECT_TRUE(s.ok());
  for (std::uint64_t i = 0; i < n; ++i) {
    const NextIo io = s->Next();
    IoRequest r;
    r.op = io.op;
    r.offset = io.offset;
    r.length = io.length;
    v->top().Warm(r);
  }
  return Residency(*v, lines);
}

std::vector<bool> TimedResidency(const LayoutSpec& layout, const Profile& p, std::uint64_t lines) {
  std::vector<bool> out;
  RunSettings s;
  s.after = [&](Engine&, Volume& v) { out = Residency(v, lines); };
  auto runs = RunCell(layout, Workload{std::vector<Profile>{p}}, s);
  EXPECT_TRUE(runs.ok()) << (runs.ok() ? "" : runs.error().message);
  return out;
}

class QueueDepthOneTest : public ::testing::TestWithParam<std::string> {};

// The check: at QD1, read-only, the cache holds exactly the same
// lines after N functional accesses as after the same N timed ones. A cache
// of 256 lines over a 16 MiB region of 4096 lines evicts all along, so the
// replacement order must match call for call.
TEST_P(QueueDepthOneTest, FunctionalAndTimedLeaveTheSameLines) {
  const LayoutSpec layout = SmallCachedHdd(GetParam(), "writeback");
  constexpr std::uint64_t kIos = 3000;
  constexpr std::uint64_t kLines = 4096;
  for (const char* dist : {"random", "zipf:0.8"}) {
    const Profile p = MakeProfile(
        {{"rw", "randread"}, {"size", "16m"}, {"number_ios", kIos}, {"random_distribution", dist}});
    const std::vector<bool> timed = TimedResidency(layout, p, kLines);
    const std::vector<bool> warmed = WarmedResidency(layout, p, kIos, kLines);
    ASSERT_EQ(timed.size(), kLines);
    std::uint64_t resident = 0, differ = 0;
    for (std::uint64_t l = 0; l < kLines; ++l) {
      resident += timed[l];
      differ += timed[l] != warmed[l];
    }
    EXPECT_GT(resident, 200u) << dist;  // the cache filled (256 lines, one in flight)
    EXPECT_EQ(differ, 0u) << GetParam() << " " << dist;
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, QueueDepthOneTest,
                         ::testing::Values("lru", "fifo", "clock", "2q", "arc", "s3fifo", "lfu",
                                           "smq"));

TEST(FunctionalWarmupTest, WriteBackKeepsDirtyLinesBetweenTheWatermarks) {
  // 256 lines, watermarks 50 % / 45 %: after thousands of random writes,
  // destage has kept up to the low watermark each time the high one was
  // reached, so the dirty lines lie between them, and the rest are clean.
  const LayoutSpec layout = SmallCachedHdd("lru", "writeback");
  SimEngine engine;
  auto v = BuildVolume(engine, layout, BuildOptions{});
  ASSERT_TRUE(v.ok());
  const Profile p = MakeProfile({{"rw", "randwrite"}, {"size", "16m"}});
  auto s = JobStream::Create(p, v->top().Size(), v->top().BlockSize(), 0, {});
  ASSERT_TRUE(s.ok());
  std::uint64_t placed = 0;
  for (int i = 0; i < 5000; ++i) {
    const NextIo io = s->Next();
    placed += v->top().Warm(IoRequest{io.op, 0, io.offset, io.length, nullptr});
  }
  const CacheStats st = v->cache()->cache_stats();
  EXPECT_GE(st.dirty_lines, 115u);  // 45 % of 256
  EXPECT_LE(st.dirty_lines, 128u);  // 50 %
  EXPECT_EQ(st.dirty_lines + st.clean_lines, 256u);
  EXPECT_GT(placed, 1000u);
  // Functional warming is not counted: the counters describe timed runs.
  EXPECT_EQ(st.write_requests, 0u);
  EXPECT_EQ(st.evictions, 0u);
  EXPECT_EQ(st.destage_ops, 0u);
}

TEST(FunctionalWarmupTest, AFullWriteCacheDestagesForTheWriterAsAThrottledWriteWaits) {
  // Watermarks at 100 %: nothing is destaged until a write finds every line
  // dirty; then destage frees one run for it, as it would for a throttled
  // writer, and the write is still absorbed.
  LayoutSpec layout = SmallCachedHdd("lru", "writeback");
  layout.cache->config.high_watermark = 100;
  layout.cache->config.low_watermark = 100;
  SimEngine engine;
  auto v = BuildVolume(engine, layout, BuildOptions{});
  ASSERT_TRUE(v.ok());
  for (std::uint64_t l = 0; l < 300; ++l) {
    v->top().Warm(IoRequest{IoOp::kWrite, 0, l * 4096, 4096, nullptr});
  }
  EXPECT_TRUE(v->cache()->IsResident(299));
  EXPECT_TRUE(v->cache()->IsDirty(299));
  EXPECT_EQ(v->cache()->cache_stats().free_lines, 0u);
}

TEST(FunctionalWarmupTest, TierHeatMovesHotExtentsUpWhenTheStackSettles) {
  // Fixed provisioning places the first 8 extents of 8 MiB on the SSD tier
  // and the rest on HDD. Reads of extents 20..23 heat them; the settle runs
  // the migration passes at once, so they end on the SSD tier, in place of
  // cold ones, and the move costs no engine time.
  nlohmann::json j = {
      {"name", "t"},
      {"tiers",
       {{{"name", "s"}, {"preset", "ssd-hk4e"}, {"count", 1}, {"capacity", "64m"}},
        {{"name", "h"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "256m"}}}},
      {"tiering", {{"extent_size", "8m"}}}};
  auto layout = ParseLayoutJson(j, "test");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  SimEngine engine;
  auto v = BuildVolume(engine, *layout, BuildOptions{});
  ASSERT_TRUE(v.ok());
  TierTarget& t = *v->tier_target();
  ASSERT_EQ(t.PlacementAt(20ull << 23)->tier, 1u);
  for (int round = 0; round < 100; ++round) {
    for (std::uint64_t e = 20; e < 24; ++e) {
      v->top().Warm(IoRequest{IoOp::kRead, 0, e << 23, 4096, nullptr});
    }
  }
  EXPECT_EQ(t.PlacementAt(20ull << 23)->tier, 1u);  // moves wait for the settle
  EXPECT_GE(v->top().WarmSettle(), 4u);
  for (std::uint64_t e = 20; e < 24; ++e) EXPECT_EQ(t.PlacementAt(e << 23)->tier, 0u) << e;
  EXPECT_EQ(t.tier_stats().tiers[0].extents, 8u);
  EXPECT_EQ(engine.Now(), 0);
}

TEST(FunctionalWarmupTest, ConvergenceTest) {
  EXPECT_TRUE(WarmupConverged(0, 0));
  EXPECT_TRUE(WarmupConverged(500, 0));
  EXPECT_TRUE(WarmupConverged(1000, 1030));         // within the noise
  EXPECT_FALSE(WarmupConverged(1140000, 2530000));  // a new regime: destage began
  EXPECT_TRUE(WarmupConverged(100000, 96000));      // within 5 %
  EXPECT_FALSE(WarmupConverged(100000, 90000));     // 10 %, far beyond the noise
  EXPECT_FALSE(WarmupConverged(1000000, 368000));   // a cache still filling (e^-1)
  EXPECT_TRUE(WarmupConverged(20, 7));              // a fall within the noise of small counts
  EXPECT_FALSE(WarmupConverged(2000, 740));
}

TEST(FunctionalWarmupTest, AWorkingSetThatFitsConvergesWithEveryLineResident) {
  // 2048 lines of region in a 4096-line cache: once converged, a timed
  // run reads only hits.
  const LayoutSpec layout = SmallCachedHdd("lru", "writeback", "16m");
  Profile p = MakeProfile({{"rw", "randread"},
                           {"size", "8m"},
                           {"iodepth", 8},
                           {"runtime", "100ms"},
                           {"time_based", true},
                           {"warmup", "fast"}});
  auto runs = RunCell(layout, Workload{std::vector<Profile>{p}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& w = (*runs)[0].json["jobs"][0]["warmup"];
  EXPECT_EQ(w["mode"], "fast");
  EXPECT_TRUE(w["converged"].get<bool>());
  EXPECT_EQ(w["window"].get<std::uint64_t>(), WarmupResult::kMinWindow);
  // It fits the read cache: the fill pass read it all first.
  EXPECT_EQ(w["filled_bytes"].get<std::uint64_t>(), 8u << 20);
  const CacheStats st = [&] {
    CacheStats out;
    RunSettings s;
    s.after = [&](Engine&, Volume& v) { out = v.cache()->cache_stats(); };
    EXPECT_TRUE(RunCell(layout, Workload{std::vector<Profile>{p}}, s).ok());
    return out;
  }();
  EXPECT_EQ(st.clean_lines, 2048u);
  EXPECT_EQ(st.read_misses, 0u);
  EXPECT_GT(st.read_hits, 1000u);
  // Without warm-up the same run misses.
  p.warmup_fast = false;
  CacheStats cold;
  RunSettings s;
  s.after = [&](Engine&, Volume& v) { cold = v.cache()->cache_stats(); };
  ASSERT_TRUE(RunCell(layout, Workload{std::vector<Profile>{p}}, s).ok());
  EXPECT_GT(cold.read_misses, 50u);
  // A region larger than the cache gets no fill pass.
  const Profile big = MakeProfile({{"rw", "randread"},
                                   {"size", "32m"},
                                   {"iodepth", 8},
                                   {"runtime", "100ms"},
                                   {"time_based", true},
                                   {"warmup", "fast"}});
  auto r = RunCell(layout, Workload{std::vector<Profile>{big}}, RunSettings{});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE((*r)[0].json["jobs"][0]["warmup"].contains("filled_bytes"));
}

// The timed run continues each job's stream where warm-up left it: its
// next request is the one after the last warmed, not the stream's first
// (which would replay the requests that warmed the cache). A job of one
// pass whose stream completed a pass in warm-up starts afresh instead.
TEST(FunctionalWarmupTest, TheTimedRunContinuesTheWarmedStreams) {
  SimEngine engine;
  auto v = BuildVolume(engine, SmallCachedHdd("lru", "writeback", "16m"), BuildOptions{});
  ASSERT_TRUE(v.ok());
  const Profile timed = MakeProfile({{"rw", "randread"},
                                     {"size", "1g"},
                                     {"numjobs", 2},
                                     {"time_based", true},
                                     {"runtime", "1s"},
                                     {"random_distribution", "zipf:1.1"},
                                     {"warmup", "fast"}});
  const Profile one_pass = MakeProfile({{"rw", "read"}, {"size", "1m"}, {"warmup", "fast"}});
  std::vector<SectionWork> work(2);
  work[0].profile = &timed;
  work[1].profile = &one_pass;
  auto r = FunctionalWarmup(v->top(), work);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->has_value());
  const std::uint64_t accesses = (*r)->accesses;
  ASSERT_EQ(work[0].streams.size(), 2u);
  // Requests are drawn round robin over the three jobs' streams.
  for (std::uint32_t j = 0; j < 2; ++j) {
    ASSERT_TRUE(work[0].streams[j].has_value());
    auto fresh = JobStream::Create(timed, v->top().Size(), v->top().BlockSize(), j, {});
    ASSERT_TRUE(fresh.ok());
    const std::uint64_t drawn = accesses / 3 + (j < accesses % 3 ? 1 : 0);
    for (std::uint64_t i = 0; i < drawn; ++i) fresh->Next();
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(work[0].streams[j]->Next().offset, fresh->Next().offset) << j << " " << i;
    }
  }
  // 1 MiB read sequentially in 4 KiB requests wraps 256 times a window.
  EXPECT_TRUE(work[1].streams.empty() || !work[1].streams[0].has_value());
}

TEST(FunctionalWarmupTest, AVolumeWithDataIsNotWarmedAndTheResultSaysWhy) {
  const LayoutSpec layout = SmallCachedHdd("lru", "writeback");
  const Profile p =
      MakeProfile({{"rw", "randread"}, {"size", "1m"}, {"number_ios", 10}, {"warmup", "fast"}});
  RunSettings s;
  s.with_data = true;
  auto runs = RunCell(layout, Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& w = (*runs)[0].json["jobs"][0]["warmup"];
  EXPECT_NE(w["skipped"].get<std::string>().find("carries data"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
