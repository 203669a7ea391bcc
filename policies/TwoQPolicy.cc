#include "policies/TwoQPolicy.h"

#include <algorithm>

namespace tierlab {

TwoQPolicy::TwoQPolicy(std::size_t capacity)
    : kin_(std::max<std::size_t>(1, capacity / 4)),
      kout_(std::max<std::size_t>(1, capacity / 2)),
      lists_(capacity, 2),
      keys_(capacity, 0),
      queue_(capacity, 0),
      a1out_(kout_ + 1) {}

void TwoQPolicy::Insert(Slot s, LineKey key) {
  if (lists_.Linked(s)) return;
  keys_[s] = key;
  queue_[s] = a1out_.Erase(key) ? kAm : kA1in;
  lists_.PushBack(queue_[s], s);
  // A1out holds one spare entry so that the eviction made for this miss
  // cannot push out the key just looked up (the paper checks A1out first).
  while (a1out_.Size() > kout_) a1out_.PopFront();
}

void TwoQPolicy::Touch(Slot s) {
  if (lists_.Linked(s) && queue_[s] == kAm) lists_.MoveToBack(kAm, kAm, s);
}

void TwoQPolicy::Remove(Slot s) {
  if (lists_.Linked(s)) lists_.Unlink(queue_[s], s);
}

std::optional<Slot> TwoQPolicy::EvictFrom(unsigned list, EvictFilter filter,
                                          std::size_t* rejected) {
  for (Slot s = lists_.Front(list); s != SlotLists::kNil; s = lists_.Next(s)) {
    if (filter(s)) {
      lists_.Unlink(list, s);
      if (list == kA1in) a1out_.PushBack(keys_[s]);
      return s;
    }
    if (++*rejected >= kEvictScanLimit) break;
  }
  return std::nullopt;
}

std::optional<Slot> TwoQPolicy::Evict(EvictFilter filter) {
  const bool from_a1in = lists_.Size(kA1in) > kin_ || lists_.Size(kAm) == 0;
  const unsigned first = from_a1in ? kA1in : kAm;
  std::size_t rejected = 0;
  if (auto s = EvictFrom(first, filter, &rejected)) return s;
  if (rejected >= kEvictScanLimit) return std::nullopt;
  return EvictFrom(first == kA1in ? kAm : kA1in, filter, &rejected);
}

std::size_t TwoQPolicy::MemoryBytes() const {
  return sizeof(*this) + lists_.MemoryBytes() + keys_.capacity() * sizeof(LineKey) +
         queue_.capacity() + a1out_.MemoryBytes();
}

}  // namespace tierlab
