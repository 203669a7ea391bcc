#include "tiering/targets/FuaFlushTarget.h"

namespace tierlab {

FuaFlushTarget::FuaFlushTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child)
    : ForwardingTarget(engine, std::move(name), std::move(child)) {}

FuaFlushTarget::FuaFlushTarget(Engine& engine, std::string name, BlockDevice& child)
    : ForwardingTarget(engine, std::move(name), child) {}

void FuaFlushTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op != IoOp::kWrite || !req.fua()) {
    Forward(req, std::move(done));
    return;
  }
  Ctx* c = pool_.Acquire();
  c->done = std::move(done);
  IoRequest w = req;
  w.flags &= ~kIoFua;
  child().Submit(w, [this, c](Status st) {
    if (st != Status::kOk) {
      Finish(c->done, st);
      pool_.Release(c);
      return;
    }
    IoRequest f;
    f.op = IoOp::kFlush;
    child().Submit(f, [this, c](Status fst) {
      Finish(c->done, fst);
      pool_.Release(c);
    });
  });
}

}  // namespace tierlab
