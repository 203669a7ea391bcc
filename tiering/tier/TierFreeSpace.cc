#include "tiering/tier/TierFreeSpace.h"

#include <cassert>

namespace tierlab {

TierFreeSpace::TierFreeSpace(std::uint64_t slots) : slots_(slots), free_count_(slots) {
  if (slots > 0) free_ += Interval(0, slots);
}

std::optional<std::uint64_t> TierFreeSpace::Allocate() {
  if (free_.empty()) return std::nullopt;
  const std::uint64_t slot = free_.begin()->lower();
  free_ -= Interval(slot, slot + 1);
  --free_count_;
  return slot;
}

void TierFreeSpace::Free(std::uint64_t slot) {
  assert(slot < slots_ && !IsFree(slot));
  free_ += Interval(slot, slot + 1);
  ++free_count_;
}

}  // namespace tierlab
