// A hot set that earned its place under mixed traffic, then one sequential
// scan of five cache sizes, then the hot set again: scan-resistant policies
// keep (nearly) all of it, LRU keeps none.

#include <gtest/gtest.h>

#include <random>

#include "policies/PolicyRegistry.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

constexpr std::size_t kCapacity = 100;
constexpr LineKey kHot = 20;

std::uint64_t HotHitsAfterScan(const std::string& name) {
  auto p = MakeReplacementPolicy(name, kCapacity);
  CacheSimulator sim(p.get(), kCapacity);
  std::mt19937_64 rng(1);
  // Warm-up: each hot key, then two cold keys from a large space.
  for (int round = 0; round < 150; ++round) {
    for (LineKey h = 0; h < kHot; ++h) {
      sim.Access(h);
      sim.Access(1'000'000 + rng() % 100'000);
      sim.Access(1'000'000 + rng() % 100'000);
    }
  }
  for (LineKey k = 0; k < 5 * kCapacity; ++k) sim.Access(10'000'000 + k);  // the scan
  std::uint64_t hits = 0;
  for (LineKey h = 0; h < kHot; ++h) hits += sim.Access(h) == CacheSimulator::Outcome::kHit;
  EXPECT_EQ(sim.Violations(), 0u);
  return hits;
}

TEST(ScanResistanceTest, ScanFlushesLruFifoClock) {
  EXPECT_EQ(HotHitsAfterScan("lru"), 0u);
  EXPECT_EQ(HotHitsAfterScan("fifo"), 0u);
  EXPECT_EQ(HotHitsAfterScan("clock"), 0u);
}

TEST(ScanResistanceTest, HotSetSurvivesScan) {
  for (const char* name : {"arc", "2q", "s3fifo", "smq", "lfu"}) {
    EXPECT_GE(HotHitsAfterScan(name), kHot - 1) << name;
  }
}

}  // namespace
}  // namespace tierlab
