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
  f.Wait(1, [&] { ++woken; });
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
  f.Hold(0);
  EXPECT_TRUE(f.Stuck(0));  // the other job is in a later section
  f.Schedule(0);            // ... or due to start later in this one
  EXPECT_FALSE(f.Stuck(0));
  f.Start(0);
  EXPECT_FALSE(f.Stuck(0));  // it runs
  f.Release(0);
  EXPECT_FALSE(f.Stuck(0));
}

}  // namespace
}  // namespace tierlab
