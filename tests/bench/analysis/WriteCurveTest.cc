// The write curve's order and the size it recommends.

#include <gtest/gtest.h>

#include <vector>

#include "bench/analysis/WriteCurve.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

TEST(WriteCurveTest, SortsBySizeAndFindsTheSmallestSizeReachingTheTarget) {
  std::vector<WriteCurvePoint> c = {
      {256 * kMiB, 0.99, 0}, {64 * kMiB, 0.60, 0.3}, {128 * kMiB, 0.96, 0.01}};
  SortBySize(c);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].cache_bytes, 64 * kMiB);
  EXPECT_EQ(c[2].cache_bytes, 256 * kMiB);
  EXPECT_EQ(SmallestSizeReaching(c, 0.95), 128 * kMiB);
  EXPECT_EQ(SmallestSizeReaching(c, 0.98), 256 * kMiB);
  EXPECT_FALSE(SmallestSizeReaching(c, 0.995).has_value());
  EXPECT_FALSE(SmallestSizeReaching({}, 0.5).has_value());
}

}  // namespace
}  // namespace tierlab
