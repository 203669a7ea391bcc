// MrcPass: batched exact records give the curve of StackDistanceMrc fed one
// by one; a sampling rate switches to SHARDS; a trace file is read once for
// its curve and last timestamp.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <vector>

#include "bench/analysis/MrcPass.h"
#include "bench/trace/TraceWriter.h"

namespace tierlab {
namespace {

std::vector<TraceRecord> Records(int n) {
  std::mt19937_64 rng(3);
  std::vector<TraceRecord> v;
  for (int i = 0; i < n; ++i) {
    TraceRecord r;
    r.timestamp = i * kMilli;
    r.op = rng() % 3 == 0 ? IoOp::kWrite : IoOp::kRead;
    // A hot eighth of the blocks takes most references.
    r.offset = (rng() % 4 == 0 ? rng() % 8192 : rng() % 1024) * 4096;
    r.length = 4096 * (1 + static_cast<std::uint32_t>(rng() % 2));
    v.push_back(r);
  }
  return v;
}

TEST(MrcPassTest, ExactEqualsStackDistanceOfTheSameStream) {
  const auto recs = Records(3000);  // not a multiple of the batch
  MrcPass pass(4096, 0);
  StackDistanceMrc sd(4096);
  for (const TraceRecord& r : recs) {
    pass.Add(r);
    sd.Add(r);
  }
  const MissRatioCurve c = pass.Curve();
  ASSERT_EQ(c.points.size(), 32u);
  // Sizes reach the working set + 10 %.
  EXPECT_EQ(c.points.back().cache_blocks, sd.unique_blocks() + sd.unique_blocks() / 10);
  for (const MrcPoint& p : c.points) {
    EXPECT_DOUBLE_EQ(p.read_miss_ratio, sd.ReadMissRatio(p.cache_blocks)) << p.cache_blocks;
  }
  EXPECT_EQ(MrcPass::Method(0), "exact");
}

TEST(MrcPassTest, ARateBelowOneIsShards) {
  const auto recs = Records(3000);
  MrcPass pass(4096, 0.5);
  ShardsMrc shards(ShardsOptions{.block_size = 4096, .rate = 0.5});
  for (const TraceRecord& r : recs) {
    pass.Add(r);
    shards.Add(r);
  }
  const MissRatioCurve c = pass.Curve();
  ASSERT_FALSE(c.points.empty());
  std::vector<std::uint64_t> sizes;
  for (const MrcPoint& p : c.points) sizes.push_back(p.cache_blocks);
  const MissRatioCurve want = shards.Curve(sizes);
  EXPECT_DOUBLE_EQ(c.references, want.references);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_DOUBLE_EQ(c.points[i].miss_ratio, want.points[i].miss_ratio) << sizes[i];
  }
  EXPECT_EQ(MrcPass::Method(1), "exact");
  EXPECT_EQ(MrcPass::Method(0.25), "shards@0.25");
}

TEST(MrcPassTest, TraceMrcReadsTheFileOnceForCurveAndLastTimestamp) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("tierlab-mrcpass-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.bin").string();
  const auto recs = Records(1000);
  {
    auto w = CreateTraceWriter(path, TraceFormat::kTierlabBin);
    ASSERT_TRUE(w.ok());
    for (const TraceRecord& r : recs) ASSERT_TRUE((*w)->Write(r).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  Nanos last = 0;
  auto c = TraceMrc(path, TraceOptions{}, 4096, 0, &last);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(last, 999 * kMilli);
  MrcPass pass(4096, 0);
  for (const TraceRecord& r : recs) pass.Add(r);
  const MissRatioCurve want = pass.Curve();
  ASSERT_EQ(c->points.size(), want.points.size());
  for (std::size_t i = 0; i < want.points.size(); ++i) {
    EXPECT_DOUBLE_EQ(c->points[i].miss_ratio, want.points[i].miss_ratio);
  }
  EXPECT_FALSE(TraceMrc((dir / "missing.bin").string(), TraceOptions{}, 4096, 0, &last).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tierlab
