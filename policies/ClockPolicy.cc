#include "policies/ClockPolicy.h"

namespace tierlab {

void ClockPolicy::Insert(Slot s, LineKey) {
  if (state_[s] & kResident) return;
  state_[s] = kResident;
  ++size_;
}

void ClockPolicy::Touch(Slot s) {
  if (state_[s] & kResident) state_[s] |= kReferenced;
}

void ClockPolicy::Remove(Slot s) {
  if (!(state_[s] & kResident)) return;
  state_[s] = 0;
  --size_;
}

std::optional<Slot> ClockPolicy::Evict(EvictFilter filter) {
  if (size_ == 0) return std::nullopt;
  const std::size_t n = state_.size();
  std::size_t rejected = 0;
  // Two sweeps clear every bit; the extra steps cover rejected slots.
  for (std::size_t step = 0; step < 2 * n + kEvictScanLimit + 1; ++step) {
    const Slot s = static_cast<Slot>(hand_);
    hand_ = hand_ + 1 == n ? 0 : hand_ + 1;
    std::uint8_t& st = state_[s];
    if (!(st & kResident)) continue;
    if (!filter(s)) {
      if (++rejected >= kEvictScanLimit) return std::nullopt;
      continue;
    }
    if (st & kReferenced) {
      st = kResident;  // second chance
      continue;
    }
    st = 0;
    --size_;
    return s;
  }
  return std::nullopt;
}

}  // namespace tierlab
