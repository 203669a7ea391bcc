// The flash model's write cliff: writes go at the rated figures while the
// burst lasts and at the steady ones after it, the burst comes back only
// while the device is idle, and reads never notice.

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/ClosedLoopDriver.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/devices/SsdModel.h"

namespace tierlab {
namespace {

using testing::ClosedLoopConfig;
using testing::RunClosedLoop;

constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t kCliff = 256 * kMiB;

// The PM1725a with a cliff at 256 MiB: 160k write IOPS and 3,000 MB/s
// before it, 40k and 1,000 MB/s after; 100 MB/s regained while idle.
DevicePreset Cliffed() {
  DevicePreset p = *FindPreset("nvme-pm1725");
  p.write_cliff_bytes = kCliff;
  p.steady_write_iops_4k = 40'000;
  p.steady_seq_write_mbps = 1'000;
  p.cliff_recovery_mbps = 100;
  return p;
}

// Completions a second between the a-th and the b-th completion.
double RateBetween(const std::vector<Nanos>& done, std::size_t a, std::size_t b) {
  return static_cast<double>(b - a) / (static_cast<double>(done[b] - done[a]) / 1e9);
}

TEST(SsdWriteCliffTest, RandomWritesFallFromTheRatedToTheSteadyIopsAtTheCliff) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Cliffed(), "d");
  ClosedLoopConfig c;
  c.queue_depth = 64;
  c.read_fraction = 0;
  c.region_bytes = 1024 * kMiB;
  const std::uint64_t at_cliff = kCliff / 4096;  // 65,536 writes
  c.total_ops = 2 * at_cliff;
  const auto r = RunClosedLoop(e, *dev, c);
  ASSERT_EQ(r.errors, 0u);
  const auto& done = r.completion_times;
  ASSERT_EQ(done.size(), c.total_ops);
  EXPECT_NEAR(RateBetween(done, at_cliff / 10, at_cliff * 9 / 10), 160'000, 160);
  EXPECT_NEAR(RateBetween(done, at_cliff * 11 / 10, at_cliff * 19 / 10), 40'000, 40);
  auto& ssd = static_cast<SsdModel&>(*dev);
  EXPECT_EQ(ssd.WriteBurstLeft(), 0u);
}

TEST(SsdWriteCliffTest, SequentialWritesPastTheCliffGetTheSteadyBandwidth) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Cliffed(), "d");
  ClosedLoopConfig c;
  c.queue_depth = 8;
  c.read_fraction = 0;
  c.sequential = true;
  c.block_size = kMiB;
  c.total_ops = 3 * kCliff / kMiB;  // 768 MiB: a third before the cliff
  const auto r = RunClosedLoop(e, *dev, c);
  const auto& done = r.completion_times;
  const std::size_t at = kCliff / kMiB;
  EXPECT_NEAR(RateBetween(done, at / 8, at * 7 / 8) * kMiB / 1e6, 3'000, 3);
  EXPECT_NEAR(RateBetween(done, at * 5 / 4, at * 11 / 4) * kMiB / 1e6, 1'000, 1);
}

TEST(SsdWriteCliffTest, ReadsKeepTheirRatePastTheCliff) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Cliffed(), "d");
  ClosedLoopConfig w;
  w.queue_depth = 64;
  w.read_fraction = 0;
  w.total_ops = kCliff / 4096 + 1000;
  RunClosedLoop(e, *dev, w);
  auto& ssd = static_cast<SsdModel&>(*dev);
  ASSERT_EQ(ssd.WriteBurstLeft(), 0u);
  ClosedLoopConfig rd;
  rd.queue_depth = 256;
  rd.total_ops = 100'000;
  rd.warmup_ops = 10'000;
  const auto r = RunClosedLoop(e, *dev, rd);
  EXPECT_NEAR(r.iops(), FindPreset("nvme-pm1725")->read_iops_4k, 800);
}

