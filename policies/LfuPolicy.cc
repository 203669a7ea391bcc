#include "policies/LfuPolicy.h"

namespace tierlab {

// A slot move allocates the new bucket before the old one may be freed, so
// capacity + 1 buckets always suffice.
LfuPolicy::LfuPolicy(std::size_t capacity)
    : slots_(capacity, capacity + 1),
      buckets_(capacity + 1, 1),
      bucket_of_(capacity, 0),
      count_(capacity + 1, 0) {
  free_buckets_.reserve(capacity + 1);
  for (std::size_t b = capacity + 1; b > 0; --b) free_buckets_.push_back(static_cast<Slot>(b - 1));
}

Slot LfuPolicy::NewBucket(std::uint32_t count) {
  const Slot b = free_buckets_.back();
  free_buckets_.pop_back();
  count_[b] = count;
  return b;
}

void LfuPolicy::Detach(Slot s) {
  const Slot b = bucket_of_[s];
  slots_.Unlink(b, s);
  if (slots_.Size(b) == 0) {
    buckets_.Unlink(0, b);
    free_buckets_.push_back(b);
  }
}

void LfuPolicy::Insert(Slot s, LineKey) {
  if (slots_.Linked(s)) return;
  Slot b = buckets_.Front(0);
  if (b == SlotLists::kNil || count_[b] != 1) {
    b = NewBucket(1);
    buckets_.PushFront(0, b);
  }
  slots_.PushBack(b, s);
  bucket_of_[s] = b;
  ++size_;
}

void LfuPolicy::Touch(Slot s) {
  if (!slots_.Linked(s)) return;
  const Slot b = bucket_of_[s];
  const std::uint32_t c = count_[b];
  if (c == UINT32_MAX) {
    slots_.MoveToBack(b, b, s);
    return;
  }
  Slot nb = buckets_.Next(b);
  if (nb == SlotLists::kNil || count_[nb] != c + 1) {
    nb = NewBucket(c + 1);
    buckets_.InsertAfter(0, b, nb);
  }
  Detach(s);
  slots_.PushBack(nb, s);
  bucket_of_[s] = nb;
}

void LfuPolicy::Remove(Slot s) {
  if (!slots_.Linked(s)) return;
  Detach(s);
  --size_;
}

std::optional<Slot> LfuPolicy::Evict(EvictFilter filter) {
  std::size_t rejected = 0;
  for (Slot b = buckets_.Front(0); b != SlotLists::kNil; b = buckets_.Next(b)) {
    for (Slot s = slots_.Front(b); s != SlotLists::kNil; s = slots_.Next(s)) {
      if (filter(s)) {
        Detach(s);
        --size_;
        return s;
      }
      if (++rejected >= kEvictScanLimit) return std::nullopt;
    }
  }
  return std::nullopt;
}

std::size_t LfuPolicy::MemoryBytes() const {
  return sizeof(*this) + slots_.MemoryBytes() + buckets_.MemoryBytes() +
         bucket_of_.capacity() * sizeof(Slot) + count_.capacity() * sizeof(std::uint32_t) +
         free_buckets_.capacity() * sizeof(Slot);
}

}  // namespace tierlab
