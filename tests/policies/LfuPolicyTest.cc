#include <gtest/gtest.h>

#include <map>

#include "policies/LfuPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

// Brute-force in-cache LFU: evict the smallest (count, last access time).
std::vector<bool> ReferenceLfu(std::size_t capacity, const std::vector<LineKey>& trace) {
  std::map<LineKey, std::pair<std::uint64_t, std::uint64_t>> cache;  // key -> (count, last)
  std::vector<bool> hit;
  std::uint64_t now = 0;
  for (LineKey k : trace) {
    ++now;
    auto it = cache.find(k);
    hit.push_back(it != cache.end());
    if (it != cache.end()) {
      it->second = {it->second.first + 1, now};
      continue;
    }
    if (cache.size() == capacity) {
      auto victim = cache.begin();
      for (auto c = cache.begin(); c != cache.end(); ++c) {
        if (c->second < victim->second) victim = c;
      }
      cache.erase(victim);
    }
    cache[k] = {1, now};
  }
  return hit;
}

TEST(LfuPolicyTest, EvictsLeastFrequentTiesByLru) {
  LfuPolicy p(5);
  for (Slot s = 0; s < 3; ++s) p.Insert(s, s);
  p.Touch(0);
  p.Touch(0);
  p.Touch(2);
  EXPECT_EQ(p.Count(0), 3u);
  EXPECT_EQ(p.Count(2), 2u);
  p.Insert(3, 3);
  p.Insert(4, 4);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));  // count 1, oldest
  EXPECT_EQ(p.Evict(), std::optional<Slot>(3));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(4));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
  EXPECT_EQ(p.Evict(), std::nullopt);
}

TEST(LfuPolicyTest, MatchesBruteForceOnRandomTrace) {
  const auto trace = policytest::SkewedTrace(20000, 600, 17);
  for (std::size_t size : {1u, 4u, 60u, 300u}) {
    LfuPolicy p(size);
    CacheSimulator sim(&p, size);
    EXPECT_EQ(policytest::RunTrace(sim, trace).hit, ReferenceLfu(size, trace)) << "size " << size;
    EXPECT_EQ(sim.Violations(), 0u);
  }
}

TEST(LfuPolicyTest, RemoveFreesBuckets) {
  LfuPolicy p(2);
  for (int round = 0; round < 1000; ++round) {
    p.Insert(0, 0);
    p.Insert(1, 1);
    for (int i = 0; i < round % 7; ++i) p.Touch(round % 2);
    p.Remove(0);
    p.Remove(1);
  }
  EXPECT_EQ(p.Size(), 0u);
  EXPECT_EQ(p.Evict(), std::nullopt);
}

}  // namespace
}  // namespace tierlab
