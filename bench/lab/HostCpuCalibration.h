#pragma once
// Calibration of the host's CPU (`tierlab calibrate --cpu`): how much time
// tierlab's engine thread spends per I/O running a cached volume, which is
// what bounds a cell whose devices are RAM (a cache tier on tmpfs) and what
// a device model does not charge (HostCpuTarget.h; docs/VALIDATION.md).
//
// The probe: a write-back cache of 4 KiB lines over a capacity device, both
// RAM (files on tmpfs, which FileDevice maps: a device costs a memory
// copy), the cache twice the probed region so every line of it stays
// resident, the region written once; then random reads and random writes of
// 4, 16 and 64 KiB, each at QD32 (the thread never waits for a device, so
// each point runs at its CPU's rate), repeated until settled as a device's
// probe is (DeviceCalibration.h).
//
// The fit, in NodeCpu's terms (a request costs per_io + per_kib per KiB;
// a write per_write_io + per_write_kib), per direction from the wall time
// per I/O of its 4 KiB and 64 KiB points (the thread's time, and what the
// host lets it have):
//   per_kib = (64k - 4k) / 60,   per_io = 4k - 4 per_kib
// The host's stalls (HostStalls.h), measured beside the points, take
// their share of that wall time: the costs given are net of them, each
// times (1 - the share lost), and the stalls are part of the fit, so a
// model with both runs at the measured rate and sees the host's tail.
// The host's speed over time (NodeCpu.h, "Speed") from the 4 KiB points'
// latency spread: at QD32 a request waits for the work of the 32 in
// flight at the speed of that moment (a request lives tens of
// microseconds, a spell of the host's speed a millisecond or more), so
// the latency at the 95th, 85th, ..., 5th percentiles gives the speed of
// each tenth of the requests, the median's over that one. The stalls
// spread the latency too: a closed loop of the fitted CPU with its stalls
// alone gives their spread, and each tenth's speed is taken over that
// tenth's in the loop. The reads' and writes' speeds are averaged, then
// weighed by time (a slow spell serves fewer requests than a fast one as
// long) into ten equally likely levels. The stall probe's own speed spread
// (HostStalls.h) is narrower on this machine's VM (p90 / p10 of 1.2-1.4
// against the stack's 1.5-1.6: its loop mostly waits on memory, the stack
// computes), so it is reported beside them, not used.
// The 16 KiB points are not fitted: their error checks the model's form (a
// cost per request plus one per KiB). Each point's model figures are those
// of one core at that cost: IOPS = 1 / cost, mean latency = QD x cost
// (Little's law at saturation).
//
// The costs depend on the working set (the cache's index and lines in the
// CPU's caches): probe a region the size of the cells' you mean to model.
//
// Threading: the engine's thread; the probe calls engine.Run() per point.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/lab/DeviceCalibration.h"
#include "bench/lab/HostStalls.h"
#include "layouts/Layout.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

// The probe's six points over `region` bytes; `quick`: shorter runs.
CalibrationPlan HostCpuPlan(bool quick, std::uint64_t region);

// The probe's volume: the cache and capacity tiers on RAM ("ram" presets;
// real mode puts their files in the BuildOptions' temp_dir).
LayoutSpec HostCpuLayout(std::uint64_t region);

struct HostCpuFit {
  NodeCpuSpec cpu;  // net of the stalls, which it carries
  HostStalls stalls;
  std::vector<FitPoint> points;  // per probed point, measured and modelled
  double max_iops_error = 0;
};

// Fits the CPU to a HostCpuPlan probe and the host's `stalls` (none: a
// host that never takes the core). Errors (kInput): a probe without its
// 4 KiB and 64 KiB points. A 64 KiB request no dearer than a 4 KiB one
// gives a per-KiB cost of 0.
Expected<HostCpuFit> FitHostCpu(const std::vector<ProbeResult>& probe,
                                const HostStalls& stalls = {});

}  // namespace tierlab
