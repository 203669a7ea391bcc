#include <gtest/gtest.h>

#include "policies/S3FifoPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

TEST(S3FifoPolicyTest, HandCheckedSequence) {
  // Capacity 10: S target 1, ghost 9 keys.
  S3FifoPolicy p(10);
  CacheSimulator sim(&p, 10);
  std::vector<LineKey> trace;
  for (LineKey k = 1; k <= 10; ++k) trace.push_back(k);
  for (LineKey k : {1, 1, 2}) trace.push_back(k);  // 1 reaches count 2, 2 count 1
  // 11: S's oldest, 1, moves to M; 2 (count 1 < 2) is evicted to the ghost.
  // 2 again: ghost hit, straight into M (3 is evicted from S to make room).
  // 12: 4 is evicted from S. Then 1 and 2 hit in M.
  for (LineKey k : {11, 2, 12, 1, 2}) trace.push_back(k);
  const auto r = policytest::RunTrace(sim, trace);
  EXPECT_EQ(r.hits, 5u);
  EXPECT_EQ(r.misses, 13u);
  EXPECT_EQ(p.MainSize(), 2u);
  EXPECT_EQ(p.SmallSize(), 8u);
  EXPECT_EQ(p.GhostSize(), 2u);  // 3 and 4
  for (LineKey k : {3, 4}) EXPECT_FALSE(sim.Resident(k)) << k;
  EXPECT_EQ(sim.Violations(), 0u);
}

TEST(S3FifoPolicyTest, MainReinsertsLinesWithNonZeroCounter) {
  S3FifoPolicy p(4);
  // Slots 0..3 go to S; force them into M through the ghost path is long, so
  // drive the policy directly: fill, hit, evict.
  p.Insert(0, 100);
  p.Insert(1, 101);
  p.Insert(2, 102);
  p.Insert(3, 103);
  for (Slot s : {0, 1, 2}) {
    p.Touch(s);
    p.Touch(s);
  }
  // S target is 1: evicting walks S, moving 0,1,2 (count 2) to M, evicts 3.
  EXPECT_EQ(p.Evict(), std::optional<Slot>(3));
  EXPECT_EQ(p.MainSize(), 3u);
  EXPECT_EQ(p.SmallSize(), 0u);
  // M counters were cleared on the move: the oldest in M goes next.
  p.Touch(0);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));  // 0 reinserted with count 0
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
}

TEST(S3FifoPolicyTest, OneHitWondersNeverReachMain) {
  S3FifoPolicy p(100);
  CacheSimulator sim(&p, 100);
  for (LineKey k = 0; k < 10000; ++k) sim.Access(k);
  EXPECT_EQ(p.MainSize(), 0u);
  EXPECT_EQ(sim.Hits(), 0u);
}

}  // namespace
}  // namespace tierlab
