#include "tiering/targets/HostCpuTarget.h"

#include <utility>

namespace tierlab {

HostCpuTarget::HostCpuTarget(Engine& engine, const std::string& name,
                             std::unique_ptr<BlockDevice> child, NodeCpuSpec spec)
    : ForwardingTarget(engine, name, std::move(child)), cpu_(name + ".cpu", std::move(spec)) {}

void HostCpuTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  const bool write = req.op == IoOp::kWrite || req.op == IoOp::kDiscard;
  const std::uint64_t bytes = req.op == IoOp::kRead || req.op == IoOp::kWrite ? req.length : 0;
  const Nanos now = engine().Now();
  const Nanos at = cpu_.Run(now, bytes, write);
  Op* op = ops_.Acquire();
  op->req = req;
  op->done = std::move(done);
  if (at == now) {
    Send(op);
  } else {
    engine().ScheduleAt(at, [this, op] { Send(op); });
  }
}

void HostCpuTarget::Send(Op* op) {
  child().Submit(op->req, [this, op](Status st) {
    cpu_.WhenBack(engine(), [this, op, st] { Complete(op, st); });
  });
}

void HostCpuTarget::Complete(Op* op, Status status) {
  Finish(op->done, status);
  ops_.Release(op);
}

}  // namespace tierlab
