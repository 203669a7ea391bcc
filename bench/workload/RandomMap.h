#pragma once
// fio's random map: a bit per block of a random job's region, set once an
// I/O has covered the block, so that each pass of the job touches every
// block exactly once (fio keeps one unless norandommap). A random draw that
// lands on a covered block takes the next uncovered one after it, wrapping
// to the region's start, as fio's axmap_next_free; once every block is
// covered the pass is over.
//
// The map is what makes fio's random reads over a region larger than a
// cache miss more than draws with repeats do: a block comes back only in
// the next pass, so the blocks still to come in a pass are the ones
// longest unread. An LRU cache of half the region hits half of a pass's
// first reads, none past its middle, 1/2 - ln(2)/2 = 15 % over the pass
// (measured: 14.9 %); drawn with repeats it hits 1/2 throughout (49.3 %).
// docs/FIO-COMPAT.md (norandommap) has the command.
//
// Levels of summary bits above the blocks (a bit per 64-bit word below it,
// set when that word is full) find the next uncovered block in a few word
// reads however full the map is. Memory: blocks / 8 bytes and 1/63 more for
// the summaries, allocated at the first mark (a map never marked holds
// none, so copies of a fresh generator cost nothing).

#include <cstdint>
#include <vector>

#include "policies/HugePageAllocator.h"

namespace tierlab {

class RandomMap {
 public:
  static constexpr std::uint64_t kNone = UINT64_MAX;

  RandomMap() = default;
  explicit RandomMap(std::uint64_t blocks) : blocks_(blocks) {}

  // What a map of `blocks` blocks takes once marked.
  static std::uint64_t BytesFor(std::uint64_t blocks);

  std::uint64_t blocks() const { return blocks_; }
  std::uint64_t marked() const { return marked_; }
  bool Full() const { return blocks_ != 0 && marked_ == blocks_; }
  bool Marked(std::uint64_t block) const {
    if (levels_.empty() || block >= blocks_) return false;
    return (levels_[0][block >> 6] >> (block & 63) & 1) != 0;
  }
  // The word of `block`, into the CPU cache ahead of a Marked(block).
  void Prefetch(std::uint64_t block) const {
    if (!levels_.empty() && block < blocks_) __builtin_prefetch(&levels_[0][block >> 6]);
  }
  // Marks up to `count` blocks from `block` on, stopping before the first
  // one already marked and at the map's end; returns how many it marked.
  std::uint64_t MarkRun(std::uint64_t block, std::uint64_t count);
  // The first unmarked block after `block`, wrapping to block 0; kNone
  // when every block is marked.
  std::uint64_t NextFree(std::uint64_t block) const;
  // Every block unmarked again (a new pass).
  void Clear();

 private:
  void Allocate();
  // The first unmarked block at or after `from`, or kNone.
  std::uint64_t FirstFreeFrom(std::uint64_t from) const;

  std::uint64_t blocks_ = 0;
  std::uint64_t marked_ = 0;
  // levels_[0] has a bit per block; levels_[k] a bit per word of level
  // k - 1, set when that word is full. Bits past the end of a level are
  // set, so they never look free; the last level is one word. Large levels
  // are on huge pages: the picks of a big region read all over the map.
  std::vector<std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>>> levels_;
};

}  // namespace tierlab
