#include "policies/LruPolicy.h"

namespace tierlab {

void LruPolicy::ApplyTouches() {
  const std::size_t n = pending_count_;
  pending_count_ = 0;
  // Touch() prefetched every slot's links and all but the last one's
  // neighbours' links.
  if (n > 1) PrefetchNeighbours(pending_[n - 1]);
  for (std::size_t i = 0; i < n; ++i) {
    const Slot s = pending_[i];
    if (list_.Linked(s)) list_.MoveToBack(0, 0, s);
  }
}

void LruPolicy::Insert(Slot s, LineKey) {
  if (pending_count_ != 0) ApplyTouches();
  list_.PushBack(0, s);
}

void LruPolicy::Remove(Slot s) {
  if (pending_count_ != 0) ApplyTouches();
  if (list_.Linked(s)) list_.Unlink(0, s);
}

std::optional<Slot> LruPolicy::Evict(EvictFilter filter) {
  if (pending_count_ != 0) ApplyTouches();
  std::size_t rejected = 0;
  for (Slot s = list_.Front(0); s != SlotLists::kNil; s = list_.Next(s)) {
    if (filter(s)) {
      list_.Unlink(0, s);
      return s;
    }
    if (++rejected >= kEvictScanLimit) break;
  }
  return std::nullopt;
}

}  // namespace tierlab
