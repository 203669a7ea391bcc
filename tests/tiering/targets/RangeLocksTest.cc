// Range locks: overlapping ranges of a unit wait for each other in arrival
// order; ranges that do not overlap, or are in other units, do not wait.

#include <gtest/gtest.h>

#include <vector>

#include "tiering/targets/RangeLocks.h"

namespace tierlab {
namespace {

TEST(RangeLocksTest, OverlappingRangesWaitInArrivalOrder) {
  RangeLocks locks;
  std::vector<int> order;
  EXPECT_TRUE(locks.Acquire(7, 0, 4096, [] {}));
  EXPECT_TRUE(locks.Acquire(7, 4096, 8192, [] {}));  // adjacent: no overlap
  EXPECT_TRUE(locks.Acquire(8, 0, 4096, [] {}));     // another unit
  EXPECT_FALSE(locks.Acquire(7, 2048, 10240, [&] { order.push_back(1); }));
  // Overlaps nothing held, only the waiter: waits behind it, in order.
  EXPECT_FALSE(locks.Acquire(7, 8192, 12288, [&] { order.push_back(2); }));
  // Overlaps nothing held or waiting: granted at once.
  EXPECT_TRUE(locks.Acquire(7, 16384, 20480, [] {}));
  locks.Release(7, 0, 4096);
  EXPECT_TRUE(order.empty());  // 1 still overlaps [4096, 8192)
  locks.Release(7, 4096, 8192);
  EXPECT_EQ(order, std::vector<int>{1});  // 2 overlaps 1, now held
  locks.Release(7, 2048, 10240);
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  locks.Release(7, 8192, 12288);
  locks.Release(7, 16384, 20480);
  locks.Release(8, 0, 4096);
  EXPECT_EQ(locks.units(), 0u);  // nothing held: no memory kept
}

}  // namespace
}  // namespace tierlab
