#include "bench/analysis/DestageRate.h"

namespace tierlab {

DestageRate MeasureDestageRate(std::span<const DirtySample> samples) {
  DestageRate r;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const DirtySample& p = samples[i - 1];
    const DirtySample& c = samples[i];
    if (c.destaged_bytes <= p.destaged_bytes) continue;
    r.bytes += c.destaged_bytes - p.destaged_bytes;
    // Two samples at one instant (the last periodic one and the final one)
    // add bytes but no time.
    if (c.t > p.t) r.active_ns += c.t - p.t;
  }
  if (r.active_ns > 0) {
    r.bytes_per_s = static_cast<double>(r.bytes) / (static_cast<double>(r.active_ns) / 1e9);
  }
  return r;
}

}  // namespace tierlab
