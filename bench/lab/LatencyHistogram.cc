#include "bench/lab/LatencyHistogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace tierlab {
namespace {
constexpr int kExact = 1 << LatencyHistogram::kSubBucketBits;       // 128
constexpr int kHalf = 1 << (LatencyHistogram::kSubBucketBits - 1);  // 64
}  // namespace

std::uint64_t LatencyHistogram::BucketLow(int index) {
  if (index < kExact) return static_cast<std::uint64_t>(index);
  const int shift = (index - kExact) / kHalf + 1;
  const int sub = (index - kExact) % kHalf + kHalf;
  return static_cast<std::uint64_t>(sub) << shift;
}

std::uint64_t LatencyHistogram::BucketHigh(int index) {
  if (index < kExact) return static_cast<std::uint64_t>(index);
  const int shift = (index - kExact) / kHalf + 1;
  return BucketLow(index) + (std::uint64_t{1} << shift) - 1;
}

void LatencyHistogram::Reset() {
  buckets_.fill(0);
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
  sum_sq_ = 0;
}

void LatencyHistogram::RecordN(std::int64_t nanos, std::uint64_t count) {
  if (count == 0) return;
  const std::uint64_t v = nanos < 0 ? 0 : static_cast<std::uint64_t>(nanos);
  buckets_[BucketIndex(v)] += count;
  count_ += count;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += static_cast<unsigned __int128>(v) * count;
  sum_sq_ += static_cast<unsigned __int128>(v) * v * count;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  for (int i = 0; i < kBucketCount; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_sq_ += other.sum_sq_;
}

double LatencyHistogram::Mean() const {
  if (count_ == 0) return 0;
  return static_cast<double>(static_cast<long double>(sum_) / count_);
}

double LatencyHistogram::Stddev() const {
  if (count_ == 0) return 0;
  const long double n = count_;
  const long double mean = static_cast<long double>(sum_) / n;
  const long double var = static_cast<long double>(sum_sq_) / n - mean * mean;
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

std::uint64_t LatencyHistogram::RepresentativeValue(int index) const {
  // The midpoint halves the worst-case error of either edge; the clamp makes
  // p0/p100 and single-bucket histograms exact.
  const std::uint64_t lo = BucketLow(index), hi = BucketHigh(index);
  const std::uint64_t mid = lo + (hi - lo + 1) / 2;
  return std::clamp(mid, Min(), max_);
}

void LatencyHistogram::Percentiles(std::span<const double> ps, std::span<std::uint64_t> out) const {
  std::size_t k = 0;
  if (count_ == 0) {
    for (; k < ps.size() && k < out.size(); ++k) out[k] = 0;
    return;
  }
  std::uint64_t seen = 0;
  int i = 0;
  for (; k < ps.size() && k < out.size(); ++k) {
    const double p = std::clamp(ps[k], 0.0, 100.0);
    // Nearest rank: ceil(p/100 * N), at least 1.
    std::uint64_t rank =
        static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    if (rank <= seen) seen = 0, i = 0;  // ps not ascending: rescan
    while (seen + buckets_[i] < rank) seen += buckets_[i++];
    out[k] = RepresentativeValue(i);
  }
}

std::uint64_t LatencyHistogram::Percentile(double p) const {
  std::uint64_t v = 0;
  Percentiles(std::span<const double>(&p, 1), std::span<std::uint64_t>(&v, 1));
  return v;
}

}  // namespace tierlab
