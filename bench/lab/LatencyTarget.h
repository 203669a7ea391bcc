#pragma once
// fio's latency_target: the search for the deepest queue at which a job's
// I/Os still meet a latency target (fio's io_u.c, lat_target_*; HOWTO
// latency_target, latency_window, latency_percentile, latency_run). One per
// job; the runner asks it how deep the job's queue may be and tells it what
// happens.
//
// The search starts at depth 1 when the measured window starts. A window is
// latency_window long; at its end it succeeds when at least
// latency_percentile % of the reads and writes completed since it began
// took no longer than latency_target (total latency, from issue to
// completion). Success: the depth the window ran at becomes the low bound
// and the depth doubles, or, once a failure has set a high bound, moves
// halfway to it; at the third success just below the high bound since the
// last failure, that bound rises by one, so the search can creep past an
// unlucky window.
// Failure: the depth becomes the high bound and moves halfway down to the
// low bound (one below it when they meet), and the job drains its queue
// before going on (quiesce); the next window starts once it has drained.
// At depth 1, a failure changes nothing.
//
// With latency_percentile 100 (fio's default), one I/O over the target is a
// failure at once, without waiting for the window's end; at depth 1 it ends
// the job with ETIMEDOUT (fio's "max latency exceeded").
//
// Unless latency_run, the search settles: when a success leaves the depth
// where it was, the job drains its queue and runs one more window at that
// depth with its figures started afresh (fio resets the job's statistics,
// its runtime and its I/O count there: the results are the final depth's);
// when that window's success again leaves the depth alone, the job is done.
// With latency_run the search never settles and the job ends as it would
// without latency_target.
//
// Not thread-safe; time comes from the caller.

#include <cstdint>

#include "tiering/core/IoRequest.h"

namespace tierlab {

class LatencyTarget {
 public:
  struct Spec {
    Nanos target = 0;         // latency_target
    Nanos window = 0;         // latency_window
    double percentile = 100;  // latency_percentile
    bool run = false;         // latency_run: keep adjusting, never settle
    std::uint32_t iodepth = 1;
  };
  // What the runner does after an event.
  enum class Step : std::uint8_t {
    kNone,
    kDeeper,    // the depth rose: issue up to it
    kDrain,     // the depth fell: let the queue drain before issuing again
    kFinalRun,  // drain, then start the job's figures afresh at this depth
    kDone,      // the search settled: the job ends
    kTimedOut,  // an I/O over the target at depth 1 (percentile 100): ETIMEDOUT
  };

  explicit LatencyTarget(const Spec& spec) : spec_(spec) {}

  // (Re)starts the search at depth 1 with a window from `now`; `ios` is the
  // job's count of completed reads and writes. fio does this when the job
  // starts and again when its ramp ends, unless the final run has begun.
  void Start(Nanos now, std::uint64_t ios);
  // A read or write completed after `latency` (from its issue).
  Step OnLatency(Nanos latency);
  // The window's verdict once it has run its length (fio checks after each
  // I/O); kNone before. Not while the job drains.
  Step Check(Nanos now, std::uint64_t ios);
  // After kDrain or kFinalRun: the queue has drained; the next window starts.
  void Drained(Nanos now, std::uint64_t ios) { NewWindow(now, ios); }

  std::uint32_t depth() const { return depth_; }
  bool in_final_run() const { return final_run_; }

 private:
  Step Fail();
  Step Succeed(Nanos now, std::uint64_t ios);
  void NewWindow(Nanos now, std::uint64_t ios);

  Spec spec_;
  std::uint32_t depth_ = 1;
  std::uint32_t low_ = 1;     // deepest depth known to succeed
  std::uint32_t high_ = 1;    // shallowest depth known to fail (iodepth: none yet)
  std::uint32_t stable_ = 0;  // successes just below `high_` since the last failure
  bool final_run_ = false;
  Nanos window_start_ = 0;
  std::uint64_t window_ios_ = 0;  // completed reads and writes when the window began
  std::uint64_t late_ = 0;        // of them, over the target since (percentile < 100)
};

}  // namespace tierlab
