// fio's latency_target search, step by step on made-up windows: each
// expectation is what fio's lat_target_* functions do in the same case.

#include <gtest/gtest.h>

#include <vector>

#include "bench/lab/LatencyTarget.h"

namespace tierlab {
namespace {

using Step = LatencyTarget::Step;

LatencyTarget::Spec SpecOf(std::uint32_t iodepth, double percentile = 100, bool run = false) {
  return {.target = kMilli,
          .window = kSecond,
          .percentile = percentile,
          .run = run,
          .iodepth = iodepth};
}

// Runs whole windows of 100 I/Os each, `late[i]` of window i over the
// target, and records the depth after each verdict.
struct Search {
  LatencyTarget t;
  Nanos now = 0;
  std::uint64_t ios = 0;
  explicit Search(const LatencyTarget::Spec& s) : t(s) { t.Start(0, 0); }
  Step Window(int late) {
    for (int i = 0; i < 100; ++i) {
      ++ios;
      const Step s = t.OnLatency(i < late ? 2 * kMilli : kMicro);
      if (s != Step::kNone) return Drain(s);
    }
    now += kSecond;
    return Drain(t.Check(now, ios));
  }
  // The runner drains the queue, then the next window starts.
  Step Drain(Step s) {
    if (s == Step::kDrain || s == Step::kFinalRun) t.Drained(now, ios);
    return s;
  }
};

TEST(LatencyTargetTest, DoublesFromOneUntilTheJobsIodepthThenSettles) {
  Search s(SpecOf(8));
  EXPECT_EQ(s.t.depth(), 1u);
  EXPECT_EQ(s.Window(0), Step::kDeeper);
  EXPECT_EQ(s.t.depth(), 2u);
  EXPECT_EQ(s.Window(0), Step::kDeeper);
  EXPECT_EQ(s.Window(0), Step::kDeeper);
  EXPECT_EQ(s.t.depth(), 8u);
  // No deeper to go: one more window at 8 with fresh figures, then done.
  EXPECT_EQ(s.Window(0), Step::kFinalRun);
  EXPECT_TRUE(s.t.in_final_run());
  EXPECT_EQ(s.Window(0), Step::kDone);
  EXPECT_EQ(s.t.depth(), 8u);
}

TEST(LatencyTargetTest, AFailureBisectsBetweenTheLastGoodAndTheFailedDepth) {
  LatencyTarget::Spec spec = SpecOf(64, 99);
  Search s(spec);
  for (int i = 0; i < 4; ++i) s.Window(0);
  ASSERT_EQ(s.t.depth(), 16u);
  EXPECT_EQ(s.Window(2), Step::kDrain);   // 98 % within the target, 99 % asked
  EXPECT_EQ(s.t.depth(), 12u);            // halfway down to 8, the last that met it
  EXPECT_EQ(s.Window(1), Step::kDeeper);  // 99 % is enough
  EXPECT_EQ(s.t.depth(), 14u);            // halfway up to 16, the one that failed
  EXPECT_EQ(s.Window(0), Step::kDeeper);
  EXPECT_EQ(s.t.depth(), 15u);
  EXPECT_EQ(s.Window(0), Step::kFinalRun);  // (15 + 16) / 2 is 15 again
  EXPECT_EQ(s.Window(0), Step::kDone);
  EXPECT_EQ(s.t.depth(), 15u);
}

TEST(LatencyTargetTest, ThreeSuccessesJustBelowTheFailedDepthRaiseIt) {
  Search s(SpecOf(64, 99, /*run=*/true));
  for (int i = 0; i < 4; ++i) s.Window(0);
  s.Window(50);                         // 16 fails
  s.Window(0);                          // 12 -> 14
  s.Window(0);                          // 14 -> 15
  EXPECT_EQ(s.Window(0), Step::kNone);  // latency_run: no final run
  EXPECT_EQ(s.Window(0), Step::kNone);
  EXPECT_EQ(s.t.depth(), 15u);
  EXPECT_EQ(s.Window(0), Step::kDeeper);  // the third: 16 may be tried again
  EXPECT_EQ(s.t.depth(), 16u);
  EXPECT_FALSE(s.t.in_final_run());
}

TEST(LatencyTargetTest, AtPercentile100OneLateIoStepsDownAtOnceAndEndsTheJobAtDepthOne) {
  Search s(SpecOf(32));
  s.Window(0);
  s.Window(0);
  ASSERT_EQ(s.t.depth(), 4u);
  // Each late I/O steps down, the ones completing while the queue drains too.
  EXPECT_EQ(s.t.OnLatency(2 * kMilli), Step::kDrain);
  EXPECT_EQ(s.t.depth(), 3u);  // halfway to 2, the last depth that met it
  EXPECT_EQ(s.t.OnLatency(2 * kMilli), Step::kDrain);
  EXPECT_EQ(s.t.depth(), 2u);
  EXPECT_EQ(s.t.OnLatency(2 * kMilli), Step::kDrain);
  EXPECT_EQ(s.t.depth(), 1u);                     // 2 met it, so one below
  EXPECT_EQ(s.t.OnLatency(kMilli), Step::kNone);  // at the target is within it
  EXPECT_EQ(s.t.OnLatency(2 * kMilli), Step::kTimedOut);
}

TEST(LatencyTargetTest, AWindowIsJudgedOnlyOnceItHasRunItsLength) {
  LatencyTarget t(SpecOf(16, 50));
  t.Start(5 * kSecond, 1000);
  EXPECT_EQ(t.Check(5 * kSecond + kSecond - 1, 1500), Step::kNone);
  EXPECT_EQ(t.Check(6 * kSecond, 1500), Step::kDeeper);
  // A window with no completions fails; at depth 1 it would change nothing.
  EXPECT_EQ(t.Check(7 * kSecond, 1500), Step::kDrain);
  EXPECT_EQ(t.depth(), 1u);
  t.Drained(7 * kSecond, 1500);
  EXPECT_EQ(t.Check(7 * kSecond + kSecond / 2, 1500), Step::kNone);  // a new window
  EXPECT_EQ(t.Check(8 * kSecond, 1500), Step::kNone);
  EXPECT_EQ(t.depth(), 1u);
  // The window did not start over: it succeeds now, just below the depth
  // that failed, so the search settles at 1.
  EXPECT_EQ(t.Check(8 * kSecond + 1, 1600), Step::kFinalRun);
}

TEST(LatencyTargetTest, StartingAgainAtTheRampsEndKeepsASettledDepth) {
  Search s(SpecOf(2));
  s.Window(0);
  EXPECT_EQ(s.Window(0), Step::kFinalRun);
  s.t.Start(s.now, s.ios);  // fio's reset at the ramp's end leaves the final run alone
  EXPECT_EQ(s.t.depth(), 2u);
  Search fresh(SpecOf(2));
  fresh.Window(0);
  fresh.t.Start(fresh.now, fresh.ios);
  EXPECT_EQ(fresh.t.depth(), 1u);  // before it, the search starts over
}

}  // namespace
}  // namespace tierlab
