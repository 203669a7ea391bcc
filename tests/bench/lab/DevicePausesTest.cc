// The pause probe (bench/lab/DevicePauses.h) against simulated devices whose
// pauses are known: it gives back their classes, and finds none on a model
// that has none.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "bench/lab/DevicePauses.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/targets/DevicePauseTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kRegion = 256ull << 20;

// A flash model with two classes of pauses, 1.5 ms 20 times a second and
// 3 ms 5 times (each inside one of the probe's classes, 1-2 and 2-5 ms), probed for a minute of
// simulated time: 1,200 and 300 pauses, so the rates come back within three standard deviations
// (3/sqrt(n): 9% and 17%). A read sees a pause from the end its own service would have had, a
// uniform share of a read into it, which the probe adds back on average: each duration within 5%.
TEST(DevicePausesTest, TheProbeGivesBackASimulatedDevicesPauses) {
  SimEngine e;
  DevicePreset p = *FindPreset("ssd-hk4e");
  const std::vector<CpuStall> pauses = {{1500 * kMicro, 20}, {3 * kMilli, 5}};
  DevicePauseTarget dev(e, "d", MakeModelDevice(e, p, "model"), pauses);
  auto h = MeasureDevicePauses(e, dev, kRegion, 60 * kSecond);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->stalls.size(), 2u) << "the median read: " << h->unit << " ns";
  EXPECT_NEAR(static_cast<double>(h->stalls[0].duration), 1.5e6, 0.05 * 1.5e6);
  EXPECT_NEAR(h->stalls[0].per_second, 20, 0.09 * 20);
  EXPECT_NEAR(static_cast<double>(h->stalls[1].duration), 3e6, 0.05 * 3e6);
  EXPECT_NEAR(h->stalls[1].per_second, 5, 0.17 * 5);
  // Their share of the time: 20 x 1.5 ms + 5 x 3 ms a second of running.
  EXPECT_NEAR(h->lost_share, 0.045 / 1.045, 0.005);
  EXPECT_GE(h->window, 60 * kSecond);
  EXPECT_GT(h->unit, 0);  // the median read
}

// A device paused 40% of the time or more gets calibrate's warning:
// 1 ms pauses 800 times a second of its own time (0.8 s a second, 44% of
// the time) against 500 times (33%).
TEST(DevicePausesTest, ADeviceMostlyPausedGetsAWarning) {
  auto probe = [](double per_second) {
    SimEngine e;
    DevicePauseTarget dev(e, "d", MakeModelDevice(e, *FindPreset("ssd-hk4e"), "model"),
                          {{kMilli, per_second}});
    auto h = MeasureDevicePauses(e, dev, kRegion, 10 * kSecond);
    EXPECT_TRUE(h.ok()) << h.error().message;
    return h.ok() ? *h : HostStalls{};
  };
  const HostStalls busy = probe(800);
  EXPECT_NEAR(busy.lost_share, 0.8 / 1.8, 0.03);
  const auto warning = PausedShareWarning(busy);
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(warning->rfind("paused 4", 0), 0u) << *warning;
  EXPECT_NE(warning->find("of the pause probe's 10000 ms"), std::string::npos) << *warning;

  const HostStalls quieter = probe(500);
  EXPECT_NEAR(quieter.lost_share, 0.5 / 1.5, 0.03);
  EXPECT_EQ(PausedShareWarning(quieter), std::nullopt);
}

TEST(DevicePausesTest, AModelWithoutPausesHasNone) {
  SimEngine e;
  auto dev = MakeModelDevice(e, *FindPreset("ssd-hk4e"), "model");
  auto h = MeasureDevicePauses(e, *dev, kRegion, 5 * kSecond);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->count, 0u);
  EXPECT_TRUE(h->stalls.empty());
}

TEST(DevicePausesTest, ARegionSmallerThanAReadIsRefused) {
  SimEngine e;
  auto dev = MakeModelDevice(e, *FindPreset("ssd-hk4e"), "model");
  auto h = MeasureDevicePauses(e, *dev, 1024, kSecond);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("holds no 4 KiB read"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
