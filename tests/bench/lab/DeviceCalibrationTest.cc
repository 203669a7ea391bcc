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

// The flash model fitted to `probe` of a device like `truth`.
CalibrationFit FitLike(const DevicePreset& truth, const std::vector<ProbeResult>& probe,
                       const CalibrationPlan& plan) {
  DevicePreset base;
  base.name = "fitted";
  base.type = truth.type;
  base.capacity_bytes = truth.capacity_bytes;
  auto fit = FitFlashModel(probe, plan, base);
  EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().message);
  return fit.ok() ? *fit : CalibrationFit{};
}

CalibrationFit Calibrate(const DevicePreset& truth, const CalibrationPlan& plan) {
  SimEngine e;
  auto dev = MakeModelDevice(e, truth, "d");
  auto probe = RunProbe(e, *dev, plan);
  EXPECT_TRUE(probe.ok()) << (probe.ok() ? "" : probe.error().message);
  if (!probe.ok()) return {};
  return FitLike(truth, *probe, plan);
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

// A disk whose figures no catalog preset shares.
DevicePreset KnownDisk() {
  DevicePreset p = *FindPreset("hdd-7200");
  p.name = "known-disk";
  p.capacity_bytes = 2'000'000'000'000ull;
  p.avg_seek_read_ms = 6.1;
  p.avg_seek_write_ms = 6.9;
  p.track_to_track_read_ms = 0.3;
  p.track_to_track_write_ms = 0.45;
  p.max_transfer_mbps = 230;
  p.min_transfer_mbps = 110;
  p.seq_read_mbps = p.max_transfer_mbps;
  p.seq_write_mbps = p.max_transfer_mbps;
  p.overhead_read_hit = 120 * kMicro;
  p.overhead_read_miss = 350 * kMicro;
  p.overhead_write = 150 * kMicro;
  return p;
}

struct DiskCalibration {
  CalibrationPlan plan;
  CalibrationFit fit;
};

DiskCalibration CalibrateDisk(const DevicePreset& truth) {
  SimEngine e;
  ModelOptions mo;
  mo.capacity = truth.capacity_bytes;
  auto dev = MakeModelDevice(e, truth, "disk", mo);
  DiskCalibration c{HddPlan(false, dev->Size()), {}};
  // Simulated seconds are cheap: runs long enough that a QD1 mean, which
  // carries a rotational wait of sd 2.4 ms per I/O at 7,200 rpm, is known to
  // about 50 us (3,000 I/Os).
  c.plan.ramp = 100 * kMilli;
  c.plan.runtime = 20 * kSecond;
  auto probe = RunProbe(e, *dev, c.plan);
  EXPECT_TRUE(probe.ok()) << (probe.ok() ? "" : probe.error().message);
  if (!probe.ok()) return c;
  DevicePreset base = *FindPreset("hdd-7200");
  base.name = "fitted";
  base.capacity_bytes = truth.capacity_bytes;
  auto fit = FitHddModel(*probe, c.plan, base);
  EXPECT_TRUE(fit.ok()) << (fit.ok() ? "" : fit.error().message);
  if (fit.ok()) c.fit = *fit;
  return c;
}

// The disk's mechanics come back: speed, seeks, zones and queue depth
// within 5% (the test issue 19 asks of calibration). The command overhead
// and the track-to-track seek show only as their sum at QD1, which the QD1
// means' noise (about 50 us here) leaves within 10%; the deep-queue points
// split it, more loosely.
TEST(DeviceCalibrationTest, RecoversAKnownDiskModel) {
  const DevicePreset truth = KnownDisk();
  const DiskCalibration c = CalibrateDisk(truth);
  const DevicePreset& p = c.fit.preset;
  EXPECT_EQ(p.rpm, 7200);
  ExpectWithin(p.avg_seek_read_ms, truth.avg_seek_read_ms, 0.05, "read seek");
  ExpectWithin(p.avg_seek_write_ms, truth.avg_seek_write_ms, 0.05, "write seek");
  ExpectWithin(p.max_transfer_mbps, truth.max_transfer_mbps, 0.05, "outer zone");
  ExpectWithin(p.min_transfer_mbps, truth.min_transfer_mbps, 0.05, "inner zone");
  EXPECT_EQ(p.ncq_depth, truth.ncq_depth);
  for (int d = 0; d < 2; ++d) {
    const double got = static_cast<double>(d == 0 ? p.overhead_read_miss : p.overhead_write) / 1e6 +
                       (d == 0 ? p.track_to_track_read_ms : p.track_to_track_write_ms);
    const double want =
        static_cast<double>(d == 0 ? truth.overhead_read_miss : truth.overhead_write) / 1e6 +
        (d == 0 ? truth.track_to_track_read_ms : truth.track_to_track_write_ms);
    ExpectWithin(got, want, 0.10, d == 0 ? "read overhead + t2t" : "write overhead + t2t");
  }
  EXPECT_NEAR(static_cast<double>(p.overhead_read_miss), 350e3, 100e3);
  EXPECT_NEAR(p.track_to_track_read_ms, 0.3, 0.1);
  EXPECT_NEAR(static_cast<double>(p.overhead_read_hit), 120e3, 6e3);
  EXPECT_EQ(p.type, DeviceType::kHdd);
  EXPECT_EQ(p.name, "fitted");
  // The fitted model predicts every probed point.
  ASSERT_EQ(c.fit.points.size(), c.plan.points.size());
  for (const FitPoint& f : c.fit.points) {
    EXPECT_LT(std::abs(f.iops_error), 0.05) << f.point.Name();
    EXPECT_LT(std::abs(f.lat_mean_error), 0.05) << f.point.Name();
  }
}

TEST(DeviceCalibrationTest, FlashIsNotFittedAsADisk) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Known(), "flash");
  CalibrationPlan plan = HddPlan(true, 1ull << 30);
  plan.ramp = 20 * kMilli;
  plan.runtime = 100 * kMilli;
  auto probe = RunProbe(e, *dev, plan);
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  DevicePreset base = *FindPreset("hdd-7200");
  auto fit = FitHddModel(*probe, plan, base);
  ASSERT_FALSE(fit.ok());
  EXPECT_EQ(fit.error().kind, ErrorKind::kInconsistent);
  EXPECT_NE(fit.error().message.find("does not look rotational"), std::string::npos)
      << fit.error().message;
  // And the flash fit refuses a disk preset as its base.
  EXPECT_FALSE(FitHddModel(*probe, plan, Known()).ok());
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

