#include "tiering/targets/RateLimitTarget.h"

#include <algorithm>
#include <cmath>

namespace tierlab {

RateLimitTarget::RateLimitTarget(Engine& engine, std::string name,
                                 std::unique_ptr<BlockDevice> child, RateLimitConfig limits)
    : ForwardingTarget(engine, std::move(name), std::move(child)) {
  read_.limit = limits.read;
  write_.limit = limits.write;
}

void RateLimitTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    Forward(req, std::move(done));
    return;
  }
  Direction& d = req.op == IoOp::kRead ? read_ : write_;
  if (!d.limit.Limits()) {
    Forward(req, std::move(done));
    return;
  }
  double cost = d.limit.iops > 0 ? 1e9 / d.limit.iops : 0;
  if (req.op != IoOp::kDiscard && d.limit.bytes_per_second > 0) {
    cost = std::max(cost, static_cast<double>(req.length) * 1e9 / d.limit.bytes_per_second);
  }
  const auto now = static_cast<double>(engine().Now());
  const double start = std::max(now, d.next_start);
  d.next_start = start + cost;
  const auto at = static_cast<Nanos>(std::ceil(start));
  if (at <= engine().Now()) {
    Forward(req, std::move(done));
    return;
  }
  ++throttled_;
  ForwardAt(at, req, std::move(done));
}

}  // namespace tierlab
