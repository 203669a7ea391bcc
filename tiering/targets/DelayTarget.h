#pragma once
// dm-delay: adds a fixed latency to every request of one child, per op type,
// by holding the request until `now + delay` and then forwarding it (the
// SPDK delay bdev's stamp-and-release pattern, on the engine's timers).

#include <memory>

#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

struct DelayConfig {
  Nanos read = 0;
  Nanos write = 0;  // also discards
  Nanos flush = 0;
};

class DelayTarget final : public ForwardingTarget {
 public:
  DelayTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
              DelayConfig delay);

  std::string Kind() const override { return "delay"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  DelayConfig delay_;
};

}  // namespace tierlab