// The write cliff: a plan with few points, so what the probe writes before
// the cliff probe (about 0.9 GB) is well short of the cliff.
struct CliffRun {
  CalibrationFit fit;
  CliffProbe probe;
};

CliffRun CalibrateCliff(const DevicePreset& truth, const CliffPlan& cliff) {
  CalibrationPlan plan = ShortPlan();
  plan.points = QuickPlan().points;
  plan.runtime = 100 * kMilli;
  SimEngine e;
  auto dev = MakeModelDevice(e, truth, "d");
  CliffRun out;
  auto probe = RunProbe(e, *dev, plan);
  EXPECT_TRUE(probe.ok()) << (probe.ok() ? "" : probe.error().message);
  if (!probe.ok()) return out;
  auto c = RunCliffProbe(e, *dev, plan, cliff);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  if (!c.ok()) return out;
  out.probe = *c;
  out.fit = FitLike(truth, *probe, plan);
  auto fitted = FitWriteCliff(*c, out.fit);
  EXPECT_TRUE(fitted.ok()) << (fitted.ok() ? "" : fitted.error().message);
  return out;
}

DevicePreset KnownWithCliff() {
  DevicePreset p = Known();
  p.write_cliff_bytes = 2ull << 30;
  p.steady_write_iops_4k = 12'000;
  p.steady_seq_write_mbps = 210;
  p.cliff_recovery_mbps = 50;
  return p;
}

