#pragma once
// The set of dirty lines in the order they became dirty, with O(1) amortised
// add, remove-anywhere and oldest-first access. Backs both destage orders:
// FIFO destages from its front; LBA keeps it only to answer OldestDirtyNs().
//
// Removal is lazy: a removed line leaves a stale entry in the queue that is
// skipped (each entry carries a sequence number that must match the live
// map), the front is cleaned eagerly so that Front() is always live, and the
// queue is compacted when stale entries outnumber live ones.
//
// The live map (line -> sequence number) is a flat open-addressing table
// (linear probing, backward-shift deletion, at most half full, doubling), so
// marking a line dirty allocates nothing in the steady state. Memory: the
// queue's 24-byte entry plus 32-64 bytes of table per dirty line.
//
// Assumes the times passed to Add() never decrease (engine time), so the front
// is also the minimum. Lines must be < UINT64_MAX. Threading: not thread-safe.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "policies/HugePageAllocator.h"

namespace tierlab {

class DirtyAgeQueue {
 public:
  DirtyAgeQueue();

  // Adds `line` dirty since `now_ns`; false (and no change) if already present.
  bool Add(std::uint64_t line, std::int64_t now_ns);
  // False if `line` was not present.
  bool Remove(std::uint64_t line);
  bool Contains(std::uint64_t line) const { return FindIndex(line) != kNoIndex; }
  // Prefetches the live-map slot Add/Remove/Contains(line) will probe first.
  void Prefetch(std::uint64_t line) const {
    if (!live_.empty()) __builtin_prefetch(&live_[Home(line)]);
  }

  bool Empty() const { return live_size_ == 0; }
  std::size_t Size() const { return live_size_; }
  // Oldest line and its time; precondition: !Empty().
  std::uint64_t FrontLine() const { return queue_.front().line; }
  std::int64_t FrontNs() const { return queue_.front().ns; }
  void PopFront();

  std::size_t QueueEntries() const { return queue_.size(); }  // live + stale, for tests

 private:
  static constexpr std::uint64_t kEmpty = UINT64_MAX;
  static constexpr std::size_t kNoIndex = SIZE_MAX;
  struct Entry {
    std::uint64_t line;
    std::uint64_t seq;
    std::int64_t ns;
  };
  struct Slot {
    std::uint64_t line = kEmpty;
    std::uint64_t seq = 0;
  };
  bool IsLive(const Entry& e) const;
  void DropStaleFront();
  void MaybeCompact();

  // The live map.
  std::size_t Home(std::uint64_t line) const {
    std::uint64_t z = line * 0x9E3779B97F4A7C15ull;
    return static_cast<std::size_t>((z ^ (z >> 29)) & mask_);
  }
  std::size_t FindIndex(std::uint64_t line) const;
  void EraseAt(std::size_t i);
  void Grow();

  std::deque<Entry> queue_;
  // line -> seq of its entry. Huge pages once large: a write-back run adds
  // its dirty lines at random, and the table doubles while they pile up.
  std::vector<Slot, HugePageAllocator<Slot>> live_;
  std::size_t mask_ = 0;
  std::size_t live_size_ = 0;
  std::uint64_t next_seq_ = 0;
};

}  // namespace tierlab
