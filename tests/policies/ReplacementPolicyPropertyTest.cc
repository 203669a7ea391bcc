// Contract properties every registered replacement policy must keep, run over
// ReplacementPolicyNames() so that a new policy is covered by registering it.

#include <gtest/gtest.h>

#include <random>
#include <unordered_set>

#include "policies/PolicyRegistry.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

class PolicyProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(PolicyProperty, RandomAccessesRemovesAndFilterKeepTheContract) {
  for (std::size_t capacity : {1u, 2u, 5u, 64u, 257u}) {
    auto p = MakeReplacementPolicy(GetParam(), capacity, 3);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->Name(), GetParam());
    CacheSimulator sim(p.get(), capacity);
    policytest::KeyFilter filter;
    filter.sim = &sim;
    sim.SetFilter(filter.Filter());
    std::mt19937_64 rng(capacity);
    std::uniform_int_distribution<LineKey> key(0, 4 * capacity);
    for (int i = 0; i < 20000; ++i) {
      const LineKey k = key(rng);
      switch (rng() % 16) {
        case 0: sim.Remove(k); break;  // invalidation
        case 1:                        // toggle "dirty" on a key
          if (!filter.pinned.erase(k)) filter.pinned.insert(k);
          break;
        default: sim.Access(k);
      }
      ASSERT_LE(p->Size(), capacity);
    }
    EXPECT_EQ(sim.Violations(), 0u) << "capacity " << capacity;
    EXPECT_GT(sim.Hits(), 0u);
    EXPECT_EQ(p->Size(), sim.ResidentCount());
  }
}

TEST_P(PolicyProperty, EvictDrainsExactlyTheResidentSlots) {
  const std::size_t capacity = 100;
  auto p = MakeReplacementPolicy(GetParam(), capacity, 3);
  CacheSimulator sim(p.get(), capacity);
  policytest::RunTrace(sim, policytest::SkewedTrace(5000, 400, 5));
  sim.Remove(sim.KeyOf(7).value());
  std::unordered_set<Slot> seen;
  while (auto s = p->Evict()) {
    EXPECT_TRUE(sim.KeyOf(*s).has_value());
    EXPECT_NE(*s, 7u) << "removed slot evicted";
    EXPECT_TRUE(seen.insert(*s).second) << "slot evicted twice";
  }
  EXPECT_EQ(seen.size(), capacity - 1);
  EXPECT_EQ(p->Size(), 0u);
}

bool RejectAll(void*, Slot) {
  return false;
}

TEST_P(PolicyProperty, FilterRejectingEverythingEvictsNothingAndLosesNothing) {
  const std::size_t capacity = 32;
  auto p = MakeReplacementPolicy(GetParam(), capacity, 3);
  CacheSimulator sim(p.get(), capacity);
  policytest::RunTrace(sim, policytest::SkewedTrace(500, 100, 9));
  EXPECT_EQ(p->Evict(EvictFilter{&RejectAll, nullptr}), std::nullopt);
  EXPECT_EQ(p->Size(), capacity);
  std::size_t drained = 0;
  while (p->Evict()) ++drained;
  EXPECT_EQ(drained, capacity);
}

TEST_P(PolicyProperty, MemoryBytesCoversAtLeastOneByteSlot) {
  auto small = MakeReplacementPolicy(GetParam(), 1000, 1);
  auto big = MakeReplacementPolicy(GetParam(), 100000, 1);
  EXPECT_GE(big->MemoryBytes(), 100000u);
  EXPECT_GT(big->MemoryBytes(), small->MemoryBytes());
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, PolicyProperty, ::testing::ValuesIn(ReplacementPolicyNames()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return "p" + n;
                         });

}  // namespace
}  // namespace tierlab
