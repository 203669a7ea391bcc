// TimeBins: completions land in 1 ms bins from the window's start; the width
// doubles (pairs merged, nothing lost) to stay within kMaxBins; merging two
// series of different widths sums them at the wider width; a window that
// runs on after the last completion reads as zeros, at a width that keeps it
// within kMaxBins.

#include <gtest/gtest.h>

#include "bench/lab/TimeBins.h"

namespace tierlab {
namespace {

std::uint64_t TotalOps(const TimeBins::Series& s) {
  std::uint64_t n = 0;
  for (const auto& b : s.bins) n += b.ops;
  return n;
}

TEST(TimeBinsTest, BinsByOffset) {
  TimeBins t;
  t.Add(0, 4096, 10);
  t.Add(kMilli - 1, 4096, 30);
  t.Add(2 * kMilli, 8192, 50);
  const TimeBins::Series s = t.Over(3 * kMilli);
  EXPECT_EQ(s.width, kMilli);
  ASSERT_EQ(s.bins.size(), 3u);
  EXPECT_EQ(s.bins[0].ops, 2u);
  EXPECT_EQ(s.bins[0].bytes, 8192u);
  EXPECT_EQ(s.bins[0].lat_ns, 40u);
  EXPECT_EQ(s.bins[1].ops, 0u);  // a bin without completions
  EXPECT_EQ(s.bins[2].bytes, 8192u);
  // Only whole bins of the window: 2.5 ms holds two.
  EXPECT_EQ(t.Over(2 * kMilli + kMilli / 2).bins.size(), 2u);
}

TEST(TimeBinsTest, WidthDoublesAndKeepsEveryCompletion) {
  TimeBins t;
  const std::size_t n = 10000;  // one per ms for 10 s
  for (std::size_t i = 0; i < n; ++i) t.Add(static_cast<Nanos>(i) * kMilli, 512, 1000);
  EXPECT_EQ(t.width(), 8 * kMilli);  // 10000 / 8 = 1250 bins <= 2048 < 10000 / 4
  const TimeBins::Series s = t.Over(static_cast<Nanos>(n) * kMilli);
  EXPECT_EQ(s.bins.size(), 1250u);
  EXPECT_EQ(TotalOps(s), n);
  for (const auto& b : s.bins) EXPECT_EQ(b.ops, 8u);
}

TEST(TimeBinsTest, MergeSumsAtTheWiderWidth) {
  TimeBins fine, wide;
  fine.Add(0, 1, 1);
  fine.Add(3 * kMilli, 1, 1);
  for (int i = 0; i < 3000; ++i) wide.Add(i * kMilli, 1, 1);  // width 2 ms
  ASSERT_EQ(wide.width(), 2 * kMilli);
  fine.Merge(wide);
  EXPECT_EQ(fine.width(), 2 * kMilli);
  const TimeBins::Series s = fine.Over(3000 * kMilli);
  EXPECT_EQ(s.bins[0].ops, 3u);  // 0 ms (fine) + 0 and 1 ms (wide)
  EXPECT_EQ(s.bins[1].ops, 3u);  // 3 ms (fine) + 2 and 3 ms (wide)
  EXPECT_EQ(TotalOps(s), 3002u);
}

TEST(TimeBinsTest, LongIdleWindowIsCoarsenedOnRead) {
  TimeBins t;
  t.Add(0, 1, 1);
  const TimeBins::Series s = t.Over(100 * kSecond);
  EXPECT_LE(s.bins.size(), TimeBins::kMaxBins);
  EXPECT_GT(s.bins.size(), TimeBins::kMaxBins / 2);
  EXPECT_EQ(TotalOps(s), 1u);
}

}  // namespace
}  // namespace tierlab
