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
// Assumes the times passed to Add() never decrease (engine time), so the front
// is also the minimum. Threading: not thread-safe.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>

namespace tierlab {

class DirtyAgeQueue {
 public:
  // Adds `line` dirty since `now_ns`; false (and no change) if already present.
  bool Add(std::uint64_t line, std::int64_t now_ns);
  // False if `line` was not present.
  bool Remove(std::uint64_t line);
  bool Contains(std::uint64_t line) const { return live_.count(line) != 0; }

  bool Empty() const { return live_.empty(); }
  std::size_t Size() const { return live_.size(); }
  // Oldest line and its time; precondition: !Empty().
  std::uint64_t FrontLine() const { return queue_.front().line; }
  std::int64_t FrontNs() const { return queue_.front().ns; }
  void PopFront();

  std::size_t QueueEntries() const { return queue_.size(); }  // live + stale, for tests

 private:
  struct Entry {
    std::uint64_t line;
    std::uint64_t seq;
    std::int64_t ns;
  };
  bool IsLive(const Entry& e) const;
  void DropStaleFront();
  void MaybeCompact();

  std::deque<Entry> queue_;
  std::unordered_map<std::uint64_t, std::uint64_t> live_;  // line -> seq of its entry
  std::uint64_t next_seq_ = 0;
};

}  // namespace tierlab
