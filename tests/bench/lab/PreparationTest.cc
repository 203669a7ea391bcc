// Preparation (precondition=fill|random): the state it leaves in the cache
// and the tiers, functionally on timing-only stacks and by real writes on
// stacks with data, and what the results say of it.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bench/lab/Preparation.h"
#include "bench/lab/RunCell.h"
#include "layouts/StackBuilder.h"
#include "tests/support/SyncIo.h"
#include "tiering/core/AlignedBuffer.h"

namespace tierlab {
namespace {

LayoutSpec ParseLayout(const nlohmann::json& j) {
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
  return *l;
}

// One NVMe (a 16 MiB cache: 4096 lines) over one HDD.
LayoutSpec CachedHdd() {
  return ParseLayout(
      {{"name", "c"},
       {"tiers",
        {{{"name", "c"}, {"preset", "nvme-pm1725"}, {"count", 1}, {"capacity", "64m"}},
         {{"name", "h"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "1g"}}}},
       {"cache", {{"tier", "c"}, {"write", "writeback"}, {"capacity", "16m"}}}});
}

Profile MakeProfile(const nlohmann::json& fields) {
  nlohmann::json j = {{"name", "p"}, {"rw", "randread"}, {"bs", "4k"}, {"number_ios", 1}};
  j.update(fields);
  auto p = ParseProfileJson(j, "test");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

TEST(PreparationTest, FillLeavesTheLastWrittenLinesInTheCacheWithDestageCaughtUp) {
  // 64 MiB of region through a 4096-line write-back cache, 1 MiB at a time:
  // every line was written once; the cache holds the newest 4096, of which
  // destage has cleaned all but those above the low watermark (45 %), never
  // more than the high one (50 %).
  const Profile p = MakeProfile({{"size", "64m"}, {"precondition", "fill"}});
  CacheStats st;
  bool first = true, last = true, last_dirty = false;
  Nanos engine_time = -1;
  RunSettings s;
  s.after = [&](Engine& e, Volume& v) {
    st = v.cache()->cache_stats();
    first = v.cache()->IsResident(0);
    last = v.cache()->IsResident(64 * 256 - 1);
    last_dirty = v.cache()->IsDirty(64 * 256 - 1);
    engine_time = e.Now();
  };
  auto runs = RunCell(CachedHdd(), Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(st.dirty_lines + st.clean_lines, 4096u);
  EXPECT_GE(st.dirty_lines, 4096u * 45 / 100);
  EXPECT_LE(st.dirty_lines, 4096u * 50 / 100);
  EXPECT_FALSE(first);
  EXPECT_TRUE(last);
  EXPECT_TRUE(last_dirty);
  const nlohmann::json& j = (*runs)[0].json["jobs"][0]["precondition"];
  EXPECT_EQ(j["kind"], "fill");
  EXPECT_TRUE(j["functional"].get<bool>());
  EXPECT_EQ(j["writes"], 64);
  EXPECT_EQ(j["bytes"], 64u << 20);
  EXPECT_EQ(j["elapsed_ns"], 0);
  // The one read of the job is all the engine time there was.
  EXPECT_LT(engine_time, 100 * kMilli);
}

TEST(PreparationTest, RandomOverwritesTheGivenBytesInTheJobsBlockSize) {
  const Profile p = MakeProfile({{"size", "64m"}, {"bs", "8k"}, {"precondition", "random:4m"}});
  auto runs = RunCell(CachedHdd(), Workload{std::vector<Profile>{p}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& j = (*runs)[0].json["jobs"][0]["precondition"];
  EXPECT_EQ(j["kind"], "random:4m");
  EXPECT_EQ(j["writes"], 512);
  EXPECT_EQ(j["bytes"], 4u << 20);
}

TEST(PreparationTest, EachDistinctRegionOnceAndOnlyForSectionsThatAsk) {
  // Four jobs on their own quarters (offset_increment), a second section on
  // the first quarter again, and a third without preparation.
  Profile a = MakeProfile({{"name", "a"},
                           {"numjobs", 4},
                           {"size", "8m"},
                           {"offset_increment", "8m"},
                           {"precondition", "fill"}});
  Profile b = MakeProfile({{"name", "b"}, {"size", "8m"}, {"precondition", "fill"}});
  Profile c = MakeProfile({{"name", "c"}, {"size", "8m"}});
  auto runs = RunCell(CachedHdd(), Workload{std::vector<Profile>{a, b, c}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& j = (*runs)[0].json["jobs"][0]["precondition"];
  EXPECT_EQ(j["regions"], 4);
  EXPECT_EQ(j["bytes"], 32u << 20);
  EXPECT_FALSE((*runs)[2].json["jobs"][0].contains("precondition"));
}

TEST(PreparationTest, FillMapsAThinTierVolumesExtentsByItsPlacement) {
  // Thin tiers: nothing is mapped until written. A fill of the first 96 MiB
  // maps those 12 extents of 8 MiB, and no other: 8 fit the SSD tier, the
  // rest go to HDD (the settle's migration pass may rotate which).
  const LayoutSpec layout =
      ParseLayout({{"name", "t"},
                   {"tiers",
                    {{{"name", "s"}, {"preset", "ssd-hk4e"}, {"count", 1}, {"capacity", "64m"}},
                     {{"name", "h"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "256m"}}}},
                   {"tiering", {{"provisioning", "thin"}, {"extent_size", "8m"}}}});
  const Profile p = MakeProfile({{"size", "96m"}, {"precondition", "fill"}});
  std::vector<bool> mapped;
  TierStats st;
  RunSettings s;
  s.after = [&](Engine&, Volume& v) {
    for (std::uint64_t e = 0; e < 16; ++e) {
      mapped.push_back(v.tier_target()->PlacementAt(e << 23).has_value());
    }
    st = v.tier_target()->tier_stats();
  };
  auto runs = RunCell(layout, Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(mapped.size(), 16u);
  for (std::uint64_t e = 0; e < 16; ++e) EXPECT_EQ(mapped[e], e < 12) << e;
  ASSERT_EQ(st.tiers.size(), 2u);
  EXPECT_EQ(st.tiers[0].extents + st.tiers[1].extents, 12u);
  EXPECT_GE(st.tiers[0].extents, 6u);
  EXPECT_LE(st.tiers[0].extents, 8u);
  // Functional: no migration was counted (the counters describe timed runs).
  EXPECT_EQ(st.promotions + st.demotions, 0u);
}

TEST(PreparationTest, WithDataTheFillIsWrittenForRealAndReadsBack) {
  // A volume that keeps data: the fill runs as real writes (engine time
  // passes), and every block of the region then reads back non-zero.
  const Profile p = MakeProfile({{"size", "4m"}, {"precondition", "fill"}});
  RunSettings s;
  s.with_data = true;
  std::uint64_t zero_blocks = 0;
  s.after = [&](Engine& e, Volume& v) {
    AlignedBuffer buf(4096);
    for (std::uint64_t off = 0; off < (4u << 20); off += 4096) {
      ASSERT_EQ(testing::SubmitAndRun(e, v.top(), IoOp::kRead, off, 4096, buf.data()), Status::kOk);
      zero_blocks +=
          std::all_of(buf.data(), buf.data() + 4096, [](std::byte b) { return b == std::byte{0}; });
    }
  };
  auto runs = RunCell(CachedHdd(), Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(zero_blocks, 0u);
  const nlohmann::json& j = (*runs)[0].json["jobs"][0]["precondition"];
  EXPECT_FALSE(j["functional"].get<bool>());
  EXPECT_EQ(j["bytes"], 4u << 20);
  EXPECT_GT(j["elapsed_ns"].get<std::int64_t>(), 0);
}

// A 64 MiB fill through a 16 MiB write-back cache over a disk ends with
// the cache full of dirty lines and the disk behind; preparation waits for
// destage to catch up, so the job that follows (reads of lines the cache
// does not hold) finds the disk doing nothing else: not one write reaches
// it during the job, where without the wait the fill's destage ran into it.
// With 50 ms added in front of each disk write (dm-delay), destage's
// writes spend longer than a settling step where no device sees them: the
// wait also counts what is in flight (without that it ended with destage
// writes held in the delay, and the job saw their successors).
class PreparationSettleTest : public ::testing::TestWithParam<int> {};

TEST_P(PreparationSettleTest, WithDataTheJobStartsOnceDestageHasCaughtUp) {
  const Profile p =
      MakeProfile({{"size", "64m"}, {"precondition", "fill"}, {"number_ios", 200}, {"iodepth", 4}});
  RunSettings s;
  s.with_data = true;
  LayoutSpec layout = CachedHdd();
  layout.tiers[1].write_delay = GetParam() * kMilli;
  auto runs = RunCell(layout, Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& run = (*runs)[0].json;
  const nlohmann::json& j = run["jobs"][0]["precondition"];
  EXPECT_GT(j["settle_ns"].get<std::int64_t>(), GetParam() * kMilli);
  EXPECT_LE(j["settle_ns"].get<std::int64_t>(), j["elapsed_ns"].get<std::int64_t>());
  ASSERT_EQ(run["devices"].size(), 2u);
  EXPECT_EQ(run["devices"][1]["name"], "h0");
  EXPECT_GT(run["devices"][1]["read_ops"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(run["devices"][1]["write_ops"], 0u) << run["devices"][1].dump();
  const nlohmann::json& cache = run["cache"];
  EXPECT_LE(cache["dirty_lines"].get<double>(), 0.5 * cache["capacity_lines"].get<double>() + 1);
}

INSTANTIATE_TEST_SUITE_P(DiskWriteDelayMs, PreparationSettleTest, ::testing::Values(0, 50));

TEST(PreparationTest, BadValuesAreOneLineErrors) {
  for (const char* bad : {"full", "random:", "random:0", "random:x"}) {
    auto p = ParseProfileJson({{"precondition", bad}}, "job.json");
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.error().message.find("job.json: precondition:"), std::string::npos)
        << p.error().message;
  }
  auto w = ParseProfileJson({{"warmup", "slow"}}, "job.json");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("valid: none, fast"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
