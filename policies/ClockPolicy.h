#pragma once
// CLOCK (second chance): a hand sweeps the slots in index order; a slot with
// its reference bit set is spared once (bit cleared), the first slot without
// it is the victim. Hits only set a bit, so a hit costs one byte store and
// no list surgery — the cheapest approximation of LRU.
//
// The clock face is the slot array itself: when the cache reuses the evicted
// slot for the incoming line (as CacheSimulator and the cache target do), the
// new line takes the victim's frame right behind the hand, exactly as in the
// textbook frame-based CLOCK. New lines start with the bit clear (they must
// be hit once to survive a sweep). One byte per slot.
//
// Evict(filter): slots the filter rejects are passed over with their bit
// untouched; the search stops after kEvictScanLimit rejections. A sweep over a
// sparsely filled cache may visit up to 2 x capacity free slots.

#include <vector>

#include "policies/ReplacementPolicy.h"

namespace tierlab {

class ClockPolicy final : public ReplacementPolicy {
 public:
  explicit ClockPolicy(std::size_t capacity) : state_(capacity, 0) {}

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return size_; }
  std::size_t MemoryBytes() const override { return sizeof(*this) + state_.capacity(); }
  std::string Name() const override { return "clock"; }

 private:
  static constexpr std::uint8_t kResident = 1;
  static constexpr std::uint8_t kReferenced = 2;

  std::vector<std::uint8_t> state_;
  std::size_t hand_ = 0;
  std::size_t size_ = 0;
};

}  // namespace tierlab
