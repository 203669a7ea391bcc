#pragma once
// LFU with O(1) operations (Shah, Mitra & Matani 2010): slots hang in
// frequency buckets, and the buckets form a list in increasing frequency. A
// hit moves the slot to the bucket of frequency+1 (created next to the current
// one if missing, the current one freed if it empties); eviction takes from
// the lowest bucket. Ties are broken by LRU: within a bucket the slot that
// reached that count longest ago goes first (each move appends).
//
// In-cache LFU: a line starts at count 1 on Insert and its count is forgotten
// on eviction (no history, no aging) — so a once-hot line that went cold stays
// until colder lines have been evicted; this is the textbook trade-off and the
// reason LFU is a baseline here, not a recommendation. Counts saturate at
// 2^32-1.
//
// Evict(filter): from the lowest bucket upward, oldest first, rejected slots
// left in place, at most kEvictScanLimit rejections.
// Memory per slot: about 44 bytes (slot links 8; per potential bucket: sentinel
// links 8 and list size 8, count 4, chain links 8, free-stack entry 4; slot ->
// bucket 4). The price of O(1) with a bucket per distinct count.

#include <vector>

#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class LfuPolicy final : public ReplacementPolicy {
 public:
  explicit LfuPolicy(std::size_t capacity);

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return size_; }
  std::size_t MemoryBytes() const override;
  std::string Name() const override { return "lfu"; }

  // Access count of a resident slot (for tests).
  std::uint32_t Count(Slot s) const { return count_[bucket_of_[s]]; }

 private:
  Slot NewBucket(std::uint32_t count);
  void Detach(Slot s);  // unlinks s, frees its bucket if it empties

  std::size_t size_ = 0;
  SlotLists slots_;    // list b = the slots of bucket b; front = oldest
  SlotLists buckets_;  // one list of buckets, increasing count
  std::vector<Slot> bucket_of_;
  std::vector<std::uint32_t> count_;  // per bucket
  std::vector<Slot> free_buckets_;
};

}  // namespace tierlab
