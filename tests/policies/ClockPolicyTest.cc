#include <gtest/gtest.h>

#include "policies/ClockPolicy.h"
#include "tests/policies/PolicyTestUtil.h"

namespace tierlab {
namespace {

using policytest::RunTrace;

// Textbook frame-based CLOCK: frames filled in order, then the hand sweeps,
// clearing reference bits, and the new page takes the victim's frame.
std::vector<bool> ReferenceClock(std::size_t capacity, const std::vector<LineKey>& trace) {
  struct Frame {
    LineKey key;
    bool ref;
  };
  std::vector<Frame> frames;
  std::size_t hand = 0;
  std::vector<bool> hit;
  for (LineKey k : trace) {
    auto it =
        std::find_if(frames.begin(), frames.end(), [&](const Frame& f) { return f.key == k; });
    hit.push_back(it != frames.end());
    if (it != frames.end()) {
      it->ref = true;
      continue;
    }
    if (frames.size() < capacity) {
      frames.push_back({k, false});
      continue;
    }
    while (frames[hand].ref) {
      frames[hand].ref = false;
      hand = (hand + 1) % capacity;
    }
    frames[hand] = {k, false};
    hand = (hand + 1) % capacity;
  }
  return hit;
}

TEST(ClockPolicyTest, MatchesTextbookClockOnRandomTrace) {
  const auto trace = policytest::SkewedTrace(20000, 1000, 13);
  for (std::size_t size : {1u, 2u, 9u, 100u, 500u}) {
    ClockPolicy p(size);
    CacheSimulator sim(&p, size);
    EXPECT_EQ(RunTrace(sim, trace).hit, ReferenceClock(size, trace)) << "size " << size;
    EXPECT_EQ(sim.Violations(), 0u);
  }
}

TEST(ClockPolicyTest, SecondChance) {
  ClockPolicy p(3);
  p.Insert(0, 1);
  p.Insert(1, 2);
  p.Insert(2, 3);
  p.Touch(0);
  p.Touch(2);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(1));  // 0 spared (bit cleared)
  p.Insert(1, 4);
  EXPECT_EQ(p.Evict(), std::optional<Slot>(0));  // hand at 2: spared again; 0's bit is clear
  EXPECT_EQ(p.Size(), 2u);
  EXPECT_EQ(p.MemoryBytes(), sizeof(ClockPolicy) + 3);
}

TEST(ClockPolicyTest, BeladyTrace) {
  // By hand: 1 2 3 4 1 2 5 miss; the hits on 1 and 2 set their bits, so the
  // miss on 3 sweeps past them and evicts 5; then 4 and 5 evict 1 and 2.
  // 10 misses at 3 frames (FIFO has 9: the second chance costs here).
  ClockPolicy p(3);
  EXPECT_EQ(RunTrace(p, 3, policytest::BeladyTrace()).misses, 10u);
}

}  // namespace
}  // namespace tierlab
