#include "policies/S3FifoPolicy.h"

#include <algorithm>

namespace tierlab {

namespace {

// floor(capacity x ratio); for the default 0.1 this is capacity / 10 exactly
// (0.1 as a double is slightly above 0.1, and rounding is monotonic).
std::size_t Share(std::size_t capacity, double ratio) {
  return static_cast<std::size_t>(static_cast<double>(capacity) * ratio);
}

}  // namespace

S3FifoPolicy::S3FifoPolicy(std::size_t capacity, const Params& params)
    : move_to_main_threshold_(params.move_to_main_threshold),
      small_target_(std::max<std::size_t>(1, Share(capacity, params.small_size_ratio))),
      ghost_target_(std::max<std::size_t>(
          1, params.ghost_size_ratio > 0 ? Share(capacity, params.ghost_size_ratio)
                                         : capacity - Share(capacity, params.small_size_ratio))),
      lists_(capacity, 2),
      keys_(capacity, 0),
      state_(capacity, 0),
      ghost_(ghost_target_ + 1) {}

void S3FifoPolicy::Insert(Slot s, LineKey key) {
  if (lists_.Linked(s)) return;
  keys_[s] = key;
  const bool main = ghost_.Erase(key);
  state_[s] = main ? kInMain : 0;
  lists_.PushBack(main ? kMain : kSmall, s);
  // One spare ghost entry: the eviction made for this miss must not push out
  // the key just looked up (the paper checks G before evicting).
  while (ghost_.Size() > ghost_target_) ghost_.PopFront();
}

void S3FifoPolicy::Touch(Slot s) {
  if (!lists_.Linked(s)) return;
  std::uint8_t& st = state_[s];
  if ((st & kFreqMask) < kFreqMask) ++st;
}

void S3FifoPolicy::Remove(Slot s) {
  if (lists_.Linked(s)) lists_.Unlink(state_[s] & kInMain ? kMain : kSmall, s);
}

std::optional<Slot> S3FifoPolicy::EvictSmall(EvictFilter filter, std::size_t* rejected) {
  Slot s = lists_.Front(kSmall);
  while (s != SlotLists::kNil) {
    const Slot next = lists_.Next(s);
    if (!filter(s)) {
      if (++*rejected >= kEvictScanLimit) return std::nullopt;
    } else if ((state_[s] & kFreqMask) >= move_to_main_threshold_) {
      lists_.MoveToBack(kSmall, kMain, s);
      state_[s] = kInMain;  // counter cleared on the move
    } else {
      lists_.Unlink(kSmall, s);
      ghost_.PushBack(keys_[s]);
      return s;
    }
    s = next;
  }
  return std::nullopt;
}

std::optional<Slot> S3FifoPolicy::EvictMain(EvictFilter filter, std::size_t* rejected) {
  // Lines reinserted at the back are met again; each needs at most three
  // passes to reach counter 0, so this ends.
  Slot s = lists_.Front(kMain);
  while (s != SlotLists::kNil) {
    const Slot next = lists_.Next(s);
    if (!filter(s)) {
      if (++*rejected >= kEvictScanLimit) return std::nullopt;
    } else if (state_[s] & kFreqMask) {
      --state_[s];
      lists_.MoveToBack(kMain, kMain, s);
      if (next == SlotLists::kNil) {
        s = lists_.Front(kMain);  // it was the only line left ahead: go round
        continue;
      }
    } else {
      lists_.Unlink(kMain, s);
      return s;
    }
    s = next;
  }
  return std::nullopt;
}

std::optional<Slot> S3FifoPolicy::Evict(EvictFilter filter) {
  std::size_t rejected = 0;
  const bool small_first = lists_.Size(kSmall) >= small_target_ || lists_.Size(kMain) == 0;
  if (small_first) {
    if (auto s = EvictSmall(filter, &rejected)) return s;
    if (rejected >= kEvictScanLimit) return std::nullopt;
    return EvictMain(filter, &rejected);  // S emptied into M, or all of S rejected
  }
  if (auto s = EvictMain(filter, &rejected)) return s;
  if (rejected >= kEvictScanLimit) return std::nullopt;
  return EvictSmall(filter, &rejected);
}

std::size_t S3FifoPolicy::MemoryBytes() const {
  return sizeof(*this) + lists_.MemoryBytes() + keys_.capacity() * sizeof(LineKey) +
         state_.capacity() + ghost_.MemoryBytes();
}

}  // namespace tierlab
