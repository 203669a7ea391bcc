#pragma once
// dm-linear over several children: the volume is their concatenation, in
// order. A request that crosses a child boundary is split; flush goes to
// every child.

#include <memory>
#include <vector>

#include "tiering/targets/FanOutTarget.h"

namespace tierlab {

class LinearTarget final : public FanOutTarget {
 public:
  // Children should share one logical block size; owns them.
  LinearTarget(Engine& engine, std::string name,
               std::vector<std::unique_ptr<BlockDevice>> children);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return max_block_size_; }
  std::string Kind() const override { return "linear"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  std::uint64_t WarmImpl(const IoRequest& req) override;
  // Each child asked for its piece, in order.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  // Calls f(child index, piece) for each child's piece of `req` (not a
  // flush), in volume order.
  template <class F>
  void ForEachPiece(const IoRequest& req, F&& f) const;

  std::vector<std::uint64_t> starts_;  // volume offset of each child
  std::uint64_t size_ = 0;
};

}  // namespace tierlab