TEST(DeviceCalibrationTest, RecoversAKnownWriteCliffWithinFivePercent) {
  const DevicePreset truth = KnownWithCliff();
  const CliffRun run =
      CalibrateCliff(truth, {.bytes = 4ull << 30, .samples = 64, .idle = 10 * kSecond});
  const DevicePreset& p = run.fit.preset;
  ASSERT_TRUE(p.has_write_cliff());
  ExpectWithin(static_cast<double>(p.write_cliff_bytes),
               static_cast<double>(truth.write_cliff_bytes), 0.05, "cliff bytes");
  ExpectWithin(p.steady_write_iops_4k, truth.steady_write_iops_4k, 0.05, "steady write IOPS");
  ExpectWithin(p.steady_seq_write_mbps, truth.steady_seq_write_mbps, 0.05, "steady write MB/s");
  ExpectWithin(p.cliff_recovery_mbps, truth.cliff_recovery_mbps, 0.05, "recovery MB/s");
  // The rated figures came from the probe before the cliff.
  ExpectWithin(p.write_iops_4k, truth.write_iops_4k, 0.05, "write IOPS");
  ExpectWithin(p.seq_write_mbps, truth.seq_write_mbps, 0.05, "write MB/s");
  // The probe saw the fall: rated rate at its start, steady at its end.
  ASSERT_EQ(run.probe.samples.size(), 64u);
  ExpectWithin(run.probe.samples.front().iops, truth.write_iops_4k, 0.05, "first sample");
  ExpectWithin(run.probe.samples.back().iops, truth.steady_write_iops_4k, 0.05, "last sample");
}

TEST(DeviceCalibrationTest, AWriteCliffWithoutIdleTimeHasNoRecoveryFigure) {
  const CliffRun run = CalibrateCliff(KnownWithCliff(), {.bytes = 4ull << 30, .samples = 32});
  EXPECT_TRUE(run.fit.preset.has_write_cliff());
  EXPECT_TRUE(run.probe.after_idle.empty());
  EXPECT_EQ(run.fit.preset.cliff_recovery_mbps, 0);
}

TEST(DeviceCalibrationTest, ADeviceWithoutACliffIsNotGivenOne) {
  const CliffRun run = CalibrateCliff(Known(), {.bytes = 1ull << 30, .samples = 16});
  EXPECT_FALSE(run.fit.preset.has_write_cliff());
  EXPECT_EQ(run.fit.preset.steady_write_iops_4k, 0);
  bool said = false;
  for (const std::string& n : run.fit.notes) said |= n.find("no write cliff in 1024 MiB") == 0;
  EXPECT_TRUE(said);
}

TEST(DeviceCalibrationTest, ACliffProbeTooSmallToMeasureIsRefused) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Known(), "d");
  CalibrationPlan plan = ShortPlan();
  auto few = RunCliffProbe(e, *dev, plan, {.bytes = 1ull << 30, .samples = 4});
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error().kind, ErrorKind::kInput);
  auto small = RunCliffProbe(e, *dev, plan, {.bytes = 1u << 20, .samples = 64});
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.error().message.find("bytes a run"), std::string::npos) << small.error().message;
}

TEST(DeviceCalibrationTest, TheQuickPlanFitsInAMinute) {
  EXPECT_LE(PlannedTime(QuickPlan()), 60 * kSecond);
  EXPECT_GT(PlannedTime(FullPlan()), 2 * 60 * kSecond);
  EXPECT_LE(PlannedTime(FullPlan()), 5 * 60 * kSecond);
  // A disk's, with the one-second QD1 check that tells it from flash first.
  EXPECT_LE(PlannedTime(HddPlan(true, 1ull << 40)) + 1100 * kMilli, 60 * kSecond);
  EXPECT_LE(PlannedTime(HddPlan(false, 1ull << 40)), 5 * 60 * kSecond);
}

}  // namespace
}  // namespace tierlab
