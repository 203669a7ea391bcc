// A node's CPU: a first-come first-served queue over its cores, each
// request costing per_io plus per_kib per KiB started.

#include <gtest/gtest.h>

#include <algorithm>

#include "tiering/core/IoRequest.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {
namespace {

TEST(NodeCpuTest, RequestsTakeTheCoreFreeFirstAndWaitWhenAllAreBusy) {
  NodeCpu cpu("n0.cpu", NodeCpuSpec{2, 10 * kMicro, 0});
  EXPECT_EQ(cpu.Run(0, 4096), 10 * kMicro);
  EXPECT_EQ(cpu.Run(0, 4096), 10 * kMicro);
  EXPECT_EQ(cpu.Run(0, 4096), 20 * kMicro);  // both cores busy until 10 us
  EXPECT_EQ(cpu.Run(15 * kMicro, 4096), 25 * kMicro);
  EXPECT_EQ(cpu.Run(40 * kMicro, 4096), 50 * kMicro);  // idle cores: no wait
  EXPECT_EQ(cpu.busy(), 50 * kMicro);                  // five requests of 10 us
  EXPECT_EQ(cpu.requests(), 5u);
  EXPECT_DOUBLE_EQ(cpu.Utilisation(cpu.busy(), 50 * kMicro), 0.5);
}

TEST(NodeCpuTest, PerKibCountsEveryKibStarted) {
  NodeCpu cpu("n0.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro});
  EXPECT_EQ(cpu.Run(0, 0), 2 * kMicro);
  EXPECT_EQ(cpu.Run(100 * kMicro, 512), 100 * kMicro + 3 * kMicro);
  EXPECT_EQ(cpu.Run(200 * kMicro, 65536), 200 * kMicro + 2 * kMicro + 64 * kMicro);
  EXPECT_EQ(cpu.Run(300 * kMicro, 65537), 300 * kMicro + 2 * kMicro + 65 * kMicro);
}

TEST(NodeCpuTest, AWriteCostsItsOwnFiguresWhereTheyAreSet) {
  NodeCpu same("n0.cpu", NodeCpuSpec{1, 2 * kMicro, 0});
  EXPECT_EQ(same.Run(0, 4096, /*write=*/true), 2 * kMicro);
  NodeCpu split("n1.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro, 5 * kMicro});
  EXPECT_EQ(split.Run(0, 4096, /*write=*/true), 5 * kMicro + 4 * kMicro);
  EXPECT_EQ(split.Run(0, 4096), 9 * kMicro + 2 * kMicro + 4 * kMicro);  // waits for the write
  EXPECT_EQ(split.busy(), 9 * kMicro + 6 * kMicro);
  NodeCpu per_kib("n2.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro, 0, 3 * kMicro});
  EXPECT_EQ(per_kib.Run(0, 8192, /*write=*/true), 2 * kMicro + 24 * kMicro);
  EXPECT_EQ(per_kib.Run(100 * kMicro, 8192), 100 * kMicro + 2 * kMicro + 8 * kMicro);
}

TEST(NodeCpuTest, NoCoresOrNoCostTakesNoTime) {
  NodeCpu off("n0.cpu", NodeCpuSpec{0, 10 * kMicro, 0});
  EXPECT_EQ(off.Run(7 * kMicro, 4096), 7 * kMicro);
  NodeCpu free("n1.cpu", NodeCpuSpec{4, 0, 0});
  EXPECT_EQ(free.Run(7 * kMicro, 4096), 7 * kMicro);
  EXPECT_EQ(free.busy(), 0);
  EXPECT_EQ(off.requests(), 1u);
}

// One class of stall, 10 us at 10,000 a second: each comes after an
// exponential gap of mean 100 us that follows the last one's end, so the
// core is away 10 / (10 + 100) of the time, and 100,000 requests of 1 us
// queued at once take 0.1 s / (1 - 1/11) = 0.11 s. The work's own time is
// still what busy() counts.
// When the last of `n` requests, all queued at 0, is done.
Nanos AllQueuedAtOnce(NodeCpu& cpu, int n) {
  Nanos end = 0;
  for (int i = 0; i < n; ++i) end = cpu.Run(0, 4096);
  return end;
}

TEST(NodeCpuTest, StallsTakeTheirShareOfTheCore) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  NodeCpu cpu("host.cpu", spec);
  const Nanos end = AllQueuedAtOnce(cpu, 100'000);
  EXPECT_NEAR(static_cast<double>(end) / 1e9, 0.11, 0.11 * 0.03);
  EXPECT_EQ(cpu.busy(), 100'000 * kMicro);
  EXPECT_EQ(cpu.stalled(), end - cpu.busy());
}

// Requests 1 ms apart, each 1 us of work: one waits when a stall is under
// way as it arrives or starts while it runs, about 10,000 x 11 us = 11% of
// them, by the rest of the stall it arrives in or the whole of one that
// interrupts it (or of two, when the next comes soon after).
TEST(NodeCpuTest, ARequestThatArrivesDuringAStallWaitsForItsEnd) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  NodeCpu cpu("host.cpu", spec);
  int delayed = 0;
  Nanos longest = 0;
  constexpr int kRequests = 20'000;
  for (int i = 0; i < kRequests; ++i) {
    const Nanos at = static_cast<Nanos>(i) * kMilli;
    const Nanos took = cpu.Run(at, 4096) - at;
    if (took > 1 * kMicro) ++delayed;
    longest = std::max(longest, took);
  }
  EXPECT_NEAR(static_cast<double>(delayed) / kRequests, 0.11, 0.02);
  EXPECT_GT(longest, 10 * kMicro);
  // Seeded by the name and the core: the same CPU stalls at the same times.
  NodeCpu again("host.cpu", spec);
  NodeCpu other("other.cpu", spec);
  bool same = true, differs = false;
  NodeCpu first("host.cpu", spec);
  for (int i = 0; i < 1000; ++i) {
    const Nanos at = static_cast<Nanos>(i) * 50 * kMicro;
    const Nanos a = first.Run(at, 4096), b = again.Run(at, 4096), c = other.Run(at, 4096);
    same = same && a == b;
    differs = differs || a != c;
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differs);
}

// Classes mix by their rates: 5 us at 20,000 a second and 50 us at 1,000
// take 5 x 20 + 50 x 1 = 150 us of each ms between them (renewal: 150 /
// 1,150 of the time), so 100,000 requests of 1 us take 0.1 s x 1.15.
TEST(NodeCpuTest, StallClassesMixByTheirRates) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{5 * kMicro, 20'000}, {50 * kMicro, 1'000}};
  NodeCpu cpu("host.cpu", spec);
  EXPECT_NEAR(static_cast<double>(AllQueuedAtOnce(cpu, 100'000)) / 1e9, 0.115, 0.115 * 0.03);
}

// A completion that comes back during a stall waits for its end; one
// between stalls goes at once. Swept every 100 ns over 20 ms: about 10 us
// x 10,000 / 1.1 = 9.1% of the instants are held, never by more than a
// stall, and a request that arrives at a held instant (same CPU, same
// seed) starts when the completion is let through.
TEST(NodeCpuTest, ACompletionDuringAStallWaitsForItsEnd) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  NodeCpu cpu("host.cpu", spec);
  NodeCpu twin("host.cpu", spec);
  int held = 0;
  constexpr int kInstants = 200'000;
  Nanos first_held = -1;
  Nanos first_back = 0;
  for (int i = 0; i < kInstants; ++i) {
    const Nanos t = static_cast<Nanos>(i) * 100;
    const Nanos back = cpu.Resume(t);
    ASSERT_GE(back, t);
    ASSERT_LE(back - t, 10 * kMicro);
    if (back > t) {
      ++held;
      if (first_held < 0) {
        first_held = t;
        first_back = back;
      }
    }
  }
  EXPECT_NEAR(static_cast<double>(held) / kInstants, 0.091, 0.02);
  ASSERT_GE(first_held, 0);
  EXPECT_EQ(twin.Run(first_held, 0), first_back + 1 * kMicro);
  NodeCpu quiet("quiet.cpu", NodeCpuSpec{1, 1 * kMicro, 0});
  EXPECT_EQ(quiet.Resume(5 * kMicro), 5 * kMicro);
}

// Work queued ahead of now runs the stall clock ahead of the engine: the
// stalls it passed on the way still hold the completions that come back
// during them, as a CPU that queued nothing sees them.
TEST(NodeCpuTest, StallsPassedByQueuedWorkStillHoldCompletions) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  NodeCpu busy("host.cpu", spec);
  NodeCpu idle("host.cpu", spec);
  const Nanos end = AllQueuedAtOnce(busy, 5'000);  // about 5.5 ms of work
  int held = 0;
  for (Nanos t = 0; t < end; t += 100) {
    const Nanos b = busy.Resume(t);
    ASSERT_EQ(b, idle.Resume(t)) << t;
    held += b > t ? 1 : 0;
  }
  EXPECT_GT(held, 0);
}

// With two cores a completion needs one of them: it is held only while
// both are stalled (about 9.1% squared of the time) and goes when the
// first is back.
TEST(NodeCpuTest, ACompletionWaitsOnlyWhenEveryCoreIsStalled) {
  NodeCpuSpec spec{2, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  NodeCpu cpu("host.cpu", spec);
  int held = 0;
  constexpr int kInstants = 1'000'000;
  for (int i = 0; i < kInstants; ++i) {
    const Nanos t = static_cast<Nanos>(i) * 100;
    const Nanos back = cpu.Resume(t);
    ASSERT_LE(back - t, 10 * kMicro);
    held += back > t ? 1 : 0;
  }
  EXPECT_NEAR(static_cast<double>(held) / kInstants, 0.091 * 0.091, 0.004);
}

// Speed levels 1 and 3 over windows of 100 us, their mean 2 scaled to 1:
// a core runs at half or one and a half times the costs' speed, a window
// at a time. Requests queued at once over many windows take the costs'
// time (the mean is 1, which a host reference measures); one that fits in
// a window takes its work at that window's speed.
TEST(NodeCpuTest, SpeedLevelsKeepTheMeanAndSpreadTheRequests) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.speed = {100 * kMicro, {1, 3}};
  NodeCpu queued("host.cpu", spec);
  const Nanos end = AllQueuedAtOnce(queued, 100'000);  // 0.1 s of work over 1,000 windows
  EXPECT_NEAR(static_cast<double>(end) / 1e8, 1.0, 0.05);
  EXPECT_EQ(queued.busy(), end);  // no stalls: the core never waited
  EXPECT_EQ(queued.stalled(), 0);

  NodeCpu spaced("host.cpu", spec);
  int slow = 0, fast = 0;
  for (int i = 0; i < 1000; ++i) {
    const Nanos at = static_cast<Nanos>(i) * 100 * kMicro + 10 * kMicro;
    const Nanos took = spaced.Run(at, 4096) - at;
    if (took == 2 * kMicro) ++slow;            // at half speed
    if (took == (kMicro * 2 + 2) / 3) ++fast;  // at 1.5, rounded up
  }
  EXPECT_EQ(slow + fast, 1000);
  EXPECT_NEAR(slow, 500, 60);  // the levels equally likely

  // Work across a window's end runs at each window's speed in turn: 150 us
  // of work from 50 us into a window takes 100 us fast then fast (75 of it
  // in the first window, 75 in 50 us of the next), 133 us slow then fast
  // (25, then 125 at 1.5), 200 us fast then slow, up to 300 us slow
  // throughout; never less than fast throughout nor more than slow.
  NodeCpuSpec long_spec{1, 150 * kMicro, 0};
  long_spec.speed = spec.speed;
  NodeCpu crossing("host.cpu", long_spec);
  for (int i = 0; i < 100; ++i) {
    const Nanos at = static_cast<Nanos>(i) * kMilli + 50 * kMicro;
    const Nanos took = crossing.Run(at, 4096) - at;
    EXPECT_GE(took, 100 * kMicro);
    EXPECT_LE(took, 300 * kMicro);
  }
}

TEST(NodeCpuTest, OneLevelOrABadOneIsOneSpeed) {
  for (const std::vector<double>& levels :
       {std::vector<double>{2}, std::vector<double>{1, 0}, std::vector<double>{}}) {
    NodeCpuSpec spec{1, 1 * kMicro, 0};
    spec.speed = {100 * kMicro, levels};
    NodeCpu cpu("host.cpu", spec);
    EXPECT_EQ(AllQueuedAtOnce(cpu, 1000), 1000 * kMicro);
  }
}

// With stalls too, a stall holds the work and the windows go on beneath
// it: the core's own time (busy) is its work at the windows' speeds, and
// busy and stalled add up to the whole run.
TEST(NodeCpuTest, StallsAndSpeedTogether) {
  NodeCpuSpec spec{1, 1 * kMicro, 0};
  spec.stalls = {{10 * kMicro, 10'000}};
  spec.speed = {100 * kMicro, {1, 3}};
  NodeCpu cpu("host.cpu", spec);
  const Nanos end = AllQueuedAtOnce(cpu, 100'000);
  EXPECT_NEAR(static_cast<double>(end) / 1e9, 0.11, 0.11 * 0.05);
  EXPECT_EQ(cpu.busy() + cpu.stalled(), end);
  EXPECT_NEAR(static_cast<double>(cpu.busy()) / 1e8, 1.0, 0.05);
}

}  // namespace
}  // namespace tierlab
