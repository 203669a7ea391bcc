#pragma once
// `lba` destage order: dirty lines sorted by volume line number, handed out as
// one run of ascending adjacent lines at a time, starting at an elevator
// cursor that sweeps upward and wraps to the lowest dirty line at the end of
// the volume (C-SCAN). The cache turns each run into one large sequential
// write, which is what keeps an HDD origin near its streaming bandwidth.
//
// Next(max_lines) returns exactly one run: the first dirty line at or above
// the cursor, then its successors while they are dirty and adjacent, up to
// max_lines; the cursor moves past the run. A gap ends the run even if
// max_lines is not reached (the caller calls Next again), so every run is one
// contiguous write.
//
// OldestDirtyNs() stays exact: a DirtyAgeQueue keeps dirty-since order beside
// the sorted set. The sorted set is a sparse bitmap (SortedLineSet.h): lines
// must be < 2^32, as the cache target's are. Memory: ~1/8 byte per line of the
// dirty range plus the age queue's entry and hash slot per dirty line.

#include "policies/DestageOrder.h"
#include "policies/DirtyAgeQueue.h"
#include "policies/SortedLineSet.h"

namespace tierlab {

class LbaDestageOrder final : public DestageOrder {
 public:
  void MarkDirty(std::uint64_t line, std::int64_t now_ns) override;
  void Remove(std::uint64_t line) override;
  void Next(std::size_t max_lines, std::vector<std::uint64_t>* out) override;
  std::int64_t OldestDirtyNs() const override { return ages_.Empty() ? -1 : ages_.FrontNs(); }
  std::size_t Size() const override { return sorted_.Size(); }
  std::string Name() const override { return "lba"; }
  void Prefetch(std::uint64_t line) const override { ages_.Prefetch(line); }

  std::uint64_t Cursor() const { return cursor_; }

 private:
  SortedLineSet sorted_;
  DirtyAgeQueue ages_;
  std::uint64_t cursor_ = 0;  // next sweep starts at the first dirty line >= cursor_
};

}  // namespace tierlab
