#include <gtest/gtest.h>

#include "policies/SmqPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

TEST(SmqPolicyTest, HitPromotesOneLevelOncePerPeriodAndEvictsFromBottom) {
  SmqPolicy p(64);  // period = 64 operations
  for (Slot s = 0; s < 16; ++s) p.Insert(s, s);
  EXPECT_EQ(p.LevelSize(0), 16u);
  p.Touch(5);
  EXPECT_EQ(p.LevelOf(5), 1u);
  p.Touch(5);  // same period: no second promotion
  EXPECT_EQ(p.LevelOf(5), 1u);
  p.Touch(0);  // swaps with the oldest of level 1 (slot 5), which moves down
  EXPECT_EQ(p.LevelOf(0), 1u);
  EXPECT_EQ(p.LevelOf(5), 0u);
  EXPECT_EQ(p.LevelSize(1), 1u);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));  // oldest of level 0
}

TEST(SmqPolicyTest, RedistributeBalancesLevelsKeepingOrder) {
  SmqPolicy p(100);
  for (Slot s = 0; s < 20; ++s) p.Insert(s, s);
  p.Redistribute();
  // 20 lines over 8 levels: 3,3,3,3,2,2,2,2 (remainder to the lower levels).
  for (unsigned l = 0; l < SmqPolicy::kLevels; ++l) {
    EXPECT_EQ(p.LevelSize(l), l < 4 ? 3u : 2u) << "level " << l;
  }
  // The oldest lines stay at the bottom, the newest are pushed to the top.
  EXPECT_EQ(p.LevelOf(0), 0u);
  EXPECT_EQ(p.LevelOf(19), SmqPolicy::kLevels - 1);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
}

TEST(SmqPolicyTest, FrequentlyHitLinesClimbAndSurviveColdTraffic) {
  const std::size_t c = 200;
  SmqPolicy p(c);
  CacheSimulator sim(&p, c);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40000; ++i) {
    sim.Access(i % 3 == 0 ? rng() % 10 : 1000 + rng() % 100000);  // 10 hot keys
  }
  EXPECT_EQ(sim.Violations(), 0u);
  for (LineKey k = 0; k < 10; ++k) EXPECT_TRUE(sim.Resident(k)) << k;
}

}  // namespace
}  // namespace tierlab
