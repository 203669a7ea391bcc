// The sustainable destage rate: bytes destaged over the sample periods in
// which destage progressed, not over the whole run.

#include <gtest/gtest.h>

#include <vector>

#include "bench/analysis/DestageRate.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

DirtySample At(double seconds, std::uint64_t destaged) {
  DirtySample s;
  s.t = static_cast<Nanos>(seconds * 1e9);
  s.destaged_bytes = destaged;
  return s;
}

TEST(DestageRateTest, CountsOnlyThePeriodsInWhichDestageProgressed) {
  // 10 s of run; destage runs in 1..2 s (30 MiB) and 6..8 s (30 MiB).
  const std::vector<DirtySample> s = {At(0, 0),         At(1, 0),         At(2, 30 * kMiB),
                                      At(6, 30 * kMiB), At(8, 60 * kMiB), At(10, 60 * kMiB)};
  const DestageRate r = MeasureDestageRate(s);
  EXPECT_EQ(r.active_ns, 3 * kSecond);
  EXPECT_EQ(r.bytes, 60 * kMiB);
  ASSERT_TRUE(r.bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*r.bytes_per_s, 20.0 * kMiB);
}

TEST(DestageRateTest, BytesAtOneInstantCountWithoutTime) {
  // The final sample at the time of the last periodic one.
  const std::vector<DirtySample> s = {At(0, 0), At(2, 8 * kMiB), At(2, 10 * kMiB)};
  const DestageRate r = MeasureDestageRate(s);
  EXPECT_EQ(r.active_ns, 2 * kSecond);
  EXPECT_EQ(r.bytes, 10 * kMiB);
  ASSERT_TRUE(r.bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*r.bytes_per_s, 5.0 * kMiB);
}

TEST(DestageRateTest, NothingDestagedGivesNoRate) {
  const std::vector<DirtySample> s = {At(0, 0), At(5, 0)};
  const DestageRate r = MeasureDestageRate(s);
  EXPECT_EQ(r.active_ns, 0);
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_FALSE(r.bytes_per_s.has_value());
}

}  // namespace
}  // namespace tierlab
