#pragma once
// Turns every FUA write into a plain write followed by a flush of the device
// below, acknowledged when the flush completes. For stacks whose FUA is
// weaker than their flush: a write-back cache with persistent metadata
// writes a FUA write's data durably but commits the line's metadata only on
// a flush, so the flush is what makes the write survive a crash. Everything
// else passes through unchanged.
//
// Ownership: owns the child, or borrows it (second constructor). Threading:
// the engine's thread.

#include <memory>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

class FuaFlushTarget final : public ForwardingTarget {
 public:
  FuaFlushTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child);
  // Borrows `child`, which must outlive the target.
  FuaFlushTarget(Engine& engine, std::string name, BlockDevice& child);

  std::string Kind() const override { return "fua-flush"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct Ctx {
    IoCallback done;
  };
  ObjectPool<Ctx> pool_;
};

}  // namespace tierlab
