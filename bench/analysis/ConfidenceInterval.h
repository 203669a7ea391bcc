#pragma once
// A two-sided confidence interval on a mean, from n samples taken as
// independent and identically distributed (repeats of a cell; batch means
// of one run, bench/analysis/BatchMeans.h): centre +- t(1 - alpha/2, n - 1)
// x s / sqrt(n), s the sample standard deviation (n - 1 denominator) and t
// Student's quantile (bench/analysis/StudentT.h). With fewer than two
// samples there is no interval (n < 2 below).

#include <cstddef>
#include <span>

namespace tierlab {

inline constexpr double kConfidenceLevel = 0.95;

struct ConfidenceInterval {
  double centre = 0;
  double half_width = 0;
  std::size_t n = 0;  // samples behind it; < 2: no interval

  bool valid() const { return n >= 2; }
  double lo() const { return centre - half_width; }
  double hi() const { return centre + half_width; }
  bool Contains(double v) const { return valid() && v >= lo() && v <= hi(); }
  // Two intervals overlap when they share a point; an invalid one overlaps
  // nothing (there is nothing to compare).
  bool Overlaps(const ConfidenceInterval& o) const {
    return valid() && o.valid() && lo() <= o.hi() && o.lo() <= hi();
  }
};

// t(1 - (1 - level) / 2, n - 1) x s / sqrt(n) of `samples`; 0 for n < 2.
double HalfWidth(std::span<const double> samples, double level = kConfidenceLevel);

// The interval on the samples' own mean.
ConfidenceInterval MeanInterval(std::span<const double> samples, double level = kConfidenceLevel);

// The samples' half-width around another estimate of the same mean (a run's
// whole-window figure, of which batch means are a partition).
ConfidenceInterval IntervalAround(double centre, std::span<const double> samples,
                                  double level = kConfidenceLevel);

}  // namespace tierlab
