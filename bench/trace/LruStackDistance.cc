#include "bench/trace/LruStackDistance.h"

#include <algorithm>

namespace tierlab {

namespace {
constexpr std::size_t kMinCapacity = 1024;
}

LruStackDistance::LruStackDistance()
    : tree_(kMinCapacity / 64 + 1, 0),
      slot_key_(kMinCapacity),
      live_bits_(kMinCapacity / 64, 0),
      capacity_(kMinCapacity) {}

std::size_t LruStackDistance::memory_bytes() const {
  return last_.memory_bytes() + tree_.capacity() * sizeof(std::uint32_t) +
         slot_key_.capacity() * sizeof(std::uint64_t) +
         live_bits_.capacity() * sizeof(std::uint64_t);
}

void LruStackDistance::SetLive(std::size_t slot) {
  live_bits_[slot / 64] |= std::uint64_t{1} << (slot % 64);
  std::size_t words = capacity_ / 64;
  for (std::size_t i = slot / 64 + 1; i <= words; i += i & (~i + 1)) ++tree_[i];
}

void LruStackDistance::ClearLive(std::size_t slot) {
  live_bits_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
  std::size_t words = capacity_ / 64;
  for (std::size_t i = slot / 64 + 1; i <= words; i += i & (~i + 1)) --tree_[i];
}

std::uint64_t LruStackDistance::LiveUpTo(std::size_t slot) const {
  std::size_t word = slot / 64;
  unsigned bit = slot % 64;
  std::uint64_t mask = bit == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << bit) - 1;
  std::uint64_t sum = static_cast<std::uint64_t>(__builtin_popcountll(live_bits_[word] & mask));
  for (std::size_t i = word; i > 0; i &= i - 1) sum += tree_[i];  // words [0, word)
  return sum;
}

// Renumbers the live slots 0..live-1 in time order and rebuilds the bitmap
// and tree with capacity 2 * live (at least kMinCapacity).
void LruStackDistance::Compact() {
  std::size_t cap = std::max(kMinCapacity, (live_ + 1) * 2);
  cap = (cap + 63) / 64 * 64;
  std::size_t j = 0;
  for (std::size_t w = 0; w * 64 < now_; ++w) {
    std::uint64_t bits = live_bits_[w];
    while (bits != 0) {
      std::size_t t = w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
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
  std::size_t words = cap / 64;
  tree_.assign(words + 1, 0);
  tree_.shrink_to_fit();
  // Linear Fenwick build from the per-word counts.
  for (std::size_t i = 1; i <= words; ++i) {
    tree_[i] += static_cast<std::uint32_t>(__builtin_popcountll(live_bits_[i - 1]));
    std::size_t parent = i + (i & (~i + 1));
    if (parent <= words) tree_[parent] += tree_[i];
  }
  now_ = j;
}

std::uint64_t LruStackDistance::Access(std::uint64_t key) {
  if (now_ == capacity_) Compact();
  std::uint64_t distance = kCold;
  auto [slot, inserted] = last_.Insert(key, now_);
  if (!inserted) {
    std::size_t old = static_cast<std::size_t>(*slot);
    distance = live_ - LiveUpTo(old);
    ClearLive(old);
    *slot = now_;
  } else {
    ++live_;
  }
  SetLive(now_);
  slot_key_[now_] = key;
  ++now_;
  return distance;
}

bool LruStackDistance::Remove(std::uint64_t key) {
  std::uint64_t* slot = last_.Find(key);
  if (slot == nullptr) return false;
  std::size_t s = static_cast<std::size_t>(*slot);
  ClearLive(s);
  last_.Erase(key);
  --live_;
  return true;
}

}  // namespace tierlab
