// DevicePauseTarget: a device's pauses in simulation. A completion that
// lands in a pause comes back at its end, every other one at once; several
// requests in flight through one pause come back together; data and status
// pass through.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "tests/support/SyncIo.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/DevicePauseTarget.h"

namespace tierlab {
namespace {

using testing::SubmitAndRun;

// A device whose reads take 50 us.
std::unique_ptr<BlockDevice> SlowRam(SimEngine& engine) {
  DelayConfig delay;
  delay.read = 50 * kMicro;
  return std::make_unique<DelayTarget>(
      engine, "delay", std::make_unique<RamDevice>(engine, "ram", 1 << 20, 512), delay);
}

// Pauses of 1 ms, 100 a second: 10% of the time. A read every 2 ms: the
// ones whose 50 us end in a pause (about a tenth) come back at its end,
// exactly when a NodeCpu with the same stalls and name says.
TEST(DevicePauseTargetTest, ACompletionInAPauseComesBackAtItsEnd) {
  const std::vector<CpuStall> pauses = {{1 * kMilli, 100}};
  SimEngine engine;
  DevicePauseTarget target(engine, "dev", SlowRam(engine), pauses);
  NodeCpuSpec spec;
  spec.cores = 1;
  spec.stalls = pauses;
  NodeCpu twin("dev.pauses", spec);
  std::array<std::byte, 4096> buf{};
  constexpr int kRequests = 2'000;
  int held = 0;
  for (int i = 0; i < kRequests; ++i) {
    const Nanos at = static_cast<Nanos>(i) * 2 * kMilli;
    const Nanos served = at + 50 * kMicro;
    const Nanos expected = twin.Resume(served);
    held += expected > served ? 1 : 0;
    const Nanos done = testing::ReadCompletedAt(engine, target, at, buf.size(), buf.data());
    ASSERT_EQ(done, expected) << i;
    ASSERT_LE(done - served, 1 * kMilli) << i;  // never beyond the pause
  }
  EXPECT_EQ(target.held(), static_cast<std::uint64_t>(held));
  // A tenth of the time paused: about a tenth of the completions held, each
  // by half a pause on average.
  EXPECT_NEAR(static_cast<double>(held) / kRequests, 0.1, 0.03);
  EXPECT_NEAR(static_cast<double>(target.held_ns()) / held, 0.5 * kMilli, 0.1 * kMilli);
  EXPECT_EQ(target.Kind(), "pauses");
}

// Eight reads issued 100 us apart: those whose service ends in the same
// pause all come back at its end, together, as a real queue's do.
TEST(DevicePauseTargetTest, RequestsEndingInOnePauseComeBackTogether) {
  const std::vector<CpuStall> pauses = {{2 * kMilli, 50}};
  SimEngine engine;
  DevicePauseTarget target(engine, "dev", SlowRam(engine), pauses);
  std::array<std::byte, 4096> buf{};
  // Find a pause: probe with single reads until one is held.
  Nanos t = 0;
  int together = 0;
  for (int round = 0; round < 200 && together == 0; ++round, t += 20 * kMilli) {
    std::vector<Nanos> done(8, -1);
    for (int i = 0; i < 8; ++i) {
      engine.ScheduleAt(t + static_cast<Nanos>(i) * 100 * kMicro, [&, i] {
        IoRequest r;
        r.op = IoOp::kRead;
        r.length = buf.size();
        r.data = buf.data();
        target.Submit(r, [&, i](Status) { done[i] = engine.Now(); });
      });
    }
    engine.Run();
    // Late completions (beyond their 50 us) that share one instant.
    std::vector<Nanos> late;
    for (int i = 0; i < 8; ++i) {
      if (done[i] > t + static_cast<Nanos>(i) * 100 * kMicro + 50 * kMicro) {
        late.push_back(done[i]);
      }
    }
    if (late.size() >= 3 && std::equal(late.begin() + 1, late.end(), late.begin())) {
      together = static_cast<int>(late.size());
    }
  }
  EXPECT_GE(together, 3);
}

TEST(DevicePauseTargetTest, WithoutPausesNothingWaitsAndDataPassesThrough) {
  SimEngine engine;
  DevicePauseTarget target(engine, "dev", std::make_unique<RamDevice>(engine, "ram", 1 << 20, 512),
                           {});
  std::vector<std::byte> w(4096, std::byte{0x5a});
  ASSERT_EQ(SubmitAndRun(engine, target, IoOp::kWrite, 4096, w.size(), w.data()), Status::kOk);
  std::vector<std::byte> r(4096);
  ASSERT_EQ(SubmitAndRun(engine, target, IoOp::kRead, 4096, r.size(), r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), w.size()), 0);
  EXPECT_EQ(target.held(), 0u);
  EXPECT_EQ(target.Size(), 1u << 20);
}

}  // namespace
}  // namespace tierlab
