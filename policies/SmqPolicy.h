#pragma once
// SMQ: a simplified version of dm-cache's stochastic multiqueue
// (drivers/md/dm-cache-policy-smq.c), the default dm-cache policy.
//
// Kept from smq:
//   - kLevels levels, each a FIFO-ordered queue (front = oldest);
//   - a hit moves the line up one level (to the back) and swaps the oldest
//     line of the destination level down into the old level, so level sizes
//     stay put (smq's q_requeue);
//   - a line is promoted at most once per period (smq's cache_hit_bits);
//   - every period the levels are rebalanced to equal sizes by pulling the
//     oldest lines of the level above down and pushing the newest lines of a
//     too-full level up (smq's q_redistribute, but moving the pushed lines as
//     a block in order), and the hit bits are cleared;
//   - eviction takes the oldest line of the lowest non-empty level, searching
//     the lower half of the levels first.
// Dropped: the hotspot queue (block-group heat that decides promotion — in
// tierlab that is the admission policy's job), the writeback/demote sentinels
// (the write-back cache has its own destage order), the dirty/clean split and
// wall-clock periods. Changed: a period is `capacity` Insert+Touch calls
// rather than a time (no clock in policies); new lines enter at level 0
// rather than at the level the hotspot queue gave them, so a new line has to
// be hit before it reaches the front of level 0 (about capacity/kLevels
// misses) to stay — the scan resistance smq gets from its hotspot queue; and
// when the lower half has nothing evictable the upper half is searched rather
// than refusing, because the cache target needs a victim. Deterministic: the
// registry's seed is unused.
//
// Evict(filter): rejected slots stay in place, at most kEvictScanLimit
// rejections. Memory per slot: links 8 + level 1 bytes + 1 hit bit.

#include <vector>

#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class SmqPolicy final : public ReplacementPolicy {
 public:
  static constexpr unsigned kLevels = 8;

  explicit SmqPolicy(std::size_t capacity);

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return size_; }
  std::size_t MemoryBytes() const override;
  std::string Name() const override { return "smq"; }

  unsigned LevelOf(Slot s) const { return level_[s]; }
  std::size_t LevelSize(unsigned level) const { return lists_.Size(level); }
  // Rebalances now (normally once per period); exposed for tests.
  void Redistribute();

 private:
  void Tick();
  bool TestAndSetHit(Slot s);

  std::size_t period_;
  std::size_t ops_ = 0;
  std::size_t size_ = 0;
  SlotLists lists_;  // one list per level; front = oldest
  std::vector<std::uint8_t> level_;
  std::vector<std::uint64_t> hit_bits_;
};

}  // namespace tierlab
