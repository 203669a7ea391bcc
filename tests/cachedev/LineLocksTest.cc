// Line locks: shared readers, exclusive writers, FIFO waiters granted on
// release, multi-line ranges, and the table emptied when nothing is held.

#include <gtest/gtest.h>

#include <vector>

#include "cachedev/LineLocks.h"

namespace tierlab {
namespace {

std::vector<LockWaiter*>* g_granted = nullptr;

LockWaiter Waiter(std::uint64_t first, std::uint64_t last, bool exclusive) {
  LockWaiter w;
  w.first = first;
  w.last = last;
  w.exclusive = exclusive;
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
  LockWaiter a = Waiter(3, 3, false);
  LockWaiter b = Waiter(3, 4, false);
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
  LockWaiter r1 = Waiter(7, 7, false);
  LockWaiter w = Waiter(7, 7, true);
  LockWaiter r2 = Waiter(7, 7, false);
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
  LockWaiter a = Waiter(10, 10, true);
  LockWaiter b = Waiter(12, 12, true);
  LockWaiter range = Waiter(9, 13, true);
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
    held.push_back(Waiter(l * 977, l * 977, l % 2 == 0));
    ASSERT_TRUE(locks_.Acquire(&held.back()));
  }
  EXPECT_EQ(locks_.entries(), 1000u);
  for (LockWaiter& w : held) locks_.Release(&w);
  EXPECT_EQ(locks_.entries(), 0u);
  EXPECT_TRUE(granted_.empty());
}

}  // namespace
}  // namespace tierlab
