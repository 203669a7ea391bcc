#pragma once
// A device's pauses, in simulation: now and then the device completes
// nothing for a while (a virtual disk's backend, a drive's housekeeping),
// so every request whose service ends during a pause completes at its end,
// as the requests a real queue held through one come back together. The
// child model serves as usual; only the completions wait. Each class of
// pause comes `per_second` times a second at random and lasts `duration`
// (a NodeCpu of one core that does no work: its stalls are the pauses, the
// same seeded process; seeded from the target's name).
//
// The work disk's pauses are what make the slow-tier cells' p99 in
// docs/VALIDATION.md; `tierlab calibrate` measures a device's
// (bench/lab/DevicePauses.h) and the stack builder puts this in front of a
// simulated device whose preset has them.
//
// Threading: the engine's thread. Failure: the child's status.

#include <memory>
#include <string>
#include <vector>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

class DevicePauseTarget final : public ForwardingTarget {
 public:
  DevicePauseTarget(Engine& engine, const std::string& name, std::unique_ptr<BlockDevice> child,
                    std::vector<CpuStall> pauses);

  std::string Kind() const override { return "pauses"; }
  // Completions held so far, and for how long in all.
  std::uint64_t held() const { return held_; }
  Nanos held_ns() const { return held_ns_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct Op {
    IoCallback done;
  };
  void Complete(Op* op, Status status);

  NodeCpu pauses_;
  ObjectPool<Op> ops_;
  std::uint64_t held_ = 0;
  Nanos held_ns_ = 0;
};

}  // namespace tierlab
