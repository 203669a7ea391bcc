#pragma once
// The first `size` bytes of one child, as a device of its own (dm-linear with
// one table line): a volume smaller than the stack it sits on.

#include <memory>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

class SliceTarget final : public BlockDevice {
 public:
  // `size` is rounded down to the child's block size and capped at its size.
  SliceTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
              std::uint64_t size);

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return child_->BlockSize(); }
  bool RequiresData() const override { return child_->RequiresData(); }
  std::vector<BlockDevice*> Children() const override { return {child_.get()}; }
  std::string Kind() const override { return "slice"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // The child's answer for the same range.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  struct Ctx {
    IoCallback done;
  };
  std::unique_ptr<BlockDevice> child_;
  std::uint64_t size_;
  ObjectPool<Ctx> pool_;
};

}  // namespace tierlab
