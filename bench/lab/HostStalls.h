#pragma once
// The host's stalls as a thread that never blocks and works on memory sees
// them: a loop of small units of work (random reads and writes over a 32
// MiB working set, about half a microsecond each), reading the monotonic
// clock after each, for a while; a unit that took 2 us or more beyond a
// unit's median own time had the core taken away (a timer tick, an
// interrupt, another tenant's vCPU on the same physical core) for that
// excess. `tierlab calibrate --cpu` measures them beside the stack's costs,
// which it then gives net of them, so a model with the stalls (NodeCpu.h)
// has the measured mean and the p99 a run on this host sees
// (docs/VALIDATION.md).
//
// Why work and not a bare clock loop: the same stalls often cost a thread
// that touches memory more than one that only reads the clock. On this
// machine's VM a bare loop has seen most of them at 15-20 us (700-1,000 a
// second of 18 us) when a loop over 4, 32 or 128 MiB saw 1,000-1,300 a
// second of 25-30 us, losing 3.4-4.4% of the time against 2.4-3.4%; a
// cached volume's p99 at RAM speed is its mean plus the latter. At other
// times both see the longer ones. bench/micro/HostStallProbeBench.cc runs
// them side by side (docs/VALIDATION.md).
//
// Classes by duration, in bins of 2-5, 5-10, 10-20, 20-50, 50-100 us and
// so on up to 5 ms and beyond; each class is its gaps' mean duration and
// their count per second the loop ran (the window less the stalls), which
// is the rate NodeCpu's stall clock takes (it draws the next stall after
// the last one ends).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tiering/core/Engine.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

// The host's speed between its stalls: the probe's units of work a
// microsecond in each window of kSpeedWindow, its stalls taken out of the
// window's time, and how they spread. On this machine's VM a request at
// RAM speed runs at one of two levels about 1.4x apart, in spells longer
// than a request (docs/VALIDATION.md, "The two levels are the host's
// speed"). The modelled CPU takes its levels from the stack's own latency
// spread instead (HostCpuCalibration.h says why); this is their check.
inline constexpr Nanos kSpeedWindow = kMilli;
struct HostSpeed {
  std::size_t windows = 0;  // 0: not measured
  double p10 = 0;           // units a microsecond, the slowest tenth's bound
  double p50 = 0;
  double p90 = 0;
};
// The spread of `per_window` (each window's units a microsecond; nearest
// rank percentiles).
HostSpeed SpreadOfSpeed(std::vector<double> per_window);

struct HostStalls {
  Nanos window = 0;              // how long the loop ran
  double lost_share = 0;         // of the window, in stalls
  std::vector<CpuStall> stalls;  // per class with any, shortest first
  std::uint64_t count = 0;       // stalls seen
  Nanos longest = 0;
  Nanos unit = 0;   // a unit of the probe's work, its median own time
  HostSpeed speed;  // MeasureHostStalls's; not measured elsewhere
};

// Gaps of this length or more are stalls.
inline constexpr Nanos kStallThreshold = 2 * kMicro;
// How many units give a unit's own time (their median).
inline constexpr std::size_t kStallUnitsForMedian = 4096;

// The probe's unit of work: `touches` random reads and writes of a word
// over `working_set` bytes between two clock reads. No touches is the bare
// clock loop the probe was first, kept for the comparison in
// bench/micro/HostStallProbeBench.cc.
struct StallProbe {
  int touches = 16;
  std::size_t working_set = std::size_t{32} << 20;
};

// The classes of `gaps` (each at least kStallThreshold) seen over `window`.
HostStalls ClassifyStalls(const std::vector<Nanos>& gaps, Nanos window);

// Works on this thread for `window` of wall time (after a few milliseconds
// to time a unit and fill the working set) and classifies what it saw.
HostStalls MeasureHostStalls(Nanos window, const StallProbe& probe = {});

}  // namespace tierlab
