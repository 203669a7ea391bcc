#include <gtest/gtest.h>

#include "bench/lab/FlowControl.h"

namespace tierlab {
namespace {

// Two jobs that always want to issue, taking turns at asking: each gets
// its weight's share, as fio's flow_threshold_exceeded hands it out.
TEST(FlowControlTest, GreedyJobsGetTheirWeightsShare) {
  FlowControl f;
  f.Join(7, 1);
  f.Join(7, 3);
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  for (int i = 0; i < 4000; ++i) {
    f.TryIssue(7, 1, a);
    f.TryIssue(7, 3, b);
  }
  EXPECT_NEAR(static_cast<double>(b) / static_cast<double>(a), 3.0, 0.01);
  // fio's check: a job's count over the flow's (which starts at 1) against
  // its weight over the total.
  std::uint64_t fresh = 0;
  FlowControl g;
  g.Join(0, 1);
  g.Join(0, 1);
  EXPECT_TRUE(g.TryIssue(0, 1, fresh));   // 0/1 <= 1/2
  EXPECT_TRUE(g.TryIssue(0, 1, fresh));   // 1/2 <= 1/2
  EXPECT_FALSE(g.TryIssue(0, 1, fresh));  // 2/3 > 1/2: held back
  EXPECT_EQ(fresh, 2u);
}

TEST(FlowControlTest, APartnerThatLeavesFreesTheOthersAndFlowsAreApart) {
  FlowControl f;
  f.Join(1, 1);
  f.Join(1, 1);
  f.Join(2, 5);
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  std::uint64_t c = 0;
  while (f.TryIssue(1, 1, a)) {
  }
  EXPECT_EQ(a, 2u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(f.TryIssue(2, 5, c));  // alone in flow 2
  int woken = 0;
  f.Wait(
      1, [&] { ++woken; }, /*held=*/true);
  const std::uint64_t dropped = f.Wait(
      1, [&] { woken += 100; }, /*held=*/true);
  f.Unwait(1, dropped);
  EXPECT_EQ(f.waiting(1), 1u);
  f.Leave(1, 1, b);  // b ends without issuing
  for (auto& w : f.TakeWaiting(1)) w();
  EXPECT_EQ(woken, 1);
  EXPECT_EQ(f.waiting(1), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(f.TryIssue(1, 1, a));
}

TEST(FlowControlTest, StuckWhenEveryRunningJobIsHeldAndNoneIsToStart) {
  FlowControl f;
  f.Join(0, 1);
  f.Join(0, 1);
  f.Schedule(0);
  f.Start(0);
  std::uint64_t v = f.Sleep(0);  // a sleeper (flow_sleep)
  EXPECT_TRUE(f.Stuck(0));       // the other job is in a later section
  f.Schedule(0);                 // ... or due to start later in this one
  EXPECT_FALSE(f.Stuck(0));
  f.Start(0);
  EXPECT_FALSE(f.Stuck(0));  // it runs
  f.Wake(0, v);
  // A sleeper whose flow has moved since it fell asleep may issue next time.
  v = f.Sleep(0);
  std::uint64_t count = 0;
  EXPECT_TRUE(f.TryIssue(0, 1, count));
  const std::uint64_t v2 = f.Sleep(0);
  EXPECT_FALSE(f.Stuck(0));  // 2 running, 1 asleep since the issue
  f.Wake(0, v);
  f.Wake(0, v2);
  // A parked job counts until its wake-up is taken: then it is on its way.
  f.Wait(
      0, [] {}, /*held=*/true);
  f.Wait(
      0, [] {}, /*held=*/true);
  EXPECT_TRUE(f.Stuck(0));
  EXPECT_EQ(f.TakeWaiting(0).size(), 2u);
  EXPECT_FALSE(f.Stuck(0));
  // One with an end time of its own never makes the flow stuck.
  f.Wait(
      0, [] {}, /*held=*/false);
  f.Wait(
      0, [] {}, /*held=*/true);
  EXPECT_FALSE(f.Stuck(0));
}

}  // namespace
}  // namespace tierlab
