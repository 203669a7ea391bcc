#include "tiering/targets/DelayTarget.h"

namespace tierlab {

DelayTarget::DelayTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                         DelayConfig delay)
    : ForwardingTarget(engine, std::move(name), std::move(child)), delay_(delay) {}

void DelayTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  const Nanos d = req.op == IoOp::kRead    ? delay_.read
                  : req.op == IoOp::kFlush ? delay_.flush
                                           : delay_.write;
  ForwardAt(engine().Now() + d, req, std::move(done));
}

}  // namespace tierlab
