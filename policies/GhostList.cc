#include "policies/GhostList.h"

namespace tierlab {

GhostList::GhostList(std::size_t capacity)
    : links_(capacity, 1), index_(capacity), keys_(capacity, 0) {
  free_.reserve(capacity);
  for (std::size_t i = capacity; i > 0; --i) free_.push_back(static_cast<Slot>(i - 1));
}

bool GhostList::Erase(LineKey key) {
  const std::uint32_t node = index_.Find(key);
  if (node == FlatKeyIndex::kAbsent) return false;
  links_.Unlink(0, node);
  index_.Erase(key);
  free_.push_back(node);
  return true;
}

void GhostList::PushBack(LineKey key) {
  if (keys_.empty()) return;
  Erase(key);
  if (free_.empty()) PopFront();
  const Slot node = free_.back();
  free_.pop_back();
  keys_[node] = key;
  index_.Insert(key, node);
  links_.PushBack(0, node);
}

bool GhostList::PopFront() {
  const Slot node = links_.Front(0);
  if (node == SlotLists::kNil) return false;
  links_.Unlink(0, node);
  index_.Erase(keys_[node]);
  free_.push_back(node);
  return true;
}

}  // namespace tierlab
