// Line locks: the four modes (reads and write hits beside each other and
// beside destage, destage after the writes in flight, exclusive against
// everything), FIFO waiters granted on release with reads passing waiting
// destages but never a waiting exclusive, the write generation, multi-line
// ranges, and the table emptied when nothing is held.

#include <gtest/gtest.h>

#include <vector>

#include "cachedev/LineLocks.h"

namespace tierlab {
namespace {

std::vector<LockWaiter*>* g_granted = nullptr;

constexpr LineLockMode kR = LineLockMode::kRead;
constexpr LineLockMode kW = LineLockMode::kWrite;
constexpr LineLockMode kD = LineLockMode::kDestage;
constexpr LineLockMode kX = LineLockMode::kExclusive;

LockWaiter Waiter(std::uint64_t first, std::uint64_t last, LineLockMode mode) {
  LockWaiter w;
  w.first = first;
  w.last = last;
  w.lock_mode = mode;
  w.granted = [](LockWaiter* x) { g_granted->push_back(x); };
  return w;
}

class LineLocksTest : public ::testing::Test {
 protected:
  void SetUp() override { g_granted = &granted_; }
  void TearDown() override { g_granted = nullptr; }
  LineLocks locks_;
  std::vector<LockWaiter*> granted_;
};

TEST_F(LineLocksTest, ReadersShareAndTheTableEmptiesOnRelease) {
  LockWaiter a = Waiter(3, 3, kR);
  LockWaiter b = Waiter(3, 4, kR);
  EXPECT_TRUE(locks_.Acquire(&a));
  EXPECT_TRUE(locks_.Acquire(&b));
  EXPECT_TRUE(locks_.Locked(3) && locks_.Locked(4));
  EXPECT_EQ(locks_.entries(), 2u);
  locks_.Release(&a);
  EXPECT_TRUE(locks_.Locked(3));
  locks_.Release(&b);
  EXPECT_FALSE(locks_.Locked(3) || locks_.Locked(4));
  EXPECT_EQ(locks_.entries(), 0u);
  EXPECT_TRUE(granted_.empty());
}

TEST_F(LineLocksTest, WriterWaitsForReadersAndLaterReadersQueueBehindIt) {
  LockWaiter r1 = Waiter(7, 7, kR);
  LockWaiter w = Waiter(7, 7, kX);
  LockWaiter r2 = Waiter(7, 7, kR);
  ASSERT_TRUE(locks_.Acquire(&r1));
  EXPECT_FALSE(locks_.Acquire(&w));
  EXPECT_FALSE(locks_.Acquire(&r2));  // no reader starvation of the writer
  locks_.Release(&r1);
  ASSERT_EQ(granted_, std::vector<LockWaiter*>{&w});
  locks_.Release(&w);
  ASSERT_EQ(granted_, (std::vector<LockWaiter*>{&w, &r2}));
  locks_.Release(&r2);
  EXPECT_EQ(locks_.entries(), 0u);
}

TEST_F(LineLocksTest, RangeIsGrantedOnlyWhenEveryLineIsFree) {
  LockWaiter a = Waiter(10, 10, kX);
  LockWaiter b = Waiter(12, 12, kX);
  LockWaiter range = Waiter(9, 13, kX);
  ASSERT_TRUE(locks_.Acquire(&a));
  ASSERT_TRUE(locks_.Acquire(&b));
  EXPECT_FALSE(locks_.Acquire(&range));
  locks_.Release(&a);
  EXPECT_TRUE(granted_.empty());  // still waits for line 12
  locks_.Release(&b);
  ASSERT_EQ(granted_, std::vector<LockWaiter*>{&range});
  for (std::uint64_t l = 9; l <= 13; ++l) EXPECT_TRUE(locks_.Locked(l)) << l;
  locks_.Release(&range);
  EXPECT_EQ(locks_.entries(), 0u);
}

TEST_F(LineLocksTest, ManyLinesGrowTheTableAndAllComeBack) {
  std::vector<LockWaiter> held;
  held.reserve(1000);
  for (std::uint64_t l = 0; l < 1000; ++l) {
    held.push_back(Waiter(l * 977, l * 977, l % 2 == 0 ? kX : kR));
    ASSERT_TRUE(locks_.Acquire(&held.back()));
  }
  EXPECT_EQ(locks_.entries(), 1000u);
  for (LockWaiter& w : held) locks_.Release(&w);
  EXPECT_EQ(locks_.entries(), 0u);
  EXPECT_TRUE(granted_.empty());
}

TEST_F(LineLocksTest, ReadsAndWriteHitsOfALineRunTogether) {
  LockWaiter w1 = Waiter(5, 5, kW);
  LockWaiter r1 = Waiter(5, 5, kR);
  LockWaiter w2 = Waiter(5, 5, kW);
  LockWaiter r2 = Waiter(5, 5, kR);
  ASSERT_TRUE(locks_.Acquire(&w1));
  EXPECT_TRUE(locks_.Acquire(&r1));  // a read never waits for a write hit
  EXPECT_TRUE(locks_.Acquire(&w2));  // nor a write hit for another
  EXPECT_TRUE(locks_.Acquire(&r2));
  EXPECT_EQ(locks_.Writers(5), 2u);
  locks_.Release(&w1);
  locks_.Release(&r1);
  locks_.Release(&w2);
  locks_.Release(&r2);
  EXPECT_TRUE(granted_.empty());
  EXPECT_EQ(locks_.entries(), 0u);
}

TEST_F(LineLocksTest, DestageWaitsForTheWriteInFlightButNotTheOtherWayRound) {
  LockWaiter w1 = Waiter(8, 8, kW);
  LockWaiter d = Waiter(8, 8, kD);
  LockWaiter r = Waiter(8, 8, kR);
  ASSERT_TRUE(locks_.Acquire(&w1));
  EXPECT_FALSE(locks_.Acquire(&d));
  EXPECT_TRUE(locks_.Acquire(&r));
  locks_.Release(&w1);
  ASSERT_EQ(granted_, std::vector<LockWaiter*>{&d});
  const std::uint64_t g = locks_.Generation(8);
  EXPECT_EQ(g % 2, 0u);  // no write in flight when destage starts
  LockWaiter w2 = Waiter(8, 8, kW);
  EXPECT_TRUE(locks_.Acquire(&w2));        // a write starts while destage runs
  EXPECT_EQ(locks_.Generation(8), g + 3);  // one more grant, and held
  locks_.Release(&w2);
  EXPECT_EQ(locks_.Generation(8), g + 2);  // changed: destage must not clean
  locks_.Release(&d);
  locks_.Release(&r);
  EXPECT_EQ(locks_.entries(), 0u);
  EXPECT_EQ(locks_.Generation(8), 0u);
}

TEST_F(LineLocksTest, ExclusiveWaitsForEveryModeAndNothingPassesIt) {
  LockWaiter r1 = Waiter(2, 2, kR);
  LockWaiter w1 = Waiter(2, 2, kW);
  LockWaiter d1 = Waiter(2, 2, kD);
  ASSERT_TRUE(locks_.Acquire(&r1));
  ASSERT_TRUE(locks_.Acquire(&w1));
  LockWaiter x = Waiter(2, 2, kX);
  LockWaiter r2 = Waiter(2, 2, kR);
  LockWaiter w2 = Waiter(2, 2, kW);
  EXPECT_FALSE(locks_.Acquire(&d1));  // behind w1
  EXPECT_FALSE(locks_.Acquire(&x));
  EXPECT_FALSE(locks_.Acquire(&r2));  // a read does not pass a waiting exclusive
  EXPECT_FALSE(locks_.Acquire(&w2));
  locks_.Release(&w1);
  ASSERT_EQ(granted_, std::vector<LockWaiter*>{&d1});
  locks_.Release(&r1);
  EXPECT_EQ(granted_.size(), 1u);  // x still waits for the destage
  locks_.Release(&d1);
  ASSERT_EQ(granted_, (std::vector<LockWaiter*>{&d1, &x}));
  EXPECT_EQ(locks_.Generation(2) % 2, 1u);
  locks_.Release(&x);
  // Both behind x, granted together: neither waits for the other.
  ASSERT_EQ(granted_, (std::vector<LockWaiter*>{&d1, &x, &r2, &w2}));
  locks_.Release(&r2);
  locks_.Release(&w2);
  EXPECT_EQ(locks_.entries(), 0u);
}

TEST_F(LineLocksTest, AWaitingDestageHoldsNewWritesBackButNotReads) {
  // A hot line is never free of writes for long: without this, destage of it
  // could wait forever.
  LockWaiter w1 = Waiter(4, 4, kW);
  LockWaiter d = Waiter(4, 4, kD);
  LockWaiter w2 = Waiter(4, 4, kW);
  LockWaiter r = Waiter(4, 4, kR);
  LockWaiter w3 = Waiter(4, 5, kW);
  ASSERT_TRUE(locks_.Acquire(&w1));
  EXPECT_FALSE(locks_.Acquire(&d));
  EXPECT_FALSE(locks_.Acquire(&w2));  // behind the waiting destage
  EXPECT_TRUE(locks_.Acquire(&r));    // reads pass it
  EXPECT_FALSE(locks_.Acquire(&w3));
  EXPECT_FALSE(locks_.Locked(5));  // w3 waits on line 4 before it takes line 5
  locks_.Release(&w1);
  // The destage, then the writes beside it (a write does not wait for destage).
  ASSERT_EQ(granted_, (std::vector<LockWaiter*>{&d, &w2, &w3}));
  EXPECT_EQ(locks_.Writers(4), 2u);
  EXPECT_TRUE(locks_.Locked(5));
  locks_.Release(&w3);
  locks_.Release(&w2);
  locks_.Release(&d);
  locks_.Release(&r);
  EXPECT_EQ(locks_.entries(), 0u);
}

}  // namespace
}  // namespace tierlab
