#include <gtest/gtest.h>

#include <algorithm>
#include <deque>

#include "policies/FifoPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

using policytest::BeladyTrace;
using policytest::RunTrace;

std::vector<bool> ReferenceFifo(std::size_t capacity, const std::vector<LineKey>& trace) {
  std::deque<LineKey> q;  // front = oldest
  std::vector<bool> hit;
  for (LineKey k : trace) {
    const bool h = std::find(q.begin(), q.end(), k) != q.end();
    hit.push_back(h);
    if (h) continue;
    if (q.size() == capacity) q.pop_front();
    q.push_back(k);
  }
  return hit;
}

TEST(FifoPolicyTest, BeladyAnomaly) {
  // FIFO faults 9 times with 3 frames and 10 with 4: more memory, more misses.
  const std::pair<std::size_t, std::uint64_t> expected[] = {{1, 12}, {3, 9}, {4, 10}, {5, 5}};
  for (const auto& [size, misses] : expected) {
    FifoPolicy p(size);
    EXPECT_EQ(RunTrace(p, size, BeladyTrace()).misses, misses) << "size " << size;
  }
}

TEST(FifoPolicyTest, MatchesReferenceOnRandomTrace) {
  const auto trace = policytest::SkewedTrace(20000, 1000, 11);
  for (std::size_t size : {1u, 3u, 50u, 400u}) {
    FifoPolicy p(size);
    CacheSimulator sim(&p, size);
    EXPECT_EQ(RunTrace(sim, trace).hit, ReferenceFifo(size, trace)) << "size " << size;
    EXPECT_EQ(sim.Violations(), 0u);
  }
}

TEST(FifoPolicyTest, HitsDoNotReorder) {
  FifoPolicy p(3);
  p.Insert(0, 10);
  p.Insert(1, 11);
  p.Insert(2, 12);
  p.Touch(0);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));
  p.Remove(1);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(2));
  EXPECT_EQ(p.Evict(), std::nullopt);
}

}  // namespace
}  // namespace tierlab
