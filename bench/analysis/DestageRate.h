#pragma once
// The rate at which a write-back cache's destage drained dirty data while it
// ran: bytes destaged over the sample periods in which the cumulative
// destaged bytes grew. It is the origin's write bandwidth observed while
// destaging, what the capacity tier can take; when the offered write rate
// stays above it for longer than the cache's headroom lasts, writes
// throttle. docs/ANALYZER.md, "Write absorption".

#include <optional>
#include <span>

#include "bench/analysis/DirtyTimeline.h"

namespace tierlab {

struct DestageRate {
  Nanos active_ns = 0;      // sample periods in which destage progressed
  std::uint64_t bytes = 0;  // destaged between the first and the last sample
  // bytes / active time; none when nothing was destaged (no rate observed).
  std::optional<double> bytes_per_s;
};

// `samples` in time order (DirtySample's cumulative destaged bytes).
DestageRate MeasureDestageRate(std::span<const DirtySample> samples);

}  // namespace tierlab
