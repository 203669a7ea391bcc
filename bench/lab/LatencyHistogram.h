#pragma once
// A log-linear (HdrHistogram-style) histogram of latencies in nanoseconds.
//
// Values below 128 ns are counted exactly; above, each power-of-two range is
// split into 64 equal buckets, so a bucket is at most 1/64 of its value wide
// and the bucket midpoint reported by Percentile() is within 1/128 (0.79%) of
// every value in it. Memory is fixed (kBucketCount counters, ~22 KiB), Record
// is O(1) with no allocation. Values at or above kMaxTrackable (2^48 ns, about
// 78 hours) land in the last bucket; Min/Max/Mean/Stddev stay exact because
// they come from exact integer sums, not from buckets.
//
// Not thread-safe: keep one per job and Merge() them when reporting.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>

namespace tierlab {

// p50, p90, p95, p99, p99.9, p99.99: the percentiles tierlab's tables show.
inline constexpr std::array<double, 6> kStandardPercentiles = {50, 90, 95, 99, 99.9, 99.99};
// fio's default percentile_list, used for fio-compatible JSON
// (`read.lat_ns.percentile`).
inline constexpr std::array<double, 17> kFioPercentiles = {
    1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;  // 128 exact values, then 64/octave
  static constexpr int kMaxValueBits = 48;  // 2^48 ns
  static constexpr std::uint64_t kMaxTrackable = 1ull << kMaxValueBits;
  static constexpr int kBucketCount =
      (1 << kSubBucketBits) + (kMaxValueBits - kSubBucketBits) * (1 << (kSubBucketBits - 1));

  LatencyHistogram() { Reset(); }

  // Negative values (a clock that went backwards) count as 0. Record is
  // inline: a run records every I/O.
  void Record(std::int64_t nanos) {
    const std::uint64_t v = nanos < 0 ? 0 : static_cast<std::uint64_t>(nanos);
    ++buckets_[BucketIndex(v)];
    ++count_;
    min_ = std::min(min_, v);
    max_ = std::max(max_, v);
    sum_ += v;
    sum_sq_ += static_cast<unsigned __int128>(v) * v;
  }
  void RecordN(std::int64_t nanos, std::uint64_t count);

  // Adds every sample of `other`; the result equals recording both streams.
  void Merge(const LatencyHistogram& other);
  void Reset();

  std::uint64_t Count() const { return count_; }
  // 0 when empty.
  std::uint64_t Min() const { return count_ ? min_ : 0; }
  std::uint64_t Max() const { return max_; }
  double Mean() const;
  // Population standard deviation (fio reports the same).
  double Stddev() const;

  // Nearest-rank percentile, p in [0, 100]: the value v such that at least
  // p% of samples are <= v (p == 0 gives Min). Within 1/128 of the exact
  // sorted-sample answer; clamped to [Min, Max]. 0 when empty.
  std::uint64_t Percentile(double p) const;
  // Several at once in one pass; `ps` ascending. out.size() == ps.size().
  void Percentiles(std::span<const double> ps, std::span<std::uint64_t> out) const;

  // Bucket geometry, exposed for tests and exporters.
  static int BucketIndex(std::uint64_t v) {
    constexpr int kExact = 1 << kSubBucketBits;       // 128
    constexpr int kHalf = 1 << (kSubBucketBits - 1);  // 64
    if (v < static_cast<std::uint64_t>(kExact)) return static_cast<int>(v);
    if (v >= kMaxTrackable) return kBucketCount - 1;
    const int msb = 63 - std::countl_zero(v);      // >= kSubBucketBits
    const int shift = msb - (kSubBucketBits - 1);  // >= 1
    const int sub = static_cast<int>(v >> shift);  // in [64, 128)
    return kExact + (shift - 1) * kHalf + (sub - kHalf);
  }
  static std::uint64_t BucketLow(int index);   // smallest value in the bucket
  static std::uint64_t BucketHigh(int index);  // largest value in the bucket
  std::uint64_t BucketCount(int index) const { return buckets_[index]; }

 private:
  std::uint64_t RepresentativeValue(int index) const;

  std::array<std::uint64_t, kBucketCount> buckets_;
  std::uint64_t count_;
  std::uint64_t min_;
  std::uint64_t max_;
  unsigned __int128 sum_;
  unsigned __int128 sum_sq_;  // exact up to ~10^38: 10^9 samples of 10^14 ns
};

}  // namespace tierlab
