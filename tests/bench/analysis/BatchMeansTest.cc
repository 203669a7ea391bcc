// Batch means: how the window is cut (20 batches, trailing bins left out,
// one batch per bin in short windows, 10 batches when the 20 are
// correlated), and coverage over many seeds on synthetic series with a
// known mean: i.i.d. and AR(1) bins, where the 95% interval from batch means
// holds the mean about 95% of the time and the naive one (bins taken as
// independent) does not.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "bench/analysis/BatchMeans.h"
#include "bench/analysis/ConfidenceInterval.h"

namespace tierlab {
namespace {

TEST(BatchMeansTest, PlanCutsTheWindowIntoTwentyBatches) {
  std::vector<double> bins(107);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = (i * 7919) % 13;  // no trend
  const BatchPlan p = PlanBatches(bins);
  EXPECT_EQ(p.batches, 20u);
  EXPECT_EQ(p.bins_per_batch, 5u);  // 100 bins in batches, the last 7 left out
  const std::vector<double> sums = BatchSums(bins, p);
  ASSERT_EQ(sums.size(), 20u);
  EXPECT_DOUBLE_EQ(sums[0], bins[0] + bins[1] + bins[2] + bins[3] + bins[4]);
  EXPECT_DOUBLE_EQ(sums[19], bins[95] + bins[96] + bins[97] + bins[98] + bins[99]);
}

TEST(BatchMeansTest, ShortWindowsGetOneBatchPerBin) {
  const std::vector<double> seven = {1, 2, 3, 2, 1, 2, 3};
  const BatchPlan p = PlanBatches(seven);
  EXPECT_EQ(p.batches, 7u);
  EXPECT_EQ(p.bins_per_batch, 1u);
  EXPECT_EQ(PlanBatches(std::vector<double>{5}).batches, 1u);
  EXPECT_EQ(PlanBatches(std::vector<double>{}).batches, 0u);
}

TEST(BatchMeansTest, CorrelatedBatchesAreDoubled) {
  // A slow sine over 400 bins: adjacent batch sums are close, lag-1 near 1.
  std::vector<double> bins(400);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = 100 + 10 * std::sin(i / 60.0);
  const BatchPlan p = PlanBatches(bins);
  EXPECT_EQ(p.batches, kMinBatchCount);
  EXPECT_EQ(p.bins_per_batch, 40u);
}

TEST(BatchMeansTest, Lag1) {
  EXPECT_EQ(Lag1Autocorrelation(std::vector<double>{3, 3, 3, 3}), 0);
  EXPECT_LT(Lag1Autocorrelation(std::vector<double>{1, -1, 1, -1, 1, -1, 1, -1}), -0.8);
  EXPECT_GT(Lag1Autocorrelation(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}), 0.5);
}

// One run's bins: AR(1) around `mean`, x(t) = mean + phi (x(t-1) - mean) +
// e(t), started in its stationary distribution (phi 0: i.i.d.).
std::vector<double> Ar1(std::mt19937_64& rng, std::size_t n, double mean, double phi) {
  std::normal_distribution<double> e(0.0, 1.0);
  std::vector<double> x(n);
  double dev = e(rng) / std::sqrt(1 - phi * phi);
  for (double& v : x) {
    v = mean + dev;
    dev = phi * dev + e(rng);
  }
  return x;
}

struct Coverage {
  double batch_means = 0;  // the run's interval from batch means
  double naive = 0;        // bins taken as independent samples
};

Coverage CoverageOf(double phi, std::uint64_t seed) {
  constexpr double kMean = 50;
  constexpr int kTrials = 2000;
  std::mt19937_64 rng(seed);
  int held = 0, naive_held = 0;
  for (int t = 0; t < kTrials; ++t) {
    const std::vector<double> bins = Ar1(rng, 2000, kMean, phi);
    double sum = 0;
    for (double v : bins) sum += v;
    const double figure = sum / static_cast<double>(bins.size());
    const BatchPlan plan = PlanBatches(bins);
    std::vector<double> means = BatchSums(bins, plan);
    for (double& m : means) m /= static_cast<double>(plan.bins_per_batch);
    held += IntervalAround(figure, means).Contains(kMean) ? 1 : 0;
    naive_held += MeanInterval(bins).Contains(kMean) ? 1 : 0;
  }
  return {static_cast<double>(held) / kTrials, static_cast<double>(naive_held) / kTrials};
}

TEST(BatchMeansTest, CoverageOnIidBins) {
  const Coverage c = CoverageOf(0.0, 17);
  EXPECT_GT(c.batch_means, 0.93);
  EXPECT_LT(c.batch_means, 0.97);
}

TEST(BatchMeansTest, CoverageOnCorrelatedBins) {
  // phi 0.9: a correlation time of about 10 bins, batches of 100 bins. The
  // naive interval is sqrt((1 + phi) / (1 - phi)) = 4.4 times too narrow
  // and holds the mean about a third of the time.
  for (double phi : {0.5, 0.9}) {
    const Coverage c = CoverageOf(phi, 29);
    EXPECT_GT(c.batch_means, 0.90) << "phi " << phi;
    EXPECT_LT(c.batch_means, 0.99) << "phi " << phi;
    EXPECT_LT(c.naive, 0.80) << "phi " << phi;
  }
}

}  // namespace
}  // namespace tierlab
