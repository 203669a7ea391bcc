#include "tiering/targets/FuaFlushTarget.h"

namespace tierlab {

FuaFlushTarget::FuaFlushTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child)
    : BlockDevice(engine, std::move(name)), owned_(std::move(child)), child_(owned_.get()) {}

FuaFlushTarget::FuaFlushTarget(Engine& engine, std::string name, BlockDevice& child)
    : BlockDevice(engine, std::move(name)), child_(&child) {}

void FuaFlushTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  Ctx* c = pool_.Acquire();
  c->done = std::move(done);
  if (req.op != IoOp::kWrite || !req.fua()) {
    child_->Submit(req, [this, c](Status st) {
      Finish(c->done, st);
      pool_.Release(c);
    });
    return;
  }
  IoRequest w = req;
  w.flags &= ~kIoFua;
  child_->Submit(w, [this, c](Status st) {
    if (st != Status::kOk) {
      Finish(c->done, st);
      pool_.Release(c);
      return;
    }
    IoRequest f;
    f.op = IoOp::kFlush;
    child_->Submit(f, [this, c](Status fst) {
      Finish(c->done, fst);
      pool_.Release(c);
    });
  });
}

void FuaFlushTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                    std::size_t max_extents, AllocationMap& out) const {
  if (child_->QueryAllocation(offset, length, max_extents, &out) != Status::kOk) out.clear();
}

}  // namespace tierlab
