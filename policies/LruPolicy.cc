#include "policies/LruPolicy.h"

namespace tierlab {

void LruPolicy::Insert(Slot s, LineKey) {
  list_.PushBack(0, s);
}

void LruPolicy::Touch(Slot s) {
  if (list_.Linked(s)) list_.MoveToBack(0, 0, s);
}

void LruPolicy::Remove(Slot s) {
  if (list_.Linked(s)) list_.Unlink(0, s);
}

std::optional<Slot> LruPolicy::Evict(EvictFilter filter) {
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
