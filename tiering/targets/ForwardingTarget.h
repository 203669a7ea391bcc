#pragma once
// The shared part of targets over one child whose offsets map one to one
// onto the child's (delay, fault, FUA-to-flush, slice, the RAM block cache):
// what such a target answers as its child does, so each subclass states only
// how it treats a request on the way through (the leveldb EnvWrapper shape).
//
//   Size, BlockSize, RequiresData  the child's (a slice overrides Size)
//   Children                       the child
//   QueryAllocation                the child's answer for the same range
//   PrefetchHint                   passed to the child
//   SubmitImpl                     Forward: the request unchanged to the
//                                  child, completed with the child's status
//   Warm                           passed to the child
//
// A subclass that changes the data on the way (a cache holding lines the
// child lacks, writes lost on purpose) overrides what no longer holds.
//
// Ownership: owns the child, or borrows it (second constructor), which must
// then outlive the target. Threading: the engine's thread.

#include <memory>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

class ForwardingTarget : public BlockDevice {
 public:
  std::uint64_t Size() const override { return child_->Size(); }
  std::uint32_t BlockSize() const override { return child_->BlockSize(); }
  bool RequiresData() const override { return child_->RequiresData(); }
  std::vector<BlockDevice*> Children() const override { return {child_}; }
  void PrefetchHint(IoOp op, std::uint64_t offset, int distance) override {
    child_->PrefetchHint(op, offset, distance);
  }
  BlockDevice& child() const { return *child_; }

 protected:
  ForwardingTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child);
  ForwardingTarget(Engine& engine, std::string name, BlockDevice& child);

  void SubmitImpl(const IoRequest& req, IoCallback done) override { Forward(req, std::move(done)); }
  std::uint64_t WarmImpl(const IoRequest& req) override { return child_->Warm(req); }
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

  // Submits `req` to the child and completes `done` (through Finish) with
  // the child's status. `req` is copied; its data buffer stays the caller's.
  void Forward(const IoRequest& req, IoCallback done);
  // Holds `req` until the engine's time `at`, then forwards it (a delay, a
  // throttle: the SPDK delay bdev's stamp-and-release pattern).
  void ForwardAt(Nanos at, const IoRequest& req, IoCallback done);

 private:
  struct Pending {
    IoCallback done;
  };
  struct Held {
    IoCallback done;
    IoRequest req;
  };
  std::unique_ptr<BlockDevice> owned_;
  BlockDevice* child_;
  ObjectPool<Pending> pending_;
  ObjectPool<Held> held_;
};

}  // namespace tierlab
