#include "bench/lab/TimeBins.h"

#include <algorithm>

namespace tierlab {

void TimeBins::Coarsen() {
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    Bin& to = bins_[i / 2];
    const Bin from = bins_[i];
    if (i % 2 == 0) {
      to = from;
    } else {
      to.ops += from.ops;
      to.bytes += from.bytes;
      to.lat_ns += from.lat_ns;
    }
  }
  bins_.resize((bins_.size() + 1) / 2);
  width_ *= 2;
}

void TimeBins::Merge(const TimeBins& other) {
  while (width_ < other.width_) Coarsen();
  const std::size_t ratio = static_cast<std::size_t>(width_ / other.width_);
  for (std::size_t j = 0; j < other.bins_.size(); ++j) {
    const Bin& from = other.bins_[j];
    if (from.ops == 0) continue;
    const std::size_t i = j / ratio;
    if (i >= bins_.size()) bins_.resize(i + 1);
    Bin& to = bins_[i];
    to.ops += from.ops;
    to.bytes += from.bytes;
    to.lat_ns += from.lat_ns;
  }
  while (bins_.size() > kMaxBins) Coarsen();
}

TimeBins::Series TimeBins::Over(Nanos window) const {
  TimeBins wide = *this;
  while (window / wide.width_ > static_cast<Nanos>(kMaxBins)) wide.Coarsen();
  const std::size_t n = window > 0 ? static_cast<std::size_t>(window / wide.width_) : 0;
  Series s{wide.width_, std::vector<Bin>(n)};
  std::copy_n(wide.bins_.begin(), std::min(n, wide.bins_.size()), s.bins.begin());
  return s;
}

}  // namespace tierlab
