#pragma once
// A write-back cache's dirty occupancy sampled over a run, and what the
// samples say about it: the peak, when the high watermark was first
// reached, the fastest fill, how long the headroom lasts under it, and
// how much of the run some write spent throttled. Pure arithmetic over the
// samples; the sampler that takes them is the analyzer's
// (bench/lab/WriteCacheAnalyzer.cc). docs/ANALYZER.md defines each figure.

#include <cstdint>
#include <optional>
#include <span>

#include "tiering/core/IoRequest.h"

namespace tierlab {

// One sample of the cache's counters; the cumulative ones count from the
// cache's creation.
struct DirtySample {
  Nanos t = 0;  // since the start of the run
  std::uint64_t dirty_bytes = 0;
  std::uint64_t destaged_bytes = 0;    // cumulative
  std::uint64_t throttled = 0;         // cumulative throttled write requests
  std::uint64_t host_write_bytes = 0;  // cumulative, measured at the cache target
};

struct DirtyTimelineFigures {
  std::uint64_t peak_dirty_bytes = 0;
  std::optional<Nanos> time_to_high_watermark;  // first sample at or above the high mark
  // Sample periods in which some write became throttled.
  Nanos throttled_wall_ns = 0;
  // The fastest net dirty growth over one sample period (arrivals minus
  // destage), and the time the high watermark would take to fill from
  // empty at that rate (none when dirty never grew).
  double peak_fill_bps = 0;
  std::optional<double> burst_time_to_full_s;
};

// `samples` in time order; `high_watermark_bytes` 0 means no high mark.
DirtyTimelineFigures SummarizeDirtyTimeline(std::span<const DirtySample> samples,
                                            std::uint64_t high_watermark_bytes);

}  // namespace tierlab
