#include "bench/analysis/ConfidenceInterval.h"

#include <cmath>

#include "bench/analysis/StudentT.h"

namespace tierlab {
namespace {

double Mean(std::span<const double> v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

double HalfWidth(std::span<const double> samples, double level) {
  const std::size_t n = samples.size();
  if (n < 2) return 0;
  const double mean = Mean(samples);
  double sq = 0;
  for (double x : samples) sq += (x - mean) * (x - mean);
  const double s = std::sqrt(sq / static_cast<double>(n - 1));
  const double t = StudentTQuantile(1 - (1 - level) / 2, static_cast<double>(n - 1));
  return t * s / std::sqrt(static_cast<double>(n));
}

ConfidenceInterval MeanInterval(std::span<const double> samples, double level) {
  return IntervalAround(Mean(samples), samples, level);
}

ConfidenceInterval IntervalAround(double centre, std::span<const double> samples, double level) {
  ConfidenceInterval ci;
  ci.centre = centre;
  ci.n = samples.size();
  ci.half_width = HalfWidth(samples, level);
  return ci;
}

}  // namespace tierlab
