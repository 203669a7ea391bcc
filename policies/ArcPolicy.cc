#include "policies/ArcPolicy.h"

#include <algorithm>

namespace tierlab {

ArcPolicy::ArcPolicy(std::size_t capacity)
    : c_(capacity),
      lists_(capacity, 2),
      keys_(capacity, 0),
      list_of_(capacity, 0),
      b1_(capacity),
      b2_(capacity) {}

void ArcPolicy::Insert(Slot s, LineKey key) {
  if (lists_.Linked(s)) return;
  keys_[s] = key;
  if (b1_.Contains(key)) {
    const std::size_t delta = std::max<std::size_t>(1, b2_.Size() / b1_.Size());
    p_ = std::min(c_, p_ + delta);
    b1_.Erase(key);
    list_of_[s] = kT2;
  } else if (b2_.Contains(key)) {
    const std::size_t delta = std::max<std::size_t>(1, b1_.Size() / b2_.Size());
    p_ = p_ > delta ? p_ - delta : 0;
    b2_.Erase(key);
    list_of_[s] = kT2;
  } else {
    list_of_[s] = kT1;
  }
  lists_.PushBack(list_of_[s], s);
  // Directory bounds: L1 = T1+B1 <= c, L1+L2 <= 2c.
  while (lists_.Size(kT1) + b1_.Size() > c_ && b1_.PopFront()) {
  }
  while (Size() + b1_.Size() + b2_.Size() > 2 * c_) {
    if (!b2_.PopFront() && !b1_.PopFront()) break;
  }
}

void ArcPolicy::Touch(Slot s) {
  if (!lists_.Linked(s)) return;
  lists_.MoveToBack(list_of_[s], kT2, s);
  list_of_[s] = kT2;
}

void ArcPolicy::Remove(Slot s) {
  if (lists_.Linked(s)) lists_.Unlink(list_of_[s], s);
}

std::optional<Slot> ArcPolicy::EvictFrom(unsigned list, EvictFilter filter, std::size_t* rejected) {
  for (Slot s = lists_.Front(list); s != SlotLists::kNil; s = lists_.Next(s)) {
    if (filter(s)) {
      lists_.Unlink(list, s);
      (list == kT1 ? b1_ : b2_).PushBack(keys_[s]);
      return s;
    }
    if (++*rejected >= kEvictScanLimit) break;
  }
  return std::nullopt;
}

std::optional<Slot> ArcPolicy::Evict(EvictFilter filter) {
  const std::size_t t1 = lists_.Size(kT1);
  const unsigned first = (t1 > 0 && (t1 > p_ || lists_.Size(kT2) == 0)) ? kT1 : kT2;
  std::size_t rejected = 0;
  if (auto s = EvictFrom(first, filter, &rejected)) return s;
  if (rejected >= kEvictScanLimit) return std::nullopt;
  return EvictFrom(first == kT1 ? kT2 : kT1, filter, &rejected);
}

std::size_t ArcPolicy::MemoryBytes() const {
  return sizeof(*this) + lists_.MemoryBytes() + keys_.capacity() * sizeof(LineKey) +
         list_of_.capacity() + b1_.MemoryBytes() + b2_.MemoryBytes();
}

}  // namespace tierlab
