#pragma once
// ARC (Megiddo & Modha, FAST'03). Resident lines are in T1 (seen once
// recently) or T2 (seen at least twice); ghosts of lines evicted from them are
// kept in B1 and B2 (keys only). The target size p of T1 adapts: a miss that
// hits B1 says recency was cut short and grows p by max(1, |B2|/|B1|); a miss
// that hits B2 shrinks it by max(1, |B1|/|B2|). Invariants kept after every
// Insert: |T1|+|B1| <= c and |T1|+|T2|+|B1|+|B2| <= 2c.
//
// Fitting ARC to this interface: Evict() runs before Insert() and does not see
// the incoming key, so REPLACE uses "|T1| > p" and drops the paper's tie rule
// "|T1| == p and x in B2" (the tie goes to T2), and p adapts in Insert, after
// the victim was chosen. The ghost that the paper deletes before REPLACE on a
// complete miss is trimmed in Insert instead. Neither changes which lines are
// resident by more than one step of p.
//
// Evict(filter): searches the preferred list (T1 or T2) from its LRU end, then
// the other list, at most kEvictScanLimit rejections in total; rejected slots
// keep their position. Remove() drops a line without leaving a ghost (it was
// invalidated, not evicted).
// Memory per slot: links 8 + key 8 + list 1 bytes, plus B1 and B2 (c keys
// each, about 40 bytes per ghost entry).

#include <vector>

#include "policies/GhostList.h"
#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class ArcPolicy final : public ReplacementPolicy {
 public:
  explicit ArcPolicy(std::size_t capacity);

  void Insert(Slot s, LineKey key) override;
  void Touch(Slot s) override;
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return lists_.Size(kT1) + lists_.Size(kT2); }
  std::size_t MemoryBytes() const override;
  std::string Name() const override { return "arc"; }

  // For tests and counters.
  std::size_t Target() const { return p_; }
  std::size_t T1Size() const { return lists_.Size(kT1); }
  std::size_t T2Size() const { return lists_.Size(kT2); }
  std::size_t B1Size() const { return b1_.Size(); }
  std::size_t B2Size() const { return b2_.Size(); }

 private:
  static constexpr unsigned kT1 = 0;
  static constexpr unsigned kT2 = 1;

  std::optional<Slot> EvictFrom(unsigned list, EvictFilter filter, std::size_t* rejected);

  std::size_t c_;
  std::size_t p_ = 0;  // target size of T1
  SlotLists lists_;    // T1, T2; front = LRU
  std::vector<LineKey> keys_;
  std::vector<std::uint8_t> list_of_;
  GhostList b1_;
  GhostList b2_;
};

}  // namespace tierlab
