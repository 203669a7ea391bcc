#include "tiering/targets/HostCpuTarget.h"

namespace tierlab {

HostCpuTarget::HostCpuTarget(Engine& engine, const std::string& name,
                             std::unique_ptr<BlockDevice> child, NodeCpuSpec spec)
    : ForwardingTarget(engine, name, std::move(child)), cpu_(name + ".cpu", spec) {}

void HostCpuTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  const bool write = req.op == IoOp::kWrite || req.op == IoOp::kDiscard;
  const std::uint64_t bytes = req.op == IoOp::kRead || req.op == IoOp::kWrite ? req.length : 0;
  const Nanos now = engine().Now();
  const Nanos at = cpu_.Run(now, bytes, write);
  if (at == now) {
    Forward(req, std::move(done));
  } else {
    ForwardAt(at, req, std::move(done));
  }
}

}  // namespace tierlab
