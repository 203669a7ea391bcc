// Endurance arithmetic: DWPD = device bytes per day / device capacity,
// life = 5 years x rating / DWPD, write amplification = device / host bytes.

#include <gtest/gtest.h>

#include <cmath>

#include "bench/analysis/Endurance.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

TEST(EnduranceTest, DwpdLifeAndAmplification) {
  // 12 GiB written to 8 GiB of devices in 12 hours: 24 GiB a day, 3 DWPD.
  EnduranceInput in;
  in.device_write_bytes = 12 * kGiB;
  in.host_write_bytes = 8 * kGiB;
  in.duration = 12 * 3600 * kSecond;
  in.device_bytes = 8 * kGiB;
  in.rated_dwpd = 3;
  const EnduranceFigures f = ComputeEndurance(in);
  EXPECT_DOUBLE_EQ(f.bytes_per_day, 24.0 * kGiB);
  EXPECT_DOUBLE_EQ(f.dwpd, 3.0);
  EXPECT_DOUBLE_EQ(f.life_years, kWarrantyYears);  // at exactly the rating: the warranty
  EXPECT_DOUBLE_EQ(f.write_amplification, 1.5);
  in.rated_dwpd = 0.3;
  EXPECT_DOUBLE_EQ(ComputeEndurance(in).life_years, 0.5);
}

TEST(EnduranceTest, NothingWrittenLastsForever) {
  EnduranceInput in;
  in.duration = 3600 * kSecond;
  in.device_bytes = kGiB;
  in.rated_dwpd = 1;
  const EnduranceFigures f = ComputeEndurance(in);
  EXPECT_EQ(f.dwpd, 0);
  EXPECT_TRUE(std::isinf(f.life_years));
  EXPECT_EQ(f.write_amplification, 0);
  in.device_write_bytes = kGiB;
  in.duration = 0;  // no time base: no rate
  EXPECT_EQ(ComputeEndurance(in).bytes_per_day, 0);
}

}  // namespace
}  // namespace tierlab
