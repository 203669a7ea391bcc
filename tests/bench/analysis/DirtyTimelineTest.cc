// The dirty-occupancy figures of a sampled timeline, against hand-built
// samples whose answers follow from the definitions (docs/ANALYZER.md).

#include <gtest/gtest.h>

#include <vector>

#include "bench/analysis/DirtyTimeline.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

DirtySample At(double seconds, std::uint64_t dirty, std::uint64_t throttled = 0) {
  DirtySample s;
  s.t = static_cast<Nanos>(seconds * 1e9);
  s.dirty_bytes = dirty;
  s.throttled = throttled;
  return s;
}

TEST(DirtyTimelineTest, PeakHighMarkAndFastestFill) {
  // Fills 4 MiB in the first second, 12 MiB in the next, drains, refills.
  const std::vector<DirtySample> s = {At(0, 0), At(1, 4 * kMiB), At(2, 16 * kMiB), At(3, 10 * kMiB),
                                      At(4, 18 * kMiB)};
  const DirtyTimelineFigures f = SummarizeDirtyTimeline(s, 16 * kMiB);
  EXPECT_EQ(f.peak_dirty_bytes, 18 * kMiB);
  ASSERT_TRUE(f.time_to_high_watermark.has_value());
  EXPECT_EQ(*f.time_to_high_watermark, 2 * kSecond);  // the first sample at the mark
  EXPECT_DOUBLE_EQ(f.peak_fill_bps, 12.0 * kMiB);     // per second
  ASSERT_TRUE(f.burst_time_to_full_s.has_value());
  EXPECT_DOUBLE_EQ(*f.burst_time_to_full_s, 16.0 / 12.0);
  EXPECT_EQ(f.throttled_wall_ns, 0);
}

TEST(DirtyTimelineTest, ThrottledTimeIsThePeriodsInWhichThrottlingGrew) {
  const std::vector<DirtySample> s = {At(0, 0, 0), At(0.5, kMiB, 3), At(1.5, kMiB, 3),
                                      At(1.75, kMiB, 9), At(1.75, kMiB, 10)};
  const DirtyTimelineFigures f = SummarizeDirtyTimeline(s, 8 * kMiB);
  // 0 -> 0.5 s and 1.5 -> 1.75 s; the zero-length last period adds nothing.
  EXPECT_EQ(f.throttled_wall_ns, 750 * kMilli);
  EXPECT_FALSE(f.time_to_high_watermark.has_value());
}

TEST(DirtyTimelineTest, NoGrowthMeansNoBurstFigure) {
  const std::vector<DirtySample> draining = {At(0, 8 * kMiB), At(1, 4 * kMiB), At(2, 0)};
  const DirtyTimelineFigures f = SummarizeDirtyTimeline(draining, 16 * kMiB);
  EXPECT_EQ(f.peak_dirty_bytes, 8 * kMiB);
  EXPECT_EQ(f.peak_fill_bps, 0);
  EXPECT_FALSE(f.burst_time_to_full_s.has_value());
  EXPECT_EQ(SummarizeDirtyTimeline({}, 16 * kMiB).peak_dirty_bytes, 0u);
  // No high mark: never "reached".
  EXPECT_FALSE(SummarizeDirtyTimeline(draining, 0).time_to_high_watermark.has_value());
}

}  // namespace
}  // namespace tierlab
