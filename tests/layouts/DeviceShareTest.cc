// What a failed device holds of its node's addresses: a linear tier's
// device its range, a narrow stripe's device every width-th chunk, and
// every piece where pieces span the whole stripe.

#include <gtest/gtest.h>

#include <memory>

#include "layouts/DeviceShare.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

struct Devices {
  SimEngine e;
  std::vector<std::unique_ptr<RamDevice>> owned;
  std::vector<BlockDevice*> raw;
  explicit Devices(std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) {
      owned.push_back(std::make_unique<RamDevice>(e, "d", 8 * kMiB));
      raw.push_back(owned.back().get());
    }
  }
};

TEST(DeviceShareTest, ALinearTiersDeviceHoldsItsRange) {
  Devices d(3);
  TierSpec t;
  t.combine = Combine::kLinear;
  t.count = 3;
  const DeviceShare s = ShareOfDevice(t, 1, d.raw, kMiB);
  ASSERT_EQ(s.kind, DeviceShare::Kind::kRange);
  EXPECT_EQ(s.begin, 8 * kMiB);
  EXPECT_EQ(s.end, 16 * kMiB);
  EXPECT_FALSE(s.Holds(7 * kMiB, kMiB));
  EXPECT_TRUE(s.Holds(7 * kMiB, kMiB + 1));
  EXPECT_TRUE(s.Holds(15 * kMiB, kMiB));
  EXPECT_FALSE(s.Holds(16 * kMiB, kMiB));
}

// Six devices of 256 KiB chunks: a 1 MiB piece spans four of them.
TEST(DeviceShareTest, ANarrowStripesDeviceHoldsEveryWidthsChunk) {
  Devices d(6);
  TierSpec t;
  t.combine = Combine::kStripe;
  t.count = 6;
  t.chunk = kMiB / 4;
  const DeviceShare s = ShareOfDevice(t, 5, d.raw, kMiB);
  ASSERT_EQ(s.kind, DeviceShare::Kind::kChunks);
  // Pieces at 0, 1, 2 MiB: chunks 0-3, 4-7 (4, 5, 0, 1), 8-11 (2, 3, 4, 5).
  EXPECT_FALSE(s.Holds(0, kMiB));
  EXPECT_TRUE(s.Holds(kMiB, kMiB));
  EXPECT_TRUE(s.Holds(2 * kMiB, kMiB));
  EXPECT_FALSE(s.Holds(3 * kMiB, kMiB));  // chunks 12-15: devices 0-3
  // A piece as wide as the stripe meets every device.
  EXPECT_EQ(ShareOfDevice(t, 5, d.raw, 6 * t.chunk).kind, DeviceShare::Kind::kAll);
  t.count = 1;
  EXPECT_EQ(ShareOfDevice(t, 0, {d.raw[0]}, kMiB).kind, DeviceShare::Kind::kAll);
}

}  // namespace
}  // namespace tierlab
