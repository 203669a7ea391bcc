#pragma once
// LRU: evicts the least recently used slot. An intrusive doubly-linked list of
// uint32 links over the slots, 8 bytes per slot; every operation is O(1).
// Evict() walks from the LRU end past slots the filter rejects (they keep
// their position) and gives up after kEvictScanLimit rejections.
//
// The baseline every other policy is compared with, and the one that a single
// scan larger than the cache flushes completely.

#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class LruPolicy final : public ReplacementPolicy {
 public:
  explicit LruPolicy(std::size_t capacity) : list_(capacity, 1) {}

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return list_.Size(0); }
  std::size_t MemoryBytes() const override { return sizeof(*this) + list_.MemoryBytes(); }
  std::string Name() const override { return "lru"; }

 private:
  SlotLists list_;  // front = least recently used
};

}  // namespace tierlab
