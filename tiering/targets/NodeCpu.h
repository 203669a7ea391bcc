#pragma once
// A cluster node's CPU as a queued resource: `cores` servers taking the
// node's storage work first come, first served. Each request a node's stack
// serves (a copy's write, a read, a flush) costs `per_io` plus `per_kib`
// for each KiB it carries, on the core that is free first; a request that
// finds every core busy waits. At low load the cost is the stack's own
// latency per request (a storage stack's software path: S2D's CSV, ReFS and
// spaces layers, vSAN's DOM and LSOM); near `cores` / `per_io` requests a
// second the node's CPU is what binds the cluster (DESIGN.md, "Clusters";
// issue 18, item 1).
//
// Stalls: a host takes its cores away now and then (a timer tick, another
// tenant's vCPU on a shared core, an interrupt): each class of stall comes
// `per_second` times a second of a core's running time, at random (each
// stall an exponential gap after the last one's end, the class drawn by
// rate; seeded from the CPU's name and the core), and lasts `duration`,
// so the classes take sum(d r) / (1 + sum(d r)) of the time. Work on a
// core that stalls waits for it to end, and so does a request that arrives
// while it lasts, and (Resume, which a one-node layout's host CPU and a
// cluster's node CPUs ask) a completion that comes back while every core
// is stalled; they are what makes a RAM-speed stack's p99 several times
// its mean (docs/VALIDATION.md). The costs are then the work's own, net of
// the stalls (tierlab calibrate --cpu measures both).
//
// Speed: between its stalls a shared host's core also runs the same work
// faster or slower in spells (another tenant on the same physical core,
// for one); a request at RAM speed lives shorter than a spell, so it sees
// one speed, and a cell's latency distribution is the mix of the spells it
// ran through. With `speed`, each `window` of a core's time runs at one of
// its `levels`, drawn at random (equally likely; per core, seeded from the
// CPU's name), scaled so that their mean is 1: the costs stay the mean's,
// which is what a host reference measures. busy() is then the core's time
// at those speeds.
//
// The ports' own per-message CPU (NicModel.h) is separate: a port's
// protocol work runs beside the storage stack's, as an RDMA NIC's or a TCP
// offload's does.
//
// Threading: the engine's thread. Time is the caller's and does not go back.

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "tiering/core/Engine.h"
#include "tiering/core/Interruption.h"
#include "tiering/core/SplitMix64.h"

namespace tierlab {

// How long the core is away, and how often a second of each core's running
// time.
using CpuStall = Interruption;

// How fast a core runs over time (NodeCpu's "Speed" above). No levels: one
// speed. Only the levels' ratios matter.
struct CpuSpeedSpread {
  Nanos window = 0;              // how long a level lasts
  std::vector<double> levels{};  // relative speeds, each > 0 (else: one speed)
  bool empty() const { return window <= 0 || levels.size() < 2; }
};

struct NodeCpuSpec {
  std::uint32_t cores = 0;  // 0: the CPU is not modelled
  Nanos per_io = 0;         // CPU time per request served
  Nanos per_kib = 0;        // and per KiB it carries (read or written)
  // A write's (and a discard's) figures where they differ from a read's (a
  // cache's dirty-line accounting, its destage); 0: per_io, per_kib.
  Nanos per_write_io = 0;
  Nanos per_write_kib = 0;
  std::vector<CpuStall> stalls{};  // none: the cores are always there
  CpuSpeedSpread speed{};          // none: one speed
};

class NodeCpu {
 public:
  NodeCpu(std::string name, NodeCpuSpec spec);

  // Queues a request of `bytes` at `now`: the time its work is done. A
  // write costs spec().per_write_io and per_write_kib where they are set.
  Nanos Run(Nanos now, std::uint64_t bytes, bool write = false);
  // When a result that came back at `now` (a device's completion) reaches
  // the work above it: at once, unless every core is stalled at `now`, and
  // then when the first of them is back. A host's thread sees nothing while
  // the host has it, a completion no more than a new request; this charges
  // no work (the costs are the submission's). `now` does not go back.
  Nanos Resume(Nanos now);
  // Runs `then` when a result that comes back now reaches the work above
  // it (Resume): at once, or scheduled on `engine` for then. Returns how
  // long it waits (0: it has run).
  template <typename F>
  Nanos WhenBack(Engine& engine, F&& then) {
    const Nanos now = engine.Now();
    const Nanos back = Resume(now);
    if (back == now) {
      then();
      return 0;
    }
    engine.ScheduleAt(back, std::forward<F>(then));
    return back - now;
  }

  const std::string& name() const { return name_; }
  const NodeCpuSpec& spec() const { return spec_; }
  Nanos busy() const { return busy_; }        // core time spent, summed over cores
  Nanos stalled() const { return stalled_; }  // of which work waited for stalls
  std::uint64_t requests() const { return requests_; }
  // Busy share of the node's cores over `elapsed` (1: every core all the time).
  double Utilisation(Nanos busy, Nanos elapsed) const {
    return elapsed > 0 ? static_cast<double>(busy) /
                             (static_cast<double>(elapsed) * static_cast<double>(spec_.cores))
                       : 0;
  }

 private:
  // A core's next stall (or the one under way).
  struct StallClock {
    SplitMix64 rng;
    Nanos start = 0;
    Nanos end = 0;
    // Stalls the clock has moved past (work queued ahead runs the clock
    // ahead of the engine) that end after the horizon: a completion may
    // still come back during one.
    std::deque<std::pair<Nanos, Nanos>> behind;
  };
  void NextStall(StallClock& s, Nanos after) const;
  // Moves `s` to its next stall, keeping the one it leaves in `behind` if
  // it ends after the horizon.
  void PassStall(StallClock& s);
  // Forgets what ends by the horizon.
  void Prune(StallClock& s) const;
  // When work that may start at `start` on core `core` is done; stalls
  // delay both its start and its end, the speed its end. Counts the core's
  // time in busy_ and stalled_.
  Nanos Serve(std::size_t core, Nanos start, Nanos work);
  // The speed of `core`'s window holding `t` (mean 1 over windows).
  double SpeedAt(std::size_t core, Nanos t) const;

  std::string name_;
  NodeCpuSpec spec_;
  double stall_rate_ = 0;                 // all classes, per ns
  std::vector<StallClock> stall_clocks_;  // per core, when there are stalls
  std::vector<double> speeds_;            // the levels over their mean; empty: one speed
  std::uint64_t speed_seed_ = 0;
  Nanos horizon_ = 0;  // the latest `now` seen: no query comes before it
  // When each core is next free, and which; the top is the core free first.
  using CoreFree = std::pair<Nanos, std::size_t>;
  std::priority_queue<CoreFree, std::vector<CoreFree>, std::greater<>> free_at_;
  Nanos busy_ = 0;
  Nanos stalled_ = 0;
  std::uint64_t requests_ = 0;
};

}  // namespace tierlab
