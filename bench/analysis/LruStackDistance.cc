#include "bench/analysis/LruStackDistance.h"

#include <algorithm>

namespace tierlab {

namespace {
constexpr std::size_t kMinCapacity = 1024;
// Slots per live key after a compaction: more means rarer compactions (each
// one scans the hash map) but a larger bitmap and tree.
constexpr std::size_t kSlotsPerLiveKey = 4;
}  // namespace

LruStackDistance::LruStackDistance()
    : tree_(kMinCapacity / 64 + 1, 0), live_bits_(kMinCapacity / 64, 0), capacity_(kMinCapacity) {}

std::size_t LruStackDistance::memory_bytes() const {
  return last_.memory_bytes() + tree_.capacity() * sizeof(std::uint32_t) +
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

// Renumbers the live slots 0..live-1 in time order (a slot's new number is
// its rank among the live slots) and rebuilds the bitmap and tree with
// capacity kSlotsPerLiveKey * live. The ranks come from per-word prefix
// counts, and every map value is rewritten in one sequential pass over the
// map, so no per-key random lookups are needed.
void LruStackDistance::Compact() {
  const std::size_t old_words = capacity_ / 64;
  std::vector<std::uint32_t> before(old_words);  // live slots in words [0, w)
  std::uint32_t running = 0;
  for (std::size_t w = 0; w < old_words; ++w) {
    before[w] = running;
    running += static_cast<std::uint32_t>(__builtin_popcountll(live_bits_[w]));
  }
  last_.ForEach([&](std::uint64_t, std::uint64_t& slot) {
    const std::size_t w = static_cast<std::size_t>(slot / 64);
    const std::uint64_t below = live_bits_[w] & ((std::uint64_t{1} << (slot % 64)) - 1);
    slot = before[w] + static_cast<std::uint64_t>(__builtin_popcountll(below));
  });

  std::size_t cap = std::max(kMinCapacity, (live_ + 1) * kSlotsPerLiveKey);
  cap = (cap + 63) / 64 * 64;
  live_bits_.assign(cap / 64, 0);
  live_bits_.shrink_to_fit();
  for (std::size_t w = 0; w < live_ / 64; ++w) live_bits_[w] = ~std::uint64_t{0};
  if (live_ % 64 != 0) live_bits_[live_ / 64] = (std::uint64_t{1} << (live_ % 64)) - 1;
  capacity_ = cap;
  const std::size_t words = cap / 64;
  tree_.assign(words + 1, 0);
  tree_.shrink_to_fit();
  // Linear Fenwick build from the per-word counts.
  for (std::size_t i = 1; i <= words; ++i) {
    tree_[i] += static_cast<std::uint32_t>(__builtin_popcountll(live_bits_[i - 1]));
    std::size_t parent = i + (i & (~i + 1));
    if (parent <= words) tree_[parent] += tree_[i];
  }
  now_ = live_;
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
