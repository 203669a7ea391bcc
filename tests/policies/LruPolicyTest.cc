#include <gtest/gtest.h>

#include <algorithm>
#include <list>

#include "policies/LruPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

using policytest::BeladyTrace;
using policytest::RunTrace;

// Brute-force LRU: a list ordered by recency, searched linearly.
std::vector<bool> ReferenceLru(std::size_t capacity, const std::vector<LineKey>& trace) {
  std::list<LineKey> order;  // front = most recent
  std::vector<bool> hit;
  for (LineKey k : trace) {
    auto it = std::find(order.begin(), order.end(), k);
    const bool h = it != order.end();
    hit.push_back(h);
    if (h) {
      order.erase(it);
    } else if (order.size() == capacity) {
      order.pop_back();
    }
    order.push_front(k);
  }
  return hit;
}

TEST(LruPolicyTest, BeladyTraceMissCounts) {
  // Textbook values: LRU faults 10 times with 3 frames and 8 with 4.
  const std::pair<std::size_t, std::uint64_t> expected[] = {{1, 12}, {3, 10}, {4, 8}, {5, 5}};
  for (const auto& [size, misses] : expected) {
    LruPolicy p(size);
    EXPECT_EQ(RunTrace(p, size, BeladyTrace()).misses, misses) << "size " << size;
  }
}

TEST(LruPolicyTest, MatchesBruteForceOnRandomTraceAtSeveralSizes) {
  const auto trace = policytest::SkewedTrace(20000, 1000, 7);
  for (std::size_t size : {1u, 2u, 7u, 64u, 300u, 999u}) {
    LruPolicy p(size);
    CacheSimulator sim(&p, size);
    const auto got = RunTrace(sim, trace);
    EXPECT_EQ(got.hit, ReferenceLru(size, trace)) << "size " << size;
    EXPECT_EQ(sim.Violations(), 0u);
    EXPECT_LE(p.Size(), size);
  }
}

TEST(LruPolicyTest, EvictsLeastRecentlyUsedAndTouchRefreshes) {
  LruPolicy p(4);
  for (Slot s = 0; s < 4; ++s) p.Insert(s, 100 + s);
  p.Touch(0);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(3));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
  EXPECT_EQ(p.Evict(), std::nullopt);
  EXPECT_EQ(p.Size(), 0u);
}

TEST(LruPolicyTest, RemoveUnlinksAndIsIdempotent) {
  LruPolicy p(3);
  p.Insert(0, 1);
  p.Insert(1, 2);
  p.Insert(2, 3);
  p.Remove(0);
  p.Remove(0);
  EXPECT_EQ(p.Size(), 2u);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));
  p.Insert(0, 4);  // a removed slot can be reused
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
}

bool OddOnly(void*, Slot s) {
  return s % 2 == 1;
}

TEST(LruPolicyTest, FilterSkipsWithoutLosingSlots) {
  LruPolicy p(4);
  for (Slot s = 0; s < 4; ++s) p.Insert(s, s);
  const EvictFilter odd{&OddOnly, nullptr};
  EXPECT_EQ(p.Evict(odd), std::optional<Slot>(1));
  EXPECT_EQ(p.Evict(odd), std::optional<Slot>(3));
  EXPECT_EQ(p.Evict(odd), std::nullopt);
  EXPECT_EQ(p.Size(), 2u);
  // The skipped slots kept their LRU order.
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
}

bool AboveLimit(void*, Slot s) {
  return s >= kEvictScanLimit;
}

TEST(LruPolicyTest, SearchGivesUpAfterScanLimitRejections) {
  const std::size_t n = kEvictScanLimit + 4;
  LruPolicy p(n);
  for (Slot s = 0; s < n; ++s) p.Insert(s, s);
  EXPECT_EQ(p.Evict(EvictFilter{&AboveLimit, nullptr}), std::nullopt);
  EXPECT_EQ(p.Size(), n);
  p.Touch(0);  // one rejected slot fewer in front of the first evictable one
  EXPECT_EQ(p.Evict(EvictFilter{&AboveLimit, nullptr}), std::optional<Slot>(kEvictScanLimit));
}

TEST(LruPolicyTest, MemoryIsTwoPackedLinksPerSlot) {
  // 2^16 slots + 1 sentinel: links of 17 bits, 4.25 bytes per slot.
  LruPolicy p(1 << 16);
  const double per_slot = static_cast<double>(p.MemoryBytes()) / (1 << 16);
  EXPECT_GE(per_slot, 4.25);
  EXPECT_LT(per_slot, 4.3);
}

TEST(LruPolicyTest, BatchedTouchesAreAppliedBeforeEveryOtherOperation) {
  // Touches recorded but not yet applied must still decide the next victim,
  // in the order they happened, across a partial and a full batch.
  for (std::size_t touches : {std::size_t{8}, LruPolicy::kTouchBatch + 8}) {
    LruPolicy p(LruPolicy::kBatchMinCapacity);  // large enough to batch
    for (Slot s = 0; s < 64; ++s) p.Insert(s, s);
    for (std::size_t i = 0; i < touches; ++i) p.Touch(static_cast<Slot>(i % 8));
    // Slots 0..7 were touched (the batch is partial, then full plus 8),
    // so 8 is now the least recently used.
    EXPECT_EQ(p.Evict(), Slot{8});
    p.Touch(9);
    p.Remove(10);  // applies the touch of 9 first
    EXPECT_EQ(p.Evict(), Slot{11});
    EXPECT_EQ(p.Size(), 61u);
  }
}

}  // namespace
}  // namespace tierlab
