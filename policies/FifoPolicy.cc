#include "policies/FifoPolicy.h"

namespace tierlab {

void FifoPolicy::Remove(Slot s) {
  if (list_.Linked(s)) list_.Unlink(0, s);
}

std::optional<Slot> FifoPolicy::Evict(EvictFilter filter) {
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
