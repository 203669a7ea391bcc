#pragma once
// 2Q (Johnson & Shasha, VLDB'94, the "full" version). Three queues:
//   A1in  FIFO of lines seen once recently (resident), target Kin = 25% of
//         capacity;
//   A1out ghost FIFO of keys evicted from A1in, Kout = 50% of capacity keys;
//   Am    LRU of lines re-referenced after leaving A1in (resident).
// A miss whose key is in A1out goes to Am; any other miss goes to A1in. A hit
// in Am moves the line to Am's MRU end; a hit in A1in does nothing (the
// correlated-reference period). Eviction takes A1in's oldest while A1in holds
// more than Kin lines (its key goes to A1out), otherwise Am's LRU (no ghost).
// Kin 25% / Kout 50% are the paper's recommended values.
//
// A one-time scan only ever passes through A1in, so lines in Am survive it.
// Evict(filter): searches the preferred queue, then the other one, skipping
// rejected slots in place, at most kEvictScanLimit rejections in total.
// Memory per slot: links 8 + key 8 + queue 1 bytes, plus the A1out ghost.

#include <vector>

#include "policies/GhostList.h"
#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class TwoQPolicy final : public ReplacementPolicy {
 public:
  explicit TwoQPolicy(std::size_t capacity);

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return lists_.Size(kA1in) + lists_.Size(kAm); }
  std::size_t MemoryBytes() const override;
  std::string Name() const override { return "2q"; }

  std::size_t A1inSize() const { return lists_.Size(kA1in); }
  std::size_t AmSize() const { return lists_.Size(kAm); }
  std::size_t A1outSize() const { return a1out_.Size(); }

 private:
  static constexpr unsigned kA1in = 0;
  static constexpr unsigned kAm = 1;

  std::optional<Slot> EvictFrom(unsigned list, EvictFilter filter, std::size_t* rejected);

  std::size_t kin_;
  std::size_t kout_;
  SlotLists lists_;
  std::vector<LineKey> keys_;
  std::vector<std::uint8_t> queue_;  // kA1in or kAm for resident slots
  GhostList a1out_;
};

}  // namespace tierlab
