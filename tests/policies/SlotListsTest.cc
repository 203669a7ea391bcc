#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <random>
#include <vector>

#include "policies/SlotLists.h"

namespace tierlab {
namespace {

// Random pushes, moves and unlinks on several lists against std::list, at
// capacities whose packed link width is odd (fields straddle bytes and words).
TEST(SlotListsTest, MatchesStdListAtManyLinkWidths) {
  for (std::size_t cap : {1u, 2u, 5u, 63u, 1000u, 70000u, (1u << 20) + 3}) {
    constexpr unsigned kLists = 3;
    SlotLists l(cap, kLists);
    std::vector<std::list<Slot>> ref(kLists);
    std::vector<int> on(cap, -1);  // which list each slot is on
    std::mt19937_64 rng(cap);
    const std::size_t span = std::min<std::size_t>(cap, 500);  // slots used: dense churn
    const std::size_t base = cap - span;                       // high slots: widest values
    for (int i = 0; i < 20000; ++i) {
      const Slot s = static_cast<Slot>(base + rng() % span);
      const unsigned to = static_cast<unsigned>(rng() % kLists);
      if (on[s] < 0) {
        if (rng() % 2 == 0) {
          l.PushBack(to, s);
          ref[to].push_back(s);
        } else {
          l.PushFront(to, s);
          ref[to].push_front(s);
        }
        on[s] = static_cast<int>(to);
      } else if (rng() % 3 == 0) {
        l.Unlink(static_cast<unsigned>(on[s]), s);
        ref[on[s]].remove(s);
        on[s] = -1;
      } else {
        l.MoveToBack(static_cast<unsigned>(on[s]), to, s);
        ref[on[s]].remove(s);
        ref[to].push_back(s);
        on[s] = static_cast<int>(to);
      }
      ASSERT_EQ(l.Linked(s), on[s] >= 0);
    }
    for (unsigned k = 0; k < kLists; ++k) {
      ASSERT_EQ(l.Size(k), ref[k].size());
      std::vector<Slot> fwd;
      for (Slot s = l.Front(k); s != SlotLists::kNil; s = l.Next(s)) fwd.push_back(s);
      ASSERT_EQ(fwd, std::vector<Slot>(ref[k].begin(), ref[k].end())) << "cap " << cap;
      std::vector<Slot> back;
      for (Slot s = l.Back(k); s != SlotLists::kNil; s = l.Prev(s)) back.push_back(s);
      std::reverse(back.begin(), back.end());
      ASSERT_EQ(back, fwd);
    }
  }
}

// Two links of bit_width(capacity + lists) bits per slot, not 8 bytes.
TEST(SlotListsTest, LinksArePackedToTheIndexWidth) {
  const SlotLists small(1000, 1);  // 10-bit links: 2.5 bytes per slot
  EXPECT_LE(small.MemoryBytes(), 1000 * 2.5 + 64);
  const SlotLists big(4u << 20, 1);  // 23-bit links: 5.75 bytes per slot
  EXPECT_LE(static_cast<double>(big.MemoryBytes()) / (4u << 20), 5.76);
  EXPECT_GE(static_cast<double>(big.MemoryBytes()) / (4u << 20), 5.75);
}

}  // namespace
}  // namespace tierlab
