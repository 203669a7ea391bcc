#include "policies/FlatKeyIndex.h"

namespace tierlab {

FlatKeyIndex::FlatKeyIndex(std::size_t max_entries) : max_entries_(max_entries) {
  std::size_t cells = 8;
  while (cells < 2 * max_entries) cells <<= 1;
  mask_ = cells - 1;
  keys_.assign(cells, 0);
  vals_.assign(cells, kAbsent);
}

bool FlatKeyIndex::Insert(LineKey key, std::uint32_t value) {
  std::size_t i = Home(key);
  for (;; i = (i + 1) & mask_) {
    if (vals_[i] == kAbsent) break;
    if (keys_[i] == key) {
      vals_[i] = value;
      return true;
    }
  }
  if (size_ >= max_entries_) return false;
  keys_[i] = key;
  vals_[i] = value;
  ++size_;
  return true;
}

bool FlatKeyIndex::Erase(LineKey key) {
  std::size_t i = Home(key);
  for (;; i = (i + 1) & mask_) {
    if (vals_[i] == kAbsent) return false;
    if (keys_[i] == key) break;
  }
  // Backward-shift: pull later members of the probe run into the hole unless
  // their home lies cyclically in (hole, j].
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask_; vals_[j] != kAbsent; j = (j + 1) & mask_) {
    const std::size_t h = Home(keys_[j]);
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!stays) {
      keys_[hole] = keys_[j];
      vals_[hole] = vals_[j];
      hole = j;
    }
  }
  vals_[hole] = kAbsent;
  --size_;
  return true;
}

void FlatKeyIndex::Clear() {
  vals_.assign(vals_.size(), kAbsent);
  size_ = 0;
}

}  // namespace tierlab
