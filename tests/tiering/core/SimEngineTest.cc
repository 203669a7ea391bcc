#include <gtest/gtest.h>

#include <vector>

#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

TEST(SimEngineTest, RunsTasksInTimeOrderFifoAmongEqualTimes) {
  SimEngine e;
  std::vector<int> order;
  e.ScheduleAt(30, [&] { order.push_back(3); });
  e.ScheduleAt(10, [&] { order.push_back(1); });
  e.ScheduleAt(10, [&] { order.push_back(2); });
  e.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(e.Now(), 30);
}

TEST(SimEngineTest, CancelledTaskDoesNotRunAndIdIsNotReused) {
  SimEngine e;
  int ran = 0;
  TimerId a = e.ScheduleAt(5, [&] { ran += 1; });
  EXPECT_TRUE(e.Cancel(a));
  EXPECT_FALSE(e.Cancel(a));
  TimerId b = e.ScheduleAt(5, [&] { ran += 10; });
  EXPECT_NE(a, b);
  EXPECT_FALSE(e.Cancel(a));
  e.Run();
  EXPECT_EQ(ran, 10);
  EXPECT_FALSE(e.Cancel(b));
}

TEST(SimEngineTest, RunUntilStopsAtTimeAndResumes) {
  SimEngine e;
  int ran = 0;
  e.ScheduleAt(100, [&] { ++ran; });
  e.RunUntil(50);
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(e.Now(), 50);
  e.Run();
  EXPECT_EQ(ran, 1);
}

TEST(SimEngineTest, TasksScheduledInThePastRunNow) {
  SimEngine e;
  Nanos seen = -1;
  e.ScheduleAt(20, [&] { e.ScheduleAt(5, [&] { seen = e.Now(); }); });
  e.Run();
  EXPECT_EQ(seen, 20);
}

TEST(SimEngineTest, DeferredTasksRunWhenTheTaskReturnsBeforeAnyOtherTask) {
  SimEngine e;
  std::vector<int> order;
  e.ScheduleAt(10, [&] {
    order.push_back(1);
    e.Post([&] { order.push_back(5); });  // queued at 10, behind the task below
    e.Defer([&] {
      order.push_back(3);
      e.Defer([&] { order.push_back(4); });  // deferred by a deferred task: next
    });
    e.Defer([&] { order.push_back(30); });
    order.push_back(2);  // the task itself finishes first
  });
  e.ScheduleAt(10, [&] { order.push_back(40); });
  e.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 30, 4, 40, 5}));
  EXPECT_EQ(e.Now(), 10);
}

TEST(SimEngineTest, TaskDeferredOutsideTheEngineRunsWhenItNextRuns) {
  SimEngine e;
  std::vector<int> order;
  e.ScheduleAt(0, [&] { order.push_back(2); });
  e.Defer([&] { order.push_back(1); });
  EXPECT_TRUE(order.empty());
  e.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(SimEngineTest, NowIsTheDueTimeOfTheRunningTask) {
  SimEngine e;
  const Engine& base = e;  // read through the interface, as devices do
  std::vector<Nanos> seen;
  e.ScheduleAt(7, [&] { seen.push_back(base.Now()); });
  e.ScheduleAt(1000, [&] { seen.push_back(base.Now()); });
  EXPECT_EQ(base.Now(), 0);
  e.Run();
  EXPECT_EQ(seen, (std::vector<Nanos>{7, 1000}));
  e.RunUntil(5000);  // idle time passes too
  EXPECT_EQ(base.Now(), 5000);
}

}  // namespace
}  // namespace tierlab
