// Student's t: the quantile against published values (two-sided 95% for the
// degrees of freedom a confidence interval meets, and a few other levels),
// the closed forms for 1 and 2 degrees of freedom, the normal limit, and the
// incomplete beta function's special cases.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "bench/analysis/StudentT.h"

namespace tierlab {
namespace {

TEST(StudentTTest, QuantileMatchesPublishedValues) {
  struct Case {
    double p, df, t;
  };
  // Values of the t tables (NIST/SEMATECH e-Handbook 1.3.6.7.2), to the
  // digits given there and beyond.
  const Case cases[] = {
      {0.975, 1, 12.706204736},  {0.975, 2, 4.302652730},  {0.975, 3, 3.182446305},
      {0.975, 4, 2.776445105},   {0.975, 5, 2.570581836},  {0.975, 9, 2.262157163},
      {0.975, 10, 2.228138852},  {0.975, 19, 2.093024054}, {0.975, 29, 2.045229642},
      {0.975, 120, 1.979930405}, {0.995, 10, 3.169272673}, {0.95, 5, 2.015048373},
      {0.9, 1, 3.077683537},     {0.999, 3, 10.214531852},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(StudentTQuantile(c.p, c.df), c.t, 1e-8 * c.t) << "p " << c.p << " df " << c.df;
    EXPECT_NEAR(StudentTQuantile(1 - c.p, c.df), -c.t, 1e-8 * c.t) << "lower tail, df " << c.df;
  }
  EXPECT_NEAR(StudentTQuantile(0.975, 4), 2.776, 5e-4);
}

TEST(StudentTTest, ClosedFormsAndNormalLimit) {
  for (double p : {0.6, 0.8, 0.9, 0.95, 0.975, 0.99, 0.9995}) {
    EXPECT_NEAR(StudentTQuantile(p, 1), std::tan(std::numbers::pi * (p - 0.5)), 1e-9) << p;
    EXPECT_NEAR(StudentTQuantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-9) << p;
  }
  EXPECT_NEAR(StudentTQuantile(0.975, 1e7), 1.959963985, 1e-6);
  EXPECT_DOUBLE_EQ(StudentTQuantile(0.5, 7), 0.0);
  // Non-integer degrees of freedom lie between their neighbours.
  const double t45 = StudentTQuantile(0.975, 4.5);
  EXPECT_LT(t45, StudentTQuantile(0.975, 4));
  EXPECT_GT(t45, StudentTQuantile(0.975, 5));
}

TEST(StudentTTest, CdfInvertsQuantile) {
  for (double df : {1.0, 3.0, 19.0, 200.0}) {
    for (double p : {0.01, 0.3, 0.7, 0.975}) {
      EXPECT_NEAR(StudentTCdf(StudentTQuantile(p, df), df), p, 1e-12) << df << " " << p;
    }
  }
  EXPECT_DOUBLE_EQ(StudentTCdf(0, 5), 0.5);
  EXPECT_DOUBLE_EQ(StudentTCdf(INFINITY, 5), 1.0);
  EXPECT_DOUBLE_EQ(StudentTCdf(-INFINITY, 5), 0.0);
}

TEST(StudentTTest, OutOfRangeIsNan) {
  EXPECT_TRUE(std::isnan(StudentTQuantile(0, 4)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(1, 4)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(0.975, 0)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(NAN, 4)));
  EXPECT_TRUE(std::isnan(StudentTCdf(1, -1)));
}

TEST(StudentTTest, IncompleteBetaSpecialCases) {
  for (double x : {0.0, 0.1, 0.5, 0.93, 1.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 1), x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 3, 1), x * x * x, 1e-14) << x;
    EXPECT_NEAR(RegularizedIncompleteBeta(x, 1, 4), 1 - std::pow(1 - x, 4), 1e-14) << x;
  }
  for (double a : {0.5, 2.0, 40.0, 500.0}) {
    EXPECT_NEAR(RegularizedIncompleteBeta(0.5, a, a), 0.5, 1e-12) << a;
  }
  EXPECT_TRUE(std::isnan(RegularizedIncompleteBeta(1.5, 1, 1)));
}

}  // namespace
}  // namespace tierlab
