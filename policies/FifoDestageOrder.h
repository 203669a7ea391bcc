#pragma once
// `fifo` destage order: the line dirty longest goes first, which bounds the
// age of dirty data (what a write-back cache needs for a recovery-point
// promise). Next() hands out the oldest line and, after it, the next oldest
// while they are adjacent ascending lines (up to max_lines): one run, one
// origin write. A rewrite of a tracked line keeps its original age.

#include "policies/DestageOrder.h"
#include "policies/DirtyAgeQueue.h"

namespace tierlab {

class FifoDestageOrder final : public DestageOrder {
 public:
  void MarkDirty(std::uint64_t line, std::int64_t now_ns) override { ages_.Add(line, now_ns); }
  void Remove(std::uint64_t line) override { ages_.Remove(line); }
  void Next(std::size_t max_lines, std::vector<std::uint64_t>* out) override;
  std::int64_t OldestDirtyNs() const override { return ages_.Empty() ? -1 : ages_.FrontNs(); }
  std::size_t Size() const override { return ages_.Size(); }
  std::string Name() const override { return "fifo"; }
  void Prefetch(std::uint64_t line) const override { ages_.Prefetch(line); }

 private:
  DirtyAgeQueue ages_;
};

}  // namespace tierlab
