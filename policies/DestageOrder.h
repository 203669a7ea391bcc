#pragma once
// Destage order: the order in which a write-back cache writes dirty lines to
// the origin. `fifo` writes the oldest first (bounded dirty age); `lba` sorts
// by volume address and hands out runs of adjacent lines that the cache
// coalesces into large sequential writes (kind to HDDs).
//
// Pure data structure over volume line numbers; no I/O.
// Threading: not thread-safe; one cache target owns one order.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tierlab {

class DestageOrder {
 public:
  virtual ~DestageOrder() = default;
  // `line` became dirty at `now_ns` (no-op if already tracked: a rewrite does
  // not make a line younger for FIFO, as in dm-writecache).
  virtual void MarkDirty(std::uint64_t line, std::int64_t now_ns) = 0;
  // `line` is clean again or gone (destaged, invalidated, discarded).
  virtual void Remove(std::uint64_t line) = 0;
  // Appends one run of ascending adjacent lines (at most `max_lines`) to
  // destage next to `out` and stops tracking them (the caller calls MarkDirty
  // again if the write fails or the line is rewritten during destage). One
  // call is one origin write, so the caller's in-flight budget holds.
  virtual void Next(std::size_t max_lines, std::vector<std::uint64_t>* out) = 0;
  // Dirty-since time of the oldest tracked line, or -1 when empty.
  virtual std::int64_t OldestDirtyNs() const = 0;
  virtual std::size_t Size() const = 0;
  virtual std::string Name() const = 0;
  // Brings what MarkDirty(line) will touch into the CPU cache (a hint for a
  // write that is coming; no effect on the order).
  virtual void Prefetch(std::uint64_t line) const {}
};

}  // namespace tierlab
