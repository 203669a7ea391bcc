// Calibration recovers a known model: the probe run in simulated time on a
// flash model gives back the model's figures, the fit predicts its own
// model without error, and a device that will not settle is refused.

#include <gtest/gtest.h>

#include <cmath>

#include "bench/lab/DeviceCalibration.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"

namespace tierlab {
namespace {

// Short runs: the models are deterministic, so a few hundred simulated
// milliseconds are their steady state.
CalibrationPlan ShortPlan() {
  CalibrationPlan p = FullPlan();
  p.region = 256ull << 20;
  p.ramp = 20 * kMilli;
  p.runtime = 200 * kMilli;
  return p;
}

// A custom device whose figures no catalog preset shares.
DevicePreset Known() {
  DevicePreset p = *FindPreset("ssd-hk4e");
  p.name = "known";
  p.read_iops_4k = 123'000;
  p.write_iops_4k = 47'000;
  p.seq_read_mbps = 910;
  p.seq_write_mbps = 640;
  p.read_latency = 85 * kMicro;
  p.write_latency = 33 * kMicro;
  return p;
}

CalibrationFit Calibrate(const DevicePreset& truth, const CalibrationPlan& plan) {
  SimEngine e;
  auto dev = MakeModelDevice(e, truth, "d");
  auto probe = RunProbe(e, *dev, plan);
  EXPECT_TRUE(probe.ok()) << (probe.ok() ? "" : probe.error().message);
  if (!probe.ok()) return {};
  DevicePreset base;
  base.name = "fitted";
  base.type = truth.type;
  base.capacity_bytes = truth.capacity_bytes;
  auto fit = FitFlashModel(*probe, plan, base);
  EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().message);
  return fit.ok() ? *fit : CalibrationFit{};
}

void ExpectWithin(double got, double want, double rel, const char* what) {
  EXPECT_NEAR(got, want, rel * want) << what;
}

TEST(DeviceCalibrationTest, RecoversAKnownFlashModelWithinFivePercent) {
  const DevicePreset truth = Known();
  const CalibrationFit fit = Calibrate(truth, ShortPlan());
  const DevicePreset& p = fit.preset;
  ExpectWithin(p.read_iops_4k, truth.read_iops_4k, 0.05, "read IOPS");
  ExpectWithin(p.write_iops_4k, truth.write_iops_4k, 0.05, "write IOPS");
  ExpectWithin(p.seq_read_mbps, truth.seq_read_mbps, 0.05, "read MB/s");
  ExpectWithin(p.seq_write_mbps, truth.seq_write_mbps, 0.05, "write MB/s");
  ExpectWithin(static_cast<double>(p.read_latency), static_cast<double>(truth.read_latency), 0.05,
               "read latency");
  ExpectWithin(static_cast<double>(p.write_latency), static_cast<double>(truth.write_latency), 0.05,
               "write latency");
  // The knee: 123k IOPS x 85 us = 10.5 requests in flight.
  EXPECT_EQ(p.service_units, 11u);
  EXPECT_EQ(p.type, truth.type);
  EXPECT_EQ(p.name, "fitted");
}

TEST(DeviceCalibrationTest, TheFitPredictsItsOwnModelAtEveryPoint) {
  const CalibrationFit fit = Calibrate(Known(), ShortPlan());
  ASSERT_EQ(fit.points.size(), ShortPlan().points.size());
  for (const FitPoint& f : fit.points) {
    EXPECT_LT(std::abs(f.iops_error), 0.02) << f.point.Name();
    EXPECT_LT(std::abs(f.lat_mean_error), 0.02) << f.point.Name();
  }
  EXPECT_LT(fit.max_iops_error, 0.02);
  EXPECT_LT(fit.max_lat_error, 0.02);
}

TEST(DeviceCalibrationTest, TheSweepFindsTheCeilingOnlyPastTheKnee) {
  // At QD1 a device of 85 us does 11.8k IOPS; 123k needs about 11 in
  // flight, so the QD8 point is below the ceiling and QD16 at it.
  const CalibrationFit fit = Calibrate(Known(), ShortPlan());
  for (const FitPoint& f : fit.points) {
    if (f.point.rw != RwMode::kRandRead) continue;
    const double expect = std::min(f.point.iodepth / 85e-6, 123'000.0);
    EXPECT_NEAR(f.measured.iops, expect, 0.03 * expect) << f.point.Name();
  }
}

// A leaf whose latency the test changes between runs, as a device whose
// garbage collection comes and goes would.
class VaryingDevice final : public BlockDevice {
 public:
  VaryingDevice(Engine& e, const Nanos* latency) : BlockDevice(e, "varying"), latency_(latency) {}
  std::uint64_t Size() const override { return 1ull << 30; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "varying"; }

 protected:
  void SubmitImpl(const IoRequest&, IoCallback done) override {
    engine().ScheduleAt(engine().Now() + *latency_,
                        [this, d = std::move(done)]() mutable { Finish(d, Status::kOk); });
  }

 private:
  const Nanos* latency_;
};

TEST(DeviceCalibrationTest, APointThatDoesNotSettleIsRefusedByName) {
  SimEngine e;
  Nanos latency = 50 * kMicro;
  VaryingDevice dev(e, &latency);
  CalibrationPlan plan = ShortPlan();
  plan.fill = false;
  std::uint32_t runs = 0;
  auto probe = RunProbe(e, dev, plan, [&](const ProbeProgress& p) {
    if (p.point == nullptr) return;
    ++runs;
    latency = runs % 2 == 0 ? 50 * kMicro : 100 * kMicro;  // IOPS halve every other run
  });
  ASSERT_FALSE(probe.ok());
  EXPECT_EQ(probe.error().kind, ErrorKind::kInconsistent);
  EXPECT_NE(probe.error().message.find("randread 4k QD1 did not settle"), std::string::npos)
      << probe.error().message;
  EXPECT_EQ(runs, plan.max_repeats);
}

TEST(DeviceCalibrationTest, AnUnsettledPointGetsMoreRunsAndPassesOnceStable) {
  SimEngine e;
  Nanos latency = 50 * kMicro;
  VaryingDevice dev(e, &latency);
  CalibrationPlan plan = ShortPlan();
  plan.fill = false;
  plan.points.resize(1);  // randread 4k QD1
  std::uint32_t runs = 0;
  auto probe = RunProbe(e, dev, plan, [&](const ProbeProgress& p) {
    if (p.point != nullptr && ++runs == 1) latency = 200 * kMicro;  // the first run is an outlier
    if (runs > 1) latency = 50 * kMicro;
  });
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  const ProbeResult& r = (*probe)[0];
  EXPECT_EQ(r.runs.size(), plan.repeats + 1);
  EXPECT_TRUE(r.settled);
  EXPECT_NEAR(r.median.iops, 20'000, 200);
}

TEST(DeviceCalibrationTest, AFitNeedsQd1AndSequentialPointsEachWay) {
  const DevicePreset truth = Known();
  CalibrationPlan plan = ShortPlan();
  plan.points = {{RwMode::kRandRead, 4096, 4},
                 {RwMode::kRandWrite, 4096, 1},
                 {RwMode::kRead, 1 << 20, 4},
                 {RwMode::kWrite, 1 << 20, 4}};
  SimEngine e;
  auto dev = MakeModelDevice(e, truth, "d");
  auto probe = RunProbe(e, *dev, plan);
  ASSERT_TRUE(probe.ok());
  auto fit = FitFlashModel(*probe, plan, truth);
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.error().message, "the probe has no random 4k read at QD1");
}

TEST(DeviceCalibrationTest, ARegionLargerThanTheDeviceIsRefused) {
  SimEngine e;
  ModelOptions mo;
  mo.capacity = 64ull << 20;
  auto dev = MakeModelDevice(e, Known(), "small", mo);
  auto probe = RunProbe(e, *dev, ShortPlan());
  ASSERT_FALSE(probe.ok());
  EXPECT_NE(probe.error().message.find("does not fit small"), std::string::npos)
      << probe.error().message;
}

TEST(DeviceCalibrationTest, TheQuickPlanFitsInAMinute) {
  EXPECT_LE(PlannedTime(QuickPlan()), 60 * kSecond);
  EXPECT_GT(PlannedTime(FullPlan()), 2 * 60 * kSecond);
  EXPECT_LE(PlannedTime(FullPlan()), 5 * 60 * kSecond);
}

}  // namespace
}  // namespace tierlab
