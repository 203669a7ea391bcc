#include "tiering/targets/DevicePauseTarget.h"

#include <utility>

namespace tierlab {

namespace {

// One core that does no work: Resume is all it is asked.
NodeCpuSpec PauseSpec(std::vector<CpuStall> pauses) {
  NodeCpuSpec spec;
  spec.cores = 1;
  spec.stalls = std::move(pauses);
  return spec;
}

}  // namespace

DevicePauseTarget::DevicePauseTarget(Engine& engine, const std::string& name,
                                     std::unique_ptr<BlockDevice> child,
                                     std::vector<CpuStall> pauses)
    : ForwardingTarget(engine, name, std::move(child)),
      pauses_(name + ".pauses", PauseSpec(std::move(pauses))) {}

void DevicePauseTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  Op* op = ops_.Acquire();
  op->done = std::move(done);
  child().Submit(req, [this, op](Status st) {
    const Nanos waits = pauses_.WhenBack(engine(), [this, op, st] { Complete(op, st); });
    if (waits > 0) {
      ++held_;
      held_ns_ += waits;
    }
  });
}

void DevicePauseTarget::Complete(Op* op, Status status) {
  Finish(op->done, status);
  ops_.Release(op);
}

}  // namespace tierlab
