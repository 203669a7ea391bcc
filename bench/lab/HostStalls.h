#pragma once
// The host's stalls as a thread that never blocks sees them: a loop that
// reads the monotonic clock as fast as it can (a read every 20-30 ns) for a
// while, and counts every gap between two reads of 2 us or more as a time
// the host took the core away (a timer tick, an interrupt, another tenant's
// vCPU on the same physical core). `tierlab calibrate --cpu` measures them
// beside the stack's costs, which it then gives net of them, so a model
// with the stalls (NodeCpu.h) has the measured mean and the p99 a run on
// this host sees (docs/VALIDATION.md).
//
// Classes by duration, in bins of 2-5, 5-10, 10-20, 20-50, 50-100 us and
// so on up to 5 ms and beyond; each class is its gaps' mean duration and
// their count per second the loop ran (the window less the stalls), which
// is the rate NodeCpu's stall clock takes (it draws the next stall after
// the last one ends).

#include <cstdint>
#include <vector>

#include "tiering/core/Engine.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

struct HostStalls {
  Nanos window = 0;              // how long the loop ran
  double lost_share = 0;         // of the window, in stalls
  std::vector<CpuStall> stalls;  // per class with any, shortest first
  std::uint64_t count = 0;       // stalls seen
  Nanos longest = 0;
};

// Gaps of this length or more are stalls.
inline constexpr Nanos kStallThreshold = 2 * kMicro;

// The classes of `gaps` (each at least kStallThreshold) seen over `window`.
HostStalls ClassifyStalls(const std::vector<Nanos>& gaps, Nanos window);

// Spins on this thread for `window` of wall time and classifies what it saw.
HostStalls MeasureHostStalls(Nanos window);

}  // namespace tierlab
