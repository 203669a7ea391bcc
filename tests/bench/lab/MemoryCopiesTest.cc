// A RAM device's own figures: the copies are timed and reach the memory
// (a mapped file's bytes change), a 1 MiB copy costs more than a 4 KiB
// one, and the fit sets the model to exactly the figures it is given.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/lab/MemoryCopies.h"
#include "tests/support/TempDir.h"

namespace tierlab {
namespace {

struct FreeAligned {
  void operator()(std::byte* p) const { std::free(p); }
};

TEST(MemoryCopiesTest, CopiesOfAMiBTakeLongerThanCopiesOfAPage) {
  constexpr std::uint64_t kBytes = 16ull << 20;
  std::unique_ptr<std::byte, FreeAligned> memory(
      static_cast<std::byte*>(std::aligned_alloc(4096, kBytes)));
  auto c = MeasureMemoryCopies(memory.get(), kBytes, 40 * kMilli);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_GT(c->read_4k_ns, 0);
  EXPECT_GT(c->write_4k_ns, 0);
  // A copy the compiler dropped, or a clock misread, would not keep this
  // order: 256 times the bytes cannot take less time.
  EXPECT_GT(1e9 * (1 << 20) / c->read_bw_bytes, c->read_4k_ns);
  EXPECT_GT(1e9 * (1 << 20) / c->write_bw_bytes, c->write_4k_ns);
  // Each kind runs at least its quarter of the window.
  EXPECT_GE(c->window, 40 * kMilli);
}

TEST(MemoryCopiesTest, ARangeOrWindowTooSmallIsRefused) {
  std::vector<std::byte> small(kMemoryCopyMinBytes - 4096);
  auto c = MeasureMemoryCopies(small.data(), small.size(), 40 * kMilli);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::kInput);
  EXPECT_NE(c.error().message.find("under the 2 MiB"), std::string::npos) << c.error().message;

  std::vector<std::byte> enough(kMemoryCopyMinBytes);
  auto w = MeasureMemoryCopies(enough.data(), enough.size(), kMilli / 2);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("window under a millisecond"), std::string::npos);
}

TEST(MemoryCopiesTest, AFilesCopiesGoThroughItsMapping) {
  testing::TempDir dir;
  const std::string path = dir.Path("ram.img");
  constexpr std::uint64_t kBytes = 4ull << 20;
  {
    std::ofstream f(path, std::ios::binary);
    const std::string zeros(kBytes, '\0');
    f.write(zeros.data(), static_cast<std::streamsize>(zeros.size()));
  }
  auto c = MeasureFileCopies(path, kBytes, 20 * kMilli);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_GT(c->read_bw_bytes, 0);
  // The writes landed in the file (a shared mapping): its first MiB is the
  // probe's pattern now, where it was zeros.
  std::ifstream f(path, std::ios::binary);
  std::string head(1 << 20, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  EXPECT_EQ(head.find_first_not_of('\x5a'), std::string::npos);

  auto longer = MeasureFileCopies(path, 2 * kBytes, 20 * kMilli);
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.error().kind, ErrorKind::kInput);
  EXPECT_EQ(longer.error().message.rfind(path + ": shorter than", 0), 0u) << longer.error().message;

  const std::string none = dir.Path("none.img");
  auto missing = MeasureFileCopies(none, kBytes, 20 * kMilli);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kIo);
  EXPECT_EQ(missing.error().message.rfind(none + ": ", 0), 0u);
}

ProbeResult Point(RwMode rw, std::uint64_t bs, std::uint32_t qd, double iops) {
  ProbeResult r;
  r.point.rw = rw;
  r.point.bs = bs;
  r.point.iodepth = qd;
  r.median.iops = iops;
  r.median.lat_mean_ns = qd * 1e9 / iops;
  r.runs = {r.median};
  r.settled = true;
  return r;
}

TEST(MemoryCopiesTest, TheFitIsTheMemorysFiguresAndThePointsShowTheEnginesShare) {
  CalibrationPlan plan = QuickPlan();
  plan.region = 64ull << 20;
  // What a mapped file's probe measures through the engine's thread: a
  // million 4k I/Os a second, whatever the queue depth.
  const std::vector<ProbeResult> probe = {
      Point(RwMode::kRandRead, 4096, 1, 1e6), Point(RwMode::kRandRead, 4096, 32, 1e6),
      Point(RwMode::kRandWrite, 4096, 1, 1e6), Point(RwMode::kRead, 1 << 20, 4, 9000)};
  CalibrationFit fit;
  fit.preset.type = DeviceType::kRam;
  fit.preset.capacity_bytes = plan.region;
  const MemoryCopies copies{500, 400, 10e9, 5e9, 0};
  auto s = FitMemoryCopies(copies, probe, plan, fit);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const DevicePreset& p = fit.preset;
  EXPECT_EQ(p.read_latency, 500);
  EXPECT_EQ(p.write_latency, 400);
  EXPECT_DOUBLE_EQ(p.read_iops_4k, 2e6);
  EXPECT_DOUBLE_EQ(p.write_iops_4k, 2.5e6);
  EXPECT_DOUBLE_EQ(p.seq_read_mbps, 10'000);
  EXPECT_DOUBLE_EQ(p.seq_write_mbps, 5'000);
  EXPECT_EQ(p.service_units, 1u);
  ASSERT_EQ(fit.points.size(), probe.size());
  // The model runs at the memory's rate: 2 M reads a second at QD32 (one
  // unit), twice the probe's million, so the point's error is +100%, the
  // engine's share.
  EXPECT_NEAR(fit.points[1].model.iops, 2e6, 2e6 * 0.01);
  EXPECT_NEAR(fit.points[1].iops_error, 1.0, 0.02);
  EXPECT_NEAR(fit.points[0].model.lat_mean_ns, 500, 5);
  EXPECT_NEAR(fit.points[3].model.bw_bytes, 10e9, 10e9 * 0.02);
  ASSERT_EQ(fit.notes.size(), 1u);
  EXPECT_NE(fit.notes[0].find("4k 500 ns out, 400 ns in"), std::string::npos) << fit.notes[0];

  CalibrationFit bad;
  bad.preset.type = DeviceType::kRam;
  auto z = FitMemoryCopies(MemoryCopies{0, 400, 10e9, 5e9, 0}, probe, plan, bad);
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().kind, ErrorKind::kInconsistent);
}

}  // namespace
}  // namespace tierlab
