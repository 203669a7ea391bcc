#include "tiering/targets/SegmentUsage.h"

namespace tierlab {

SegmentUsage::SegmentUsage(std::uint32_t segments)
    : state_(segments, SegmentState::kFree),
      live_(segments, 0),
      pins_(segments, 0),
      release_when_unpinned_(segments, false) {
  for (std::uint32_t s = 0; s < segments; ++s) free_.push_back(s);
}

std::uint32_t SegmentUsage::TakeFree() {
  if (free_.empty()) return kNone;
  const std::uint32_t s = free_.front();
  free_.pop_front();
  state_[s] = SegmentState::kOpen;
  return s;
}

void SegmentUsage::Release(std::uint32_t s) {
  if (pins_[s] > 0) {
    release_when_unpinned_[s] = true;
    ++draining_;
    return;
  }
  state_[s] = SegmentState::kFree;
  free_.push_back(s);
}

bool SegmentUsage::Unpin(std::uint32_t s) {
  if (--pins_[s] > 0 || !release_when_unpinned_[s]) return false;
  release_when_unpinned_[s] = false;
  --draining_;
  state_[s] = SegmentState::kFree;
  free_.push_back(s);
  return true;
}

void SegmentUsage::Rebuild(const std::vector<bool>& in_use) {
  free_.clear();
  for (std::uint32_t s = 0; s < segments(); ++s) {
    state_[s] = in_use[s] ? SegmentState::kSealed : SegmentState::kFree;
    if (!in_use[s]) free_.push_back(s);
  }
}

std::uint32_t SegmentUsage::PickVictim() const {
  std::uint32_t best = kNone;
  for (std::uint32_t s = 0; s < segments(); ++s) {
    if (state_[s] != SegmentState::kSealed) continue;
    if (best == kNone || live_[s] < live_[best]) best = s;
  }
  return best;
}

std::uint64_t SegmentUsage::MemoryBytes() const {
  return state_.size() * (sizeof(SegmentState) + 2 * sizeof(std::uint32_t)) +
         release_when_unpinned_.size() / 8 + free_.size() * sizeof(std::uint32_t);
}

}  // namespace tierlab
