// Endurance arithmetic: DWPD = device bytes per day / capacity (the whole
// device's, and the cache partition's), life = 5 years x rating / device
// DWPD, write amplification = device / host bytes.

#include <gtest/gtest.h>

#include <cmath>

#include "bench/analysis/Endurance.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kGiB = 1ull << 30;

TEST(EnduranceTest, DwpdLifeAndAmplification) {
  // 12 GiB written in 12 hours to a 2 GiB partition of 8 GiB of devices:
  // 24 GiB a day, 3 DWPD of the devices, 12 of the partition.
  EnduranceInput in;
  in.device_write_bytes = 12 * kGiB;
  in.host_write_bytes = 8 * kGiB;
  in.duration = 12 * 3600 * kSecond;
  in.device_bytes = 8 * kGiB;
  in.partition_bytes = 2 * kGiB;
  in.rated_dwpd = 3;
  const EnduranceFigures f = ComputeEndurance(in);
  EXPECT_DOUBLE_EQ(f.bytes_per_day, 24.0 * kGiB);
  EXPECT_DOUBLE_EQ(f.device_dwpd, 3.0);
  EXPECT_DOUBLE_EQ(f.partition_dwpd, 12.0);
  // At exactly the rating of the device: the warranty.
  EXPECT_DOUBLE_EQ(f.life_years, kWarrantyYears);
  EXPECT_DOUBLE_EQ(f.write_amplification, 1.5);
  in.rated_dwpd = 0.3;
  EXPECT_DOUBLE_EQ(ComputeEndurance(in).life_years, 0.5);
}

TEST(EnduranceTest, NothingWrittenLastsForever) {
  EnduranceInput in;
  in.duration = 3600 * kSecond;
  in.device_bytes = kGiB;
  in.partition_bytes = kGiB;
  in.rated_dwpd = 1;
  const EnduranceFigures f = ComputeEndurance(in);
  EXPECT_EQ(f.device_dwpd, 0);
  EXPECT_EQ(f.partition_dwpd, 0);
  EXPECT_TRUE(std::isinf(f.life_years));
  EXPECT_EQ(f.write_amplification, 0);
  in.device_write_bytes = kGiB;
  in.duration = 0;  // no time base: no rate
  EXPECT_EQ(ComputeEndurance(in).bytes_per_day, 0);
}

}  // namespace
}  // namespace tierlab