TEST(SsdWriteCliffTest, TheBurstComesBackOnlyWhileTheDeviceIsIdle) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Cliffed(), "d");
  auto& ssd = static_cast<SsdModel&>(*dev);
  EXPECT_EQ(ssd.WriteBurstLeft(), kCliff);  // a fresh device
  ClosedLoopConfig w;
  w.queue_depth = 64;
  w.read_fraction = 0;
  w.total_ops = kCliff / 4096 + 1000;
  RunClosedLoop(e, *dev, w);
  ASSERT_EQ(ssd.WriteBurstLeft(), 0u);

  // Reads at full depth keep the back end busy for most of a second:
  // nothing comes back but for the last read's latency, when the back end
  // has finished and the pipeline has not (100 MB/s x 90 us = 9 kB).
  ClosedLoopConfig rd;
  rd.queue_depth = 256;
  rd.total_ops = 800'000;
  RunClosedLoop(e, *dev, rd);
  const std::uint64_t after_reads = ssd.WriteBurstLeft();
  EXPECT_LE(after_reads, 100e6 * static_cast<double>(Cliffed().read_latency) / 1e9 + 1);

  // A second idle: 100 MB come back; a minute: all of it, and no more.
  e.RunUntil(e.Now() + kSecond);
  EXPECT_NEAR(static_cast<double>(ssd.WriteBurstLeft() - after_reads), 100e6, 1);
  e.RunUntil(e.Now() + 60 * kSecond);
  EXPECT_EQ(ssd.WriteBurstLeft(), kCliff);
}

TEST(SsdWriteCliffTest, AWriteAcrossTheCliffPaysEachPartItsOwnRate) {
  DevicePreset p = Cliffed();
  p.write_cliff_bytes = kMiB / 2;
  p.cliff_recovery_mbps = 0;
  SimEngine e;
  auto dev = MakeModelDevice(e, p, "d");
  auto& ssd = static_cast<SsdModel&>(*dev);
  IoRequest req;
  req.op = IoOp::kWrite;
  req.length = kMiB;
  // Half a MiB at 3,000 MB/s, half at 1,000: 175 + 524 us of back end,
  // which is more than the latency pipeline's 20 us + 1 MiB at 3,000 MB/s.
  const Nanos want = (kMiB / 2) * 1'000'000 / 3'000'000 + (kMiB / 2) * 1'000'000 / 1'000'000;
  EXPECT_NEAR(static_cast<double>(ssd.PredictCompletion(req)), static_cast<double>(want), 2);
  bool done = false;
  dev->Submit(req, [&](Status s) {
    EXPECT_EQ(s, Status::kOk);
    done = true;
  });
  e.Run();
  EXPECT_TRUE(done);
  EXPECT_NEAR(static_cast<double>(e.Now()), static_cast<double>(want), 2);
  EXPECT_EQ(ssd.WriteBurstLeft(), 0u);
}

// Functional warming and preparation (BlockDevice::Warm) write without
// time: they use the burst up as writes would, and give none back.
TEST(SsdWriteCliffTest, WarmedWritesUseTheBurstUpAndReadsDoNot) {
  SimEngine e;
  auto dev = MakeModelDevice(e, Cliffed(), "d");
  auto& ssd = static_cast<SsdModel&>(*dev);
  IoRequest w;
  w.op = IoOp::kWrite;
  w.length = kMiB;
  IoRequest r = w;
  r.op = IoOp::kRead;
  for (std::uint64_t i = 0; i < 100; ++i) {
    w.offset = r.offset = i * kMiB;
    EXPECT_EQ(dev->Warm(w), 0u);
    dev->Warm(r);
  }
  EXPECT_EQ(ssd.WriteBurstLeft(), kCliff - 100 * kMiB);
  for (std::uint64_t i = 0; i < 200; ++i) dev->Warm(w);
  EXPECT_EQ(ssd.WriteBurstLeft(), 0u);
  // Prepared past its cliff, the device writes at the steady rate at once.
  ClosedLoopConfig c;
  c.queue_depth = 64;
  c.read_fraction = 0;
  c.total_ops = 20'000;
  c.warmup_ops = 1'000;
  EXPECT_NEAR(RunClosedLoop(e, *dev, c).iops(), 40'000, 40);
}

TEST(SsdWriteCliffTest, WithoutACliffTheBurstIsZeroAndWritesKeepTheRatedIops) {
  SimEngine e;
  auto dev = MakeModelDevice(e, *FindPreset("nvme-pm1725"), "d");
  ClosedLoopConfig c;
  c.queue_depth = 64;
  c.read_fraction = 0;
  c.total_ops = 2 * kCliff / 4096;
  c.warmup_ops = 1000;
  const auto r = RunClosedLoop(e, *dev, c);
  EXPECT_NEAR(r.iops(), 160'000, 200);
  EXPECT_EQ(static_cast<SsdModel&>(*dev).WriteBurstLeft(), 0u);
}

}  // namespace
}  // namespace tierlab
