#pragma once
// The host's CPU in front of a one-node stack, in simulation: every request
// the volume takes waits for a core of the host (NodeCpu.h: first come,
// first served) and costs its per-request and per-KiB time there before the
// stack sees it. A device model charges its media, not the software that
// drives it; where the media are RAM (a cache tier on tmpfs, a RAM disk)
// that software is what binds, and without this the simulation of a
// RAM-speed cell reports the device's ceiling however much work the stack
// does per I/O (docs/VALIDATION.md). `tierlab calibrate --cpu` measures the
// costs of tierlab's own engine thread; a layout names them as "cpu".
//
// Costs are charged at submission, in one place, so the figure is the whole
// stack's per I/O (the workload's generation, every layer, the device's
// copy), not per layer: what a calibration can measure on one thread. So a
// RAM device below takes no time of its own (ModelOptions::time_on_host_cpu;
// the layout builder sets it), or a request at QD1 would pay its copy twice.
// A completion costs nothing more, but waits out a stall under way when it
// comes back (NodeCpu::Resume): a real engine's thread that the host has
// taken sees no completion either, so a stall holds every request in
// flight, those at a device, a delay or a throttle too, not only those
// queued for the CPU (docs/VALIDATION.md).
//
// Threading: the engine's thread. Failure: the child's status.

#include <memory>
#include <string>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

class HostCpuTarget final : public ForwardingTarget {
 public:
  // `spec.cores` must be at least 1.
  HostCpuTarget(Engine& engine, const std::string& name, std::unique_ptr<BlockDevice> child,
                NodeCpuSpec spec);

  std::string Kind() const override { return "cpu"; }
  const NodeCpu& cpu() const { return cpu_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct Op {
    IoRequest req;
    IoCallback done;
  };
  // To the child now; back through the CPU's stalls.
  void Send(Op* op);
  void Complete(Op* op, Status status);

  NodeCpu cpu_;
  ObjectPool<Op> ops_;
};

}  // namespace tierlab
