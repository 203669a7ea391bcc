#pragma once
// LRU: evicts the least recently used slot. An intrusive doubly-linked list
// over the slots (bit-packed links, SlotLists.h: 5.25-6.75 bytes per slot);
// every operation is O(1). Evict() walks from the LRU end past slots the
// filter rejects (they keep their position) and gives up after
// kEvictScanLimit rejections.
//
// Touches are batched (lists of at least kBatchMinCapacity slots): Touch()
// records the slot and prefetches its links (and, the previous touch's links
// having arrived meanwhile, that slot's neighbours' links); the recorded
// moves to the MRU end are applied, in order, when the batch is full or
// before any other operation (Insert, Remove, Evict). Since nothing can observe the list
// between those points, the policy is exactly LRU; the batch only lets the
// cache misses of up to kTouchBatch moves overlap instead of running one after
// another (the hit path of a cache with millions of lines).
//
// The baseline every other policy is compared with, and the one that a single
// scan larger than the cache flushes completely.

#include <array>

#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class LruPolicy final : public ReplacementPolicy {
 public:
  static constexpr std::size_t kTouchBatch = 32;
  // Smaller lists (links under ~300 KiB) stay in the CPU caches: touches are
  // applied at once there, since batching would only add work.
  static constexpr std::size_t kBatchMinCapacity = 1 << 16;

  explicit LruPolicy(std::size_t capacity)
      : list_(capacity, 1), batch_(capacity >= kBatchMinCapacity ? kTouchBatch : 1) {}

  void Insert(Slot s, LineKey key) override;
  void Prefetch(Slot s) const override { list_.Prefetch(s); }
  void Touch(Slot s) override {
    list_.Prefetch(s);
    // The previous touch's links were prefetched a request ago and have
    // arrived by now: fetch its neighbours' links too, so the move to the
    // MRU end finds all three in the cache (they are what it stalls on).
    if (pending_count_ != 0) PrefetchNeighbours(pending_[pending_count_ - 1]);
    pending_[pending_count_++] = s;
    if (pending_count_ == batch_) ApplyTouches();
  }
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return list_.Size(0); }
  std::size_t MemoryBytes() const override { return sizeof(*this) + list_.MemoryBytes(); }
  std::string Name() const override { return "lru"; }

 private:
  // Applies the recorded touches in order.
  void ApplyTouches();
  void PrefetchNeighbours(Slot s) const {
    if (!list_.Linked(s)) return;
    const Slot p = list_.Prev(s);
    const Slot q = list_.Next(s);
    if (p != SlotLists::kNil) list_.Prefetch(p);
    if (q != SlotLists::kNil) list_.Prefetch(q);
  }

  SlotLists list_;  // front = least recently used
  std::array<Slot, kTouchBatch> pending_;
  std::size_t pending_count_ = 0;
  std::size_t batch_;  // kTouchBatch, or 1 for small lists
};

}  // namespace tierlab
