#include "cachedev/LineTable.h"

#include <algorithm>
#include <cassert>

namespace tierlab {

LineTable::LineTable(std::uint32_t capacity, SlotPlacement placement)
    : capacity_(capacity),
      words_(capacity, 0),
      placement_(placement),
      free_heads_(placement.devices(), kLink) {
  assert(capacity <= kMaxSlots);
  // Load factor 2 (short chains) while the 16-byte budget allows the extra
  // byte: below 4 Mi lines LRU links are at most 23 bits each.
  const std::size_t per_head = capacity < kSparseHeadsFrom ? 2 : 4;
  heads_.assign(std::max<std::size_t>(1, (std::size_t{capacity} + per_head - 1) / per_head), kLink);
  // Free lists in ascending slot order, so a fresh cache fills a device's
  // slots in order and sequential fills land in adjacent slots (coalescable
  // I/O).
  for (std::uint32_t s = capacity; s-- > 0;) {
    words_[s] = (static_cast<std::uint64_t>(State::kFree) << kStateShift);
    std::uint32_t& head = free_heads_[placement_.Device(s)];
    SetLink(s, head);
    head = s;
  }
  free_count_ = capacity;
}

Slot LineTable::AllocFree(std::uint32_t preferred) {
  if (free_count_ == 0) return kNone;
  const auto n = static_cast<std::uint32_t>(free_heads_.size());
  std::uint32_t d = preferred < n ? preferred : 0;
  while (free_heads_[d] == kLink) d = d + 1 == n ? 0 : d + 1;  // free_count_ > 0: ends
  const Slot s = free_heads_[d];
  free_heads_[d] = Link(s);
  --free_count_;
  SetState(s, State::kReserved);
  SetLink(s, kLink);
  return s;
}

void LineTable::Release(Slot s) {
  assert(state(s) == State::kReserved);
  SetState(s, State::kFree);
  std::uint32_t& head = free_heads_[placement_.Device(s)];
  SetLink(s, head);
  head = s;
  ++free_count_;
}

void LineTable::Insert(Slot s, std::uint64_t key) {
  assert(state(s) == State::kReserved && key <= kMaxKey && Find(key) == kNone);
  words_[s] = key | (static_cast<std::uint64_t>(State::kResident) << kStateShift);
  std::uint32_t& head = heads_[Bucket(key)];
  SetLink(s, head);
  head = s;
  ++resident_;
}

void LineTable::Remove(Slot s) {
  assert(state(s) == State::kResident);
  SetDirty(s, false);
  std::uint32_t& head = heads_[Bucket(Key(s))];
  if (head == s) {
    head = Link(s);
  } else {
    std::uint32_t p = head;
    while (Link(p) != s) p = Link(p);
    SetLink(p, Link(s));
  }
  SetLink(s, kLink);
  SetState(s, State::kReserved);
  --resident_;
}

void LineTable::WarmChains(const std::uint64_t* keys, std::size_t n) const {
  // Three chain positions cover ~85% of hits at load factor 2 (a resident
  // key's position is 1 + Poisson(2) / 2 on average); Find walks the rest.
  constexpr int kRounds = 3;
  std::uint32_t cursor[kWarmBatch];
  for (std::size_t base = 0; base < n; base += kWarmBatch) {
    const std::size_t m = std::min(kWarmBatch, n - base);
    for (std::size_t i = 0; i < m; ++i) {
      cursor[i] = heads_[Bucket(keys[base + i])];
      if (cursor[i] != kLink) __builtin_prefetch(&words_[cursor[i]]);
    }
    for (int round = 1; round < kRounds; ++round) {
      for (std::size_t i = 0; i < m; ++i) {
        if (cursor[i] == kLink) continue;
        const std::uint64_t w = words_[cursor[i]];
        cursor[i] = (w & kKeyMask) == keys[base + i]
                        ? kLink
                        : static_cast<std::uint32_t>((w >> kLinkShift) & kLink);
        if (cursor[i] != kLink) __builtin_prefetch(&words_[cursor[i]]);
      }
    }
  }
}

void LineTable::SetDirty(Slot s, bool dirty) {
  const bool was = Dirty(s);
  if (was == dirty) return;
  if (dirty) {
    words_[s] |= kDirtyBit;
    ++dirty_;
  } else {
    words_[s] &= ~kDirtyBit;
    --dirty_;
  }
}

}  // namespace tierlab
