#include "policies/SmqPolicy.h"

#include <algorithm>

namespace tierlab {

SmqPolicy::SmqPolicy(std::size_t capacity)
    : period_(std::max<std::size_t>(capacity, 16)),
      lists_(capacity, kLevels),
      level_(capacity, 0),
      hit_bits_((capacity + 63) / 64, 0) {}

void SmqPolicy::Tick() {
  if (++ops_ < period_) return;
  ops_ = 0;
  Redistribute();
  std::fill(hit_bits_.begin(), hit_bits_.end(), 0);
}

bool SmqPolicy::TestAndSetHit(Slot s) {
  std::uint64_t& w = hit_bits_[s / 64];
  const std::uint64_t bit = std::uint64_t{1} << (s % 64);
  const bool was = (w & bit) != 0;
  w |= bit;
  return was;
}

void SmqPolicy::Insert(Slot s, LineKey) {
  if (lists_.Linked(s)) return;
  level_[s] = 0;
  lists_.PushBack(0, s);
  hit_bits_[s / 64] &= ~(std::uint64_t{1} << (s % 64));
  ++size_;
  Tick();
}

void SmqPolicy::Touch(Slot s) {
  if (!lists_.Linked(s)) return;
  if (!TestAndSetHit(s)) {
    const unsigned from = level_[s];
    const unsigned to = std::min(from + 1, kLevels - 1);
    if (to != from) {
      // Swap with the oldest line of the destination level.
      const Slot d = lists_.Front(to);
      if (d != SlotLists::kNil) {
        lists_.MoveToBack(to, from, d);
        level_[d] = static_cast<std::uint8_t>(from);
      }
    }
    lists_.MoveToBack(from, to, s);
    level_[s] = static_cast<std::uint8_t>(to);
  }
  Tick();
}

void SmqPolicy::Remove(Slot s) {
  if (!lists_.Linked(s)) return;
  lists_.Unlink(level_[s], s);
  --size_;
}

std::optional<Slot> SmqPolicy::Evict(EvictFilter filter) {
  std::size_t rejected = 0;
  for (unsigned level = 0; level < kLevels; ++level) {
    for (Slot s = lists_.Front(level); s != SlotLists::kNil; s = lists_.Next(s)) {
      if (filter(s)) {
        lists_.Unlink(level, s);
        --size_;
        return s;
      }
      if (++rejected >= kEvictScanLimit) return std::nullopt;
    }
  }
  return std::nullopt;
}

void SmqPolicy::Redistribute() {
  const std::size_t per = size_ / kLevels;
  const std::size_t extra = size_ % kLevels;
  for (unsigned level = 0; level + 1 < kLevels; ++level) {
    const std::size_t target = per + (level < extra ? 1 : 0);
    // Pull the oldest lines of the nearest non-empty level above down.
    unsigned src = level + 1;
    while (lists_.Size(level) < target) {
      while (src < kLevels && lists_.Size(src) == 0) ++src;
      if (src == kLevels) break;
      const Slot s = lists_.Front(src);
      lists_.MoveToBack(src, level, s);
      level_[s] = static_cast<std::uint8_t>(level);
    }
    // Push the newest lines of a too-full level up, as a block in their
    // order (smq pops them one by one from the tail, which reverses them).
    if (lists_.Size(level) > target) {
      Slot s = lists_.Back(level);
      for (std::size_t excess = lists_.Size(level) - target; excess > 1; --excess) {
        s = lists_.Prev(s);
      }
      while (s != SlotLists::kNil) {
        const Slot next = lists_.Next(s);
        lists_.MoveToBack(level, level + 1, s);
        level_[s] = static_cast<std::uint8_t>(level + 1);
        s = next;
      }
    }
  }
}

std::size_t SmqPolicy::MemoryBytes() const {
  return sizeof(*this) + lists_.MemoryBytes() + level_.capacity() +
         hit_bits_.capacity() * sizeof(std::uint64_t);
}

}  // namespace tierlab
