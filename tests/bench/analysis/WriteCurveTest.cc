// The write curve's order and the size it recommends.

#include <gtest/gtest.h>

#include <vector>

#include "bench/analysis/WriteCurve.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

TEST(WriteCurveTest, SortsBySizeAndFindsWhereTheCurveReachesTheTarget) {
  std::vector<WriteCurvePoint> c = {
      {256 * kMiB, 0.99, 0}, {64 * kMiB, 0.60, 0.3}, {128 * kMiB, 0.96, 0.01}};
  SortBySize(c);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].cache_bytes, 64 * kMiB);
  EXPECT_EQ(c[2].cache_bytes, 256 * kMiB);
  // 0.95: reached from 128 MiB up, missed at 64 MiB.
  SizeRecommendation r = RecommendSize(c, 0.95);
  EXPECT_EQ(r.kind, SizeRecommendation::Kind::kBetween);
  EXPECT_EQ(r.at_most_bytes, 128 * kMiB);
  EXPECT_DOUBLE_EQ(r.at_most_share, 0.96);
  EXPECT_EQ(r.above_bytes, 64 * kMiB);
  EXPECT_DOUBLE_EQ(r.above_share, 0.60);
  EXPECT_EQ(RecommendSize(c, 0.98).at_most_bytes, 256 * kMiB);
  EXPECT_EQ(RecommendSize(c, 0.98).above_bytes, 128 * kMiB);
  EXPECT_EQ(RecommendSize(c, 0.995).kind, SizeRecommendation::Kind::kUnreached);
  EXPECT_EQ(RecommendSize({}, 0.5).kind, SizeRecommendation::Kind::kUnreached);
}

// Every size tried reaches the target: the smallest is an upper bound on
// the need, not a knee.
TEST(WriteCurveTest, AllSizesReachingTheTargetMeansBelowTheSmallest) {
  const std::vector<WriteCurvePoint> c = {{256 * kMiB, 1.0, 0}, {512 * kMiB, 1.0, 0}};
  const SizeRecommendation r = RecommendSize(c, 0.95);
  EXPECT_EQ(r.kind, SizeRecommendation::Kind::kBelowSmallest);
  EXPECT_EQ(r.at_most_bytes, 256 * kMiB);
  EXPECT_STREQ(KindName(r.kind), "below_smallest_size");
}

// A dip below the target at a larger size: the answer is above the dip,
// where every larger size reaches the target.
TEST(WriteCurveTest, ADipAtALargerSizeMovesTheAnswerAboveIt) {
  const std::vector<WriteCurvePoint> c = {
      {64 * kMiB, 0.97, 0}, {128 * kMiB, 0.94, 0}, {256 * kMiB, 0.99, 0}};
  const SizeRecommendation r = RecommendSize(c, 0.95);
  EXPECT_EQ(r.kind, SizeRecommendation::Kind::kBetween);
  EXPECT_EQ(r.at_most_bytes, 256 * kMiB);
  EXPECT_EQ(r.above_bytes, 128 * kMiB);
}

}  // namespace
}  // namespace tierlab
