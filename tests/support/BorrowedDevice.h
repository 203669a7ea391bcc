#pragma once
// A device owned by the test, lent to a target (targets own their
// children): several targets in turn, or side by side, over one device.
// Requests pass through unchanged.

#include <string>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab::testing {

class BorrowedDevice final : public BlockDevice {
 public:
  BorrowedDevice(Engine& e, BlockDevice& d) : BlockDevice(e, d.name() + "-lent"), d_(d) {}
  std::uint64_t Size() const override { return d_.Size(); }
  std::uint32_t BlockSize() const override { return d_.BlockSize(); }
  std::string Kind() const override { return "lent"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    Ctx* c = pool_.Acquire();
    c->done = std::move(done);
    d_.Submit(req, [this, c](Status st) {
      Finish(c->done, st);
      pool_.Release(c);
    });
  }

 private:
  struct Ctx {
    IoCallback done;
  };
  BlockDevice& d_;
  ObjectPool<Ctx> pool_;
};

}  // namespace tierlab::testing
