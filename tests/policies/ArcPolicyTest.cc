#include <gtest/gtest.h>

#include "policies/ArcPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

TEST(ArcPolicyTest, HandCheckedAdaptation) {
  ArcPolicy p(3);
  CacheSimulator sim(&p, 3);
  const auto r = policytest::RunTrace(sim, {1, 2, 3, 1, 4});
  EXPECT_EQ(r.hits, 1u);  // the second 1: it moves to T2
  EXPECT_EQ(p.T1Size(), 2u);
  EXPECT_EQ(p.T2Size(), 1u);
  EXPECT_EQ(p.B1Size(), 1u);  // 2 was evicted from T1
  EXPECT_EQ(p.Target(), 0u);

  EXPECT_EQ(sim.Access(2), CacheSimulator::Outcome::kMiss);  // B1 hit: p grows by 1
  EXPECT_EQ(p.Target(), 1u);
  EXPECT_EQ(p.T2Size(), 2u);
  EXPECT_FALSE(sim.Resident(3));  // evicted from T1 to make room

  EXPECT_EQ(sim.Access(5), CacheSimulator::Outcome::kMiss);  // |T1| = p: T2's LRU (1) goes
  EXPECT_FALSE(sim.Resident(1));
  EXPECT_EQ(p.B2Size(), 1u);

  EXPECT_EQ(sim.Access(1), CacheSimulator::Outcome::kMiss);  // B2 hit: p shrinks by |B1|/|B2|
  EXPECT_EQ(p.Target(), 0u);
  EXPECT_EQ(p.T1Size(), 1u);
  EXPECT_EQ(p.T2Size(), 2u);
  EXPECT_EQ(p.B1Size(), 2u);
  EXPECT_EQ(p.B2Size(), 0u);
  EXPECT_EQ(sim.Violations(), 0u);
}

TEST(ArcPolicyTest, DirectoryBoundsHoldUnderChurn) {
  const std::size_t c = 50;
  ArcPolicy p(c);
  CacheSimulator sim(&p, c);
  for (LineKey k : policytest::SkewedTrace(50000, 400, 21)) {
    sim.Access(k);
    ASSERT_LE(p.T1Size() + p.B1Size(), c);
    ASSERT_LE(p.T1Size() + p.T2Size() + p.B1Size() + p.B2Size(), 2 * c);
    ASSERT_LE(p.Target(), c);
  }
  EXPECT_EQ(sim.Violations(), 0u);
}

}  // namespace
}  // namespace tierlab
