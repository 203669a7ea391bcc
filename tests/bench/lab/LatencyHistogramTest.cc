#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "bench/lab/LatencyHistogram.h"

namespace tierlab {
namespace {

std::uint64_t ExactPercentile(const std::vector<std::uint64_t>& sorted, double p) {
  auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<std::uint64_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

void ExpectPercentilesWithinOnePercent(std::vector<std::uint64_t> values, const char* what) {
  LatencyHistogram h;
  for (auto v : values) h.Record(static_cast<std::int64_t>(v));
  std::sort(values.begin(), values.end());
  std::vector<double> ps(kFioPercentiles.begin(), kFioPercentiles.end());
  ps.insert(ps.end(), kStandardPercentiles.begin(), kStandardPercentiles.end());
  ps.push_back(0);
  ps.push_back(100);
  ps.push_back(99.999);
  for (double p : ps) {
    const double exact = static_cast<double>(ExactPercentile(values, p));
    const double got = static_cast<double>(h.Percentile(p));
    EXPECT_LE(std::abs(got - exact), 0.01 * exact)
        << what << " p" << p << " exact " << exact << " got " << got;
  }
  // Exact moments.
  long double sum = 0, sq = 0;
  for (auto v : values) sum += v, sq += static_cast<long double>(v) * v;
  const long double n = values.size();
  const long double mean = sum / n;
  EXPECT_EQ(h.Count(), values.size());
  EXPECT_EQ(h.Min(), values.front());
  EXPECT_EQ(h.Max(), values.back());
  EXPECT_NEAR(h.Mean(), static_cast<double>(mean), 1e-9 * static_cast<double>(mean));
  const double sd = static_cast<double>(std::sqrt(sq / n - mean * mean));
  EXPECT_NEAR(h.Stddev(), sd, 1e-6 * sd + 1e-9);
}

TEST(LatencyHistogramTest, UniformPercentilesWithinOnePercent) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<std::uint64_t> d(1, 10'000'000);
  std::vector<std::uint64_t> v(200'000);
  for (auto& x : v) x = d(rng);
  ExpectPercentilesWithinOnePercent(v, "uniform");
}

TEST(LatencyHistogramTest, LognormalPercentilesWithinOnePercent) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> d(std::log(100'000.0), 1.0);
  std::vector<std::uint64_t> v(200'000);
  for (auto& x : v) x = static_cast<std::uint64_t>(d(rng)) + 1;
  ExpectPercentilesWithinOnePercent(v, "lognormal");
}

TEST(LatencyHistogramTest, BimodalPercentilesWithinOnePercent) {
  // A cache: hits near 20 us, misses near 5 ms.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> hit(20'000, 2'000), miss(5'000'000, 500'000);
  std::bernoulli_distribution is_hit(0.8);
  std::vector<std::uint64_t> v(200'000);
  for (auto& x : v)
    x = static_cast<std::uint64_t>(std::max(1.0, is_hit(rng) ? hit(rng) : miss(rng)));
  ExpectPercentilesWithinOnePercent(v, "bimodal");
}

TEST(LatencyHistogramTest, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int i = 0; i < 100; ++i) h.Record(i);
  EXPECT_EQ(h.Percentile(50), 49u);
  EXPECT_EQ(h.Percentile(0), 0u);
  EXPECT_EQ(h.Percentile(100), 99u);
}

TEST(LatencyHistogramTest, BucketsAreAtMostOneSixtyFourthWide) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 100000; ++i) {
    const int shift = static_cast<int>(rng() % 48) + 16;  // values below 2^48
    const std::uint64_t v = rng() >> shift;
    if (v >= LatencyHistogram::kMaxTrackable) continue;
    const int idx = LatencyHistogram::BucketIndex(v);
    ASSERT_GE(idx, 0);
    ASSERT_LT(idx, LatencyHistogram::kBucketCount);
    const auto lo = LatencyHistogram::BucketLow(idx), hi = LatencyHistogram::BucketHigh(idx);
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    if (v >= 128) {
      ASSERT_LE(static_cast<double>(hi - lo + 1) / static_cast<double>(lo), 1.0 / 64 + 1e-12);
    }
  }
  EXPECT_EQ(LatencyHistogram::BucketIndex(LatencyHistogram::kMaxTrackable - 1),
            LatencyHistogram::kBucketCount - 1);
}

TEST(LatencyHistogramTest, MergeEqualsRecordingBoth) {
  std::mt19937_64 rng(5);
  LatencyHistogram a, b, both;
  for (int i = 0; i < 10000; ++i) {
    const auto v = static_cast<std::int64_t>(rng() % 1'000'000);
    (i % 3 ? a : b).Record(v);
    both.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.Count(), both.Count());
  EXPECT_EQ(a.Min(), both.Min());
  EXPECT_EQ(a.Max(), both.Max());
  EXPECT_DOUBLE_EQ(a.Mean(), both.Mean());
  EXPECT_DOUBLE_EQ(a.Stddev(), both.Stddev());
  for (double p : kFioPercentiles) EXPECT_EQ(a.Percentile(p), both.Percentile(p)) << p;
}

TEST(LatencyHistogramTest, EmptyAndHugeValues) {
  LatencyHistogram h;
  EXPECT_EQ(h.Count(), 0u);
  EXPECT_EQ(h.Percentile(99), 0u);
  EXPECT_EQ(h.Min(), 0u);
  EXPECT_EQ(h.Mean(), 0.0);
  h.Record(-5);  // clock went backwards: counted as 0
  EXPECT_EQ(h.Min(), 0u);
  const std::int64_t huge = static_cast<std::int64_t>(LatencyHistogram::kMaxTrackable) * 4;
  h.Record(huge);
  EXPECT_EQ(h.Max(), static_cast<std::uint64_t>(huge));
  EXPECT_LE(h.Percentile(100), static_cast<std::uint64_t>(huge));
  EXPECT_GE(h.Percentile(100), LatencyHistogram::kMaxTrackable / 2);
  h.Reset();
  EXPECT_EQ(h.Count(), 0u);
}

TEST(LatencyHistogramTest, PercentilesBatchMatchesSingle) {
  std::mt19937_64 rng(6);
  LatencyHistogram h;
  for (int i = 0; i < 5000; ++i) h.Record(static_cast<std::int64_t>(rng() % 10'000'000));
  std::array<std::uint64_t, kStandardPercentiles.size()> out{};
  h.Percentiles(kStandardPercentiles, out);
  for (std::size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(out[i], h.Percentile(kStandardPercentiles[i]));
}

}  // namespace
}  // namespace tierlab
