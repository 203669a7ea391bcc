#include "bench/analysis/DirtyTimeline.h"

#include <algorithm>

namespace tierlab {

DirtyTimelineFigures SummarizeDirtyTimeline(std::span<const DirtySample> samples,
                                            std::uint64_t high_watermark_bytes) {
  DirtyTimelineFigures f;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const DirtySample& c = samples[i];
    f.peak_dirty_bytes = std::max(f.peak_dirty_bytes, c.dirty_bytes);
    if (!f.time_to_high_watermark && high_watermark_bytes > 0 &&
        c.dirty_bytes >= high_watermark_bytes) {
      f.time_to_high_watermark = c.t;
    }
    if (i == 0) continue;
    const DirtySample& p = samples[i - 1];
    const Nanos dt = c.t - p.t;
    if (dt <= 0) continue;
    if (c.throttled > p.throttled) f.throttled_wall_ns += dt;
    if (c.dirty_bytes > p.dirty_bytes) {
      f.peak_fill_bps =
          std::max(f.peak_fill_bps, static_cast<double>(c.dirty_bytes - p.dirty_bytes) /
                                        (static_cast<double>(dt) / 1e9));
    }
  }
  if (f.peak_fill_bps > 0) {
    f.burst_time_to_full_s = static_cast<double>(high_watermark_bytes) / f.peak_fill_bps;
  }
  return f;
}

}  // namespace tierlab
