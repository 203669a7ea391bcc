#pragma once
// What a run's confidence intervals are computed from (bench/analysis/
// BatchMeans.h): completions, bytes and summed latency per bin of equal
// simulated (or real) duration, from the measured window's start. Bins start
// 1 ms wide; whenever a completion would need more than kMaxBins bins, pairs
// of bins are merged and the width doubles, so a run of any length keeps at
// most kMaxBins bins (48 KiB) and at least kMaxBins / 2 once it is longer
// than that many milliseconds: batches of 20 then hold 51 bins or more.
//
// Not thread-safe (one per OpStats, as the rest of OpMetrics).

#include <cstdint>
#include <vector>

#include "tiering/core/IoRequest.h"

namespace tierlab {

class TimeBins {
 public:
  static constexpr Nanos kBaseWidth = kMilli;
  static constexpr std::size_t kMaxBins = 2048;

  struct Bin {
    std::uint64_t ops = 0;
    std::uint64_t bytes = 0;
    std::uint64_t lat_ns = 0;  // sum of the bin's latencies
  };

  // A completion `offset` ns after the window's start (>= 0).
  void Add(Nanos offset, std::uint64_t length, Nanos latency) {
    std::size_t i = static_cast<std::size_t>(offset / width_);
    if (i >= bins_.size()) {
      while (i >= kMaxBins) {
        Coarsen();
        i = static_cast<std::size_t>(offset / width_);
      }
      bins_.resize(i + 1);
    }
    Bin& b = bins_[i];
    ++b.ops;
    b.bytes += length;
    b.lat_ns += static_cast<std::uint64_t>(latency);
  }

  // Adds another series over the same window start (at the wider width).
  void Merge(const TimeBins& other);

  Nanos width() const { return width_; }
  // The bins that lie wholly inside a window of `window` ns from the start,
  // bins without completions included as zeros, at the width that keeps
  // them within kMaxBins (wider than width() when the window runs on long
  // after the last completion).
  struct Series {
    Nanos width = kBaseWidth;
    std::vector<Bin> bins;
  };
  Series Over(Nanos window) const;

 private:
  void Coarsen();  // merges pairs of bins; the width doubles

  Nanos width_ = kBaseWidth;
  std::vector<Bin> bins_;
};

}  // namespace tierlab
