// HostCpuTarget: the host's CPU in front of a stack, requests waiting for a
// core and costing their per-request and per-KiB time before the child
// sees them; data and status pass through.

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "tests/support/SyncIo.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/HostCpuTarget.h"

namespace tierlab {
namespace {

using testing::SubmitAndRun;

struct Fixture {
  explicit Fixture(NodeCpuSpec spec)
      : target(engine, "vol", std::make_unique<RamDevice>(engine, "ram", 1 << 20, 512), spec) {}
  // Submits at the engine's time now; the completion time lands in `at`.
  void Submit(IoOp op, std::uint64_t offset, std::uint64_t length, Nanos& at) {
    IoRequest r;
    r.op = op;
    r.offset = offset;
    r.length = length;
    r.data = op == IoOp::kFlush ? nullptr : buf.data();
    target.Submit(r, [this, &at](Status st) {
      EXPECT_EQ(st, Status::kOk);
      at = engine.Now();
    });
  }
  SimEngine engine;
  HostCpuTarget target;
  std::array<std::byte, 65536> buf{};
};

TEST(HostCpuTargetTest, RequestsQueueForTheCoreAndPayPerRequestPerKibAndPerWrite) {
  Fixture f(NodeCpuSpec{1, 2 * kMicro, 1 * kMicro, 5 * kMicro});
  std::array<Nanos, 4> at{};
  f.Submit(IoOp::kRead, 0, 4096, at[0]);
  f.Submit(IoOp::kWrite, 8192, 4096, at[1]);
  f.Submit(IoOp::kRead, 16384, 65536, at[2]);
  f.Submit(IoOp::kFlush, 0, 0, at[3]);
  f.engine.Run();
  EXPECT_EQ(at[0], 6 * kMicro);           // 2 + 4 x 1
  EXPECT_EQ(at[1], at[0] + 9 * kMicro);   // a write's 5 + 4
  EXPECT_EQ(at[2], at[1] + 66 * kMicro);  // 2 + 64 x 1
  EXPECT_EQ(at[3], at[2] + 2 * kMicro);   // a flush carries no bytes
  EXPECT_EQ(f.target.cpu().requests(), 4u);
  EXPECT_EQ(f.target.cpu().busy(), at[3]);  // never idle from 0 on
  EXPECT_EQ(f.target.Kind(), "cpu");
}

TEST(HostCpuTargetTest, SeveralCoresServeAtOnceAndAnIdleCpuAddsOnlyTheCost) {
  Fixture f(NodeCpuSpec{2, 3 * kMicro, 0});
  std::array<Nanos, 3> at{};
  for (std::size_t i = 0; i < at.size(); ++i) f.Submit(IoOp::kRead, i * 4096, 4096, at[i]);
  f.engine.Run();
  EXPECT_EQ(at, (std::array<Nanos, 3>{3 * kMicro, 3 * kMicro, 6 * kMicro}));
  Nanos later = -1;
  f.engine.ScheduleAt(100 * kMicro, [&] { f.Submit(IoOp::kWrite, 0, 4096, later); });
  f.engine.Run();
  EXPECT_EQ(later, 103 * kMicro);
}

TEST(HostCpuTargetTest, DataPassesThrough) {
  Fixture f(NodeCpuSpec{1, 1 * kMicro, 0});
  std::vector<std::byte> w(4096, std::byte{0x5a});
  ASSERT_EQ(SubmitAndRun(f.engine, f.target, IoOp::kWrite, 4096, w.size(), w.data()), Status::kOk);
  std::vector<std::byte> r(4096);
  ASSERT_EQ(SubmitAndRun(f.engine, f.target, IoOp::kRead, 4096, r.size(), r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), w.size()), 0);
  EXPECT_EQ(f.target.Size(), 1u << 20);
}

// A completion that comes back during one of the CPU's stalls is held to
// its end (NodeCpu::Resume): requests 1 ms apart, each 2 us of CPU and 50
// us at a delay below, complete when a twin CPU (same name, same seed)
// says they would; about a tenth of them are held.
TEST(HostCpuTargetTest, ACompletionDuringAStallIsHeldToItsEnd) {
  NodeCpuSpec spec{1, 2 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  SimEngine engine;
  DelayConfig delay;
  delay.read = 50 * kMicro;
  HostCpuTarget target(
      engine, "vol",
      std::make_unique<DelayTarget>(
          engine, "delay", std::make_unique<RamDevice>(engine, "ram", 1 << 20, 512), delay),
      spec);
  NodeCpu twin("vol.cpu", spec);
  std::array<std::byte, 4096> buf{};
  constexpr int kRequests = 2'000;
  int held = 0;
  for (int i = 0; i < kRequests; ++i) {
    const Nanos at = static_cast<Nanos>(i) * kMilli;
    const Nanos reached = twin.Run(at, 0) + 50 * kMicro;
    const Nanos expected = twin.Resume(reached);
    held += expected > reached ? 1 : 0;
    ASSERT_EQ(testing::ReadCompletedAt(engine, target, at, buf.size(), buf.data()), expected) << i;
  }
  EXPECT_NEAR(static_cast<double>(held) / kRequests, 0.09, 0.03);
}

}  // namespace
}  // namespace tierlab
