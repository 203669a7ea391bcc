#pragma once
// FIFO: evicts the slot inserted longest ago; hits change nothing. Same
// intrusive list as LRU (8 bytes per slot) because Remove() must unlink an
// arbitrary slot in O(1). Evict() skips filter-rejected slots in place and
// gives up after kEvictScanLimit rejections.

#include "policies/ReplacementPolicy.h"
#include "policies/SlotLists.h"

namespace tierlab {

class FifoPolicy final : public ReplacementPolicy {
 public:
  explicit FifoPolicy(std::size_t capacity) : list_(capacity, 1) {}

  void Insert(Slot s, LineKey key) override { list_.PushBack(0, s); }
  void Touch(Slot s) override {}
  void Remove(Slot s) override;
  std::optional<Slot> Evict(EvictFilter filter = {}) override;

  std::size_t Size() const override { return list_.Size(0); }
  std::size_t MemoryBytes() const override { return sizeof(*this) + list_.MemoryBytes(); }
  std::string Name() const override { return "fifo"; }

 private:
  SlotLists list_;  // front = oldest insertion
};

}  // namespace tierlab
