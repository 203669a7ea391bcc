#include "policies/CacheSimulator.h"

namespace tierlab {

CacheSimulator::CacheSimulator(ReplacementPolicy* policy, std::size_t capacity, bool check)
    : policy_(policy),
      check_(check),
      index_(capacity),
      slot_key_(capacity, 0),
      used_(capacity, false) {
  free_.reserve(capacity);
  for (std::size_t i = capacity; i > 0; --i) free_.push_back(static_cast<Slot>(i - 1));
}

CacheSimulator::Outcome CacheSimulator::Access(LineKey key) {
  const std::uint32_t found = index_.Find(key);
  if (found != FlatKeyIndex::kAbsent) {
    ++hits_;
    policy_->Touch(found);
    return Outcome::kHit;
  }
  ++misses_;
  if (slot_key_.empty()) {
    ++bypasses_;
    return Outcome::kBypass;
  }
  Slot s;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
  } else {
    const std::optional<Slot> victim = policy_->Evict(filter_);
    if (!victim) {
      ++bypasses_;
      return Outcome::kBypass;
    }
    s = *victim;
    if (s >= used_.size() || !used_[s]) {
      ++violations_;  // the policy evicted a slot that was not resident
      return Outcome::kBypass;
    }
    if (check_ && !filter_(s)) ++violations_;
    index_.Erase(slot_key_[s]);
  }
  used_[s] = true;
  slot_key_[s] = key;
  index_.Insert(key, s);
  policy_->Insert(s, key);
  if (check_ && policy_->Size() != index_.Size()) ++violations_;
  return Outcome::kMiss;
}

bool CacheSimulator::Remove(LineKey key) {
  const std::uint32_t s = index_.Find(key);
  if (s == FlatKeyIndex::kAbsent) return false;
  policy_->Remove(s);
  index_.Erase(key);
  used_[s] = false;
  free_.push_back(s);
  if (check_ && policy_->Size() != index_.Size()) ++violations_;
  return true;
}

}  // namespace tierlab
