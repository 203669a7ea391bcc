// Confidence intervals on a mean from i.i.d. samples: the half-width by hand
// for a small sample, overlap and containment, and coverage over many
// seeds (the interval holds the true mean about 95% of the time).

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bench/analysis/ConfidenceInterval.h"

namespace tierlab {
namespace {

TEST(ConfidenceIntervalTest, HalfWidthByHand) {
  // Mean 5, s^2 = ((-2)^2 + 0 + 2^2 + (-1)^2 + 1^2) / 4 = 2.5; t(0.975, 4) =
  // 2.776445105: half-width 2.776445105 x sqrt(2.5 / 5).
  const std::vector<double> v = {3, 5, 7, 4, 6};
  const ConfidenceInterval ci = MeanInterval(v);
  EXPECT_DOUBLE_EQ(ci.centre, 5);
  EXPECT_EQ(ci.n, 5u);
  EXPECT_NEAR(ci.half_width, 2.776445105 * std::sqrt(0.5), 1e-8);
  EXPECT_NEAR(ci.lo(), 5 - ci.half_width, 1e-12);
  const ConfidenceInterval around = IntervalAround(5.5, v);
  EXPECT_DOUBLE_EQ(around.centre, 5.5);
  EXPECT_DOUBLE_EQ(around.half_width, ci.half_width);
}

TEST(ConfidenceIntervalTest, FewerThanTwoSamplesIsNoInterval) {
  const std::vector<double> one = {42};
  const ConfidenceInterval ci = MeanInterval(one);
  EXPECT_FALSE(ci.valid());
  EXPECT_EQ(ci.half_width, 0);
  EXPECT_FALSE(ci.Contains(42));
  EXPECT_FALSE(ci.Overlaps(MeanInterval(std::vector<double>{41, 43})));
}

TEST(ConfidenceIntervalTest, Overlap) {
  ConfidenceInterval a{10, 1, 5}, b{12.5, 1, 5}, c{11.9, 1, 5};
  EXPECT_FALSE(a.Overlaps(b));
  EXPECT_FALSE(b.Overlaps(a));
  EXPECT_TRUE(a.Overlaps(c));
  EXPECT_TRUE(c.Overlaps(b));
  EXPECT_TRUE(a.Contains(10.9));
  EXPECT_FALSE(a.Contains(11.1));
}

// Over many seeds, Student's t on n normal samples holds the mean 95% of the
// time, for the n a matrix's repeats have. 4000 trials: the standard error of
// the coverage is 0.35 percentage points.
TEST(ConfidenceIntervalTest, CoverageOfRepeats) {
  for (std::size_t n : {2u, 3u, 5u, 10u}) {
    std::mt19937_64 rng(1234 + n);
    std::normal_distribution<double> noise(1000.0, 37.0);
    int held = 0;
    const int trials = 4000;
    for (int i = 0; i < trials; ++i) {
      std::vector<double> v(n);
      for (double& x : v) x = noise(rng);
      held += MeanInterval(v).Contains(1000.0) ? 1 : 0;
    }
    const double coverage = static_cast<double>(held) / trials;
    EXPECT_GT(coverage, 0.935) << "n " << n;
    EXPECT_LT(coverage, 0.965) << "n " << n;
  }
}

}  // namespace
}  // namespace tierlab
