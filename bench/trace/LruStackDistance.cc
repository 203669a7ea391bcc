#include "bench/trace/LruStackDistance.h"

#include <algorithm>

namespace tierlab {

namespace {
constexpr std::size_t kMinCapacity = 1024;
}

LruStackDistance::LruStackDistance()
    : tree_(kMinCapacity + 1, 0),
      slot_key_(kMinCapacity),
      live_bits_(kMinCapacity / 64, 0),
      capacity_(kMinCapacity) {}

std::size_t LruStackDistance::memory_bytes() const {
  return last_.memory_bytes() + tree_.capacity() * sizeof(std::uint32_t) +
         slot_key_.capacity() * sizeof(std::uint64_t) +
         live_bits_.capacity() * sizeof(std::uint64_t);
}

void LruStackDistance::FenwickAdd(std::size_t slot, int delta) {
  for (std::size_t i = slot + 1; i <= capacity_; i += i & (~i + 1)) {
    tree_[i] += static_cast<std::uint32_t>(delta);
  }
}

std::uint64_t LruStackDistance::FenwickPrefix(std::size_t slot) const {
  std::uint64_t sum = 0;
  for (std::size_t i = slot + 1; i > 0; i &= i - 1) sum += tree_[i];
  return sum;
}

// Renumbers the live slots 0..live-1 in time order and rebuilds the tree
// with capacity 2 * live (at least kMinCapacity).
void LruStackDistance::Compact() {
  std::size_t cap = std::max(kMinCapacity, (live_ + 1) * 2);
  cap = (cap + 63) / 64 * 64;
  std::size_t j = 0;
  for (std::size_t t = 0; t < now_; ++t) {
    if ((live_bits_[t / 64] >> (t % 64)) & 1) {
      std::uint64_t key = slot_key_[t];
      slot_key_[j] = key;
      *last_.Find(key) = j;
      ++j;
    }
  }
  slot_key_.resize(cap);
  slot_key_.shrink_to_fit();
  live_bits_.assign(cap / 64, 0);
  live_bits_.shrink_to_fit();
  for (std::size_t t = 0; t < j; ++t) live_bits_[t / 64] |= std::uint64_t{1} << (t % 64);
  capacity_ = cap;
  tree_.assign(cap + 1, 0);
  tree_.shrink_to_fit();
  // Ones at 1-based positions 1..j: node i covers (i - lowbit(i), i].
  for (std::size_t i = 1; i <= cap; ++i) {
    std::size_t low = i - (i & (~i + 1));
    std::size_t hi = std::min(i, j);
    tree_[i] = hi > low ? static_cast<std::uint32_t>(hi - low) : 0;
  }
  now_ = j;
}

std::uint64_t LruStackDistance::Access(std::uint64_t key) {
  if (now_ == capacity_) Compact();
  std::uint64_t distance = kCold;
  auto [slot, inserted] = last_.Insert(key, now_);
  if (!inserted) {
    std::size_t old = static_cast<std::size_t>(*slot);
    distance = live_ - FenwickPrefix(old);
    FenwickAdd(old, -1);
    live_bits_[old / 64] &= ~(std::uint64_t{1} << (old % 64));
    *slot = now_;
  } else {
    ++live_;
  }
  FenwickAdd(now_, +1);
  slot_key_[now_] = key;
  live_bits_[now_ / 64] |= std::uint64_t{1} << (now_ % 64);
  ++now_;
  return distance;
}

bool LruStackDistance::Remove(std::uint64_t key) {
  std::uint64_t* slot = last_.Find(key);
  if (slot == nullptr) return false;
  std::size_t s = static_cast<std::size_t>(*slot);
  FenwickAdd(s, -1);
  live_bits_[s / 64] &= ~(std::uint64_t{1} << (s % 64));
  last_.Erase(key);
  --live_;
  return true;
}

}  // namespace tierlab
