#include <gtest/gtest.h>

#include "policies/TwoQPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

TEST(TwoQPolicyTest, HandCheckedSequence) {
  // Capacity 4: Kin = 1, Kout = 2.
  TwoQPolicy p(4);
  CacheSimulator sim(&p, 4);
  const std::vector<LineKey> trace = {1, 2, 3, 4, 5, 1, 1, 2, 6, 7, 3, 1, 2};
  const auto r = policytest::RunTrace(sim, trace);
  // 1 and 2 come back while their keys are in A1out, enter Am and then hit.
  EXPECT_EQ(r.hits, 3u);
  EXPECT_EQ(r.hit, (std::vector<bool>{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(p.AmSize(), 2u);
  EXPECT_EQ(p.A1inSize(), 2u);
  EXPECT_EQ(p.A1outSize(), 2u);
  for (LineKey k : {1, 2, 7, 3}) EXPECT_TRUE(sim.Resident(k)) << k;
  EXPECT_EQ(sim.Violations(), 0u);
}

TEST(TwoQPolicyTest, HitInA1inDoesNotPromote) {
  TwoQPolicy p(4);
  CacheSimulator sim(&p, 4);
  policytest::RunTrace(sim, {1, 2, 3, 4, 1, 1, 1});
  EXPECT_EQ(p.AmSize(), 0u);
  EXPECT_EQ(sim.Access(5), CacheSimulator::Outcome::kMiss);
  EXPECT_FALSE(sim.Resident(1));  // still the oldest of A1in
}

TEST(TwoQPolicyTest, GhostLookupSurvivesTheEvictionForTheSameMiss) {
  TwoQPolicy p(4);
  CacheSimulator sim(&p, 4);
  // 1 and 2 return while in A1out: even the miss on 1 that evicts 3 into a
  // full A1out must still find 1 there.
  policytest::RunTrace(sim, {1, 2, 3, 4, 5, 6, 1, 2});
  EXPECT_EQ(p.AmSize(), 2u);
  EXPECT_EQ(p.A1outSize(), 2u);
  // A1in (5, 6) is over Kin = 1: its oldest goes first, not Am's.
  sim.Access(9);
  EXPECT_FALSE(sim.Resident(5));
  sim.Access(10);
  EXPECT_FALSE(sim.Resident(6));
  // A1in still holds more than Kin, so Am is untouched.
  sim.Access(11);
  EXPECT_TRUE(sim.Resident(1));
  EXPECT_TRUE(sim.Resident(2));
}

}  // namespace
}  // namespace tierlab
