#include "bench/workload/RandomMap.h"

#include <algorithm>
#include <bit>

namespace tierlab {
namespace {

std::uint64_t Words(std::uint64_t bits) {
  return (bits + 63) / 64;
}

}  // namespace

std::uint64_t RandomMap::BytesFor(std::uint64_t blocks) {
  std::uint64_t bytes = 0;
  std::uint64_t bits = blocks;
  do {
    const std::uint64_t words = Words(bits);
    bytes += words * sizeof(std::uint64_t);
    bits = words;
  } while (bits > 1);
  return bytes;
}

void RandomMap::Allocate() {
  levels_.clear();
  std::uint64_t bits = blocks_;
  do {
    const std::uint64_t words = Words(bits);
    auto& level = levels_.emplace_back(words, 0);
    if (bits % 64 != 0) level.back() = ~0ULL << (bits % 64);
    bits = words;
  } while (bits > 1);
}

void RandomMap::Clear() {
  marked_ = 0;
  // In place: a time based job clears its map every pass.
  std::uint64_t bits = blocks_;
  for (auto& level : levels_) {
    std::fill(level.begin(), level.end(), 0);
    if (bits % 64 != 0) level.back() = ~0ULL << (bits % 64);
    bits = level.size();
  }
}

std::uint64_t RandomMap::MarkRun(std::uint64_t block, std::uint64_t count) {
  if (block >= blocks_) return 0;
  if (levels_.empty()) Allocate();
  count = std::min(count, blocks_ - block);
  std::uint64_t done = 0;
  for (; done < count; ++done) {
    std::uint64_t bit = block + done;
    std::uint64_t& word = levels_[0][bit >> 6];
    const std::uint64_t mask = 1ULL << (bit & 63);
    if ((word & mask) != 0) break;
    word |= mask;
    ++marked_;
    // A word that is now full sets its bit one level up, and so on.
    for (std::size_t k = 0; k + 1 < levels_.size() && levels_[k][bit >> 6] == ~0ULL; ++k) {
      bit >>= 6;
      levels_[k + 1][bit >> 6] |= 1ULL << (bit & 63);
    }
  }
  return done;
}

std::uint64_t RandomMap::FirstFreeFrom(std::uint64_t from) const {
  if (from >= blocks_) return kNone;
  if (levels_.empty()) return from;
  // Up: the first level whose word, from the position's bit on, has a free
  // bit; each step up starts after the full word below.
  std::size_t k = 0;
  std::uint64_t pos = from;
  std::uint64_t free = 0;
  for (;;) {
    const auto& level = levels_[k];
    if ((pos >> 6) >= level.size()) return kNone;
    free = ~level[pos >> 6] & (~0ULL << (pos & 63));
    if (free != 0) break;
    if (k + 1 == levels_.size()) return kNone;
    pos = (pos >> 6) + 1;
    ++k;
  }
  pos = (pos & ~63ULL) + static_cast<std::uint64_t>(std::countr_zero(free));
  // Down: the free bit names a word below that has a free bit.
  while (k > 0) {
    --k;
    pos = pos * 64 + static_cast<std::uint64_t>(std::countr_zero(~levels_[k][pos]));
  }
  return pos < blocks_ ? pos : kNone;
}

std::uint64_t RandomMap::NextFree(std::uint64_t block) const {
  if (Full() || blocks_ == 0) return kNone;
  const std::uint64_t next = block + 1 >= blocks_ ? 0 : block + 1;
  const std::uint64_t found = FirstFreeFrom(next);
  return found != kNone ? found : FirstFreeFrom(0);
}

}  // namespace tierlab
