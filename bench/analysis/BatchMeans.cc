#include "bench/analysis/BatchMeans.h"

#include <algorithm>

namespace tierlab {

double Lag1Autocorrelation(std::span<const double> x) {
  if (x.size() < 3) return 0;
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    den += (x[i] - mean) * (x[i] - mean);
    if (i + 1 < x.size()) num += (x[i] - mean) * (x[i + 1] - mean);
  }
  return den > 0 ? num / den : 0;
}

std::vector<double> BatchSums(std::span<const double> bins, const BatchPlan& plan) {
  std::vector<double> sums(plan.batches, 0.0);
  for (std::size_t b = 0; b < plan.batches; ++b) {
    for (std::size_t i = 0; i < plan.bins_per_batch; ++i) {
      const std::size_t at = b * plan.bins_per_batch + i;
      if (at < bins.size()) sums[b] += bins[at];
    }
  }
  return sums;
}

BatchPlan PlanBatches(std::span<const double> reference) {
  const std::size_t n = reference.size();
  BatchPlan plan;
  plan.batches = std::min(kBatchCount, n);
  if (plan.batches == 0) return plan;
  plan.bins_per_batch = n / plan.batches;
  plan.lag1 = Lag1Autocorrelation(BatchSums(reference, plan));
  if (plan.lag1 > kMaxBatchLag1 && plan.batches >= 2 * kMinBatchCount) {
    plan.batches = kMinBatchCount;
    plan.bins_per_batch = n / plan.batches;
    plan.lag1 = Lag1Autocorrelation(BatchSums(reference, plan));
  }
  return plan;
}

}  // namespace tierlab
