#pragma once
// Turns every FUA write into a plain write followed by a flush of the device
// below, acknowledged when the flush completes. For stacks whose FUA is
// weaker than their flush: a write-back cache with persistent metadata
// writes a FUA write's data durably but commits the line's metadata only on
// a flush, so the flush is what makes the write survive a crash. Everything
// else passes through unchanged.
//
// Ownership: owns the child, or borrows it (second constructor). Threading: the engine's thread.

#include <memory>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

class FuaFlushTarget final : public BlockDevice {
 public:
  FuaFlushTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child);
  // Borrows `child`, which must outlive the target.
  FuaFlushTarget(Engine& engine, std::string name, BlockDevice& child);

  std::uint64_t Size() const override { return child_->Size(); }
  std::uint32_t BlockSize() const override { return child_->BlockSize(); }
  bool RequiresData() const override { return child_->RequiresData(); }
  std::vector<BlockDevice*> Children() const override { return {child_}; }
  std::string Kind() const override { return "fua-flush"; }
  BlockDevice& child() const { return *child_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // The child's answer.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  struct Ctx {
    IoCallback done;
  };
  std::unique_ptr<BlockDevice> owned_;
  BlockDevice* child_;
  ObjectPool<Ctx> pool_;
};

}  // namespace tierlab
