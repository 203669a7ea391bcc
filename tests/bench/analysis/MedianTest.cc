// The median: odd and even counts, order not mattering, repeated values, and
// an empty set giving NaN rather than a figure.

#include <gtest/gtest.h>

#include <cmath>

#include "bench/analysis/Median.h"

namespace tierlab {
namespace {

TEST(MedianTest, OddCountGivesTheMiddleValue) {
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(Median({7}), 7);
}

TEST(MedianTest, EvenCountGivesTheMeanOfTheTwoMiddleValues) {
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({10, 20}), 15);
  // A slow outlier moves the mean, not the median.
  EXPECT_DOUBLE_EQ(Median({100, 101, 99, 10}), 99.5);
}

TEST(MedianTest, RepeatedValuesAndOrderDoNotMatter) {
  EXPECT_DOUBLE_EQ(Median({2, 2, 2, 9}), 2);
  EXPECT_DOUBLE_EQ(Median({9, 2, 2, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({3, 1, 2, 6, 5, 4}), 3.5);
  EXPECT_DOUBLE_EQ(Median({6, 5, 4, 3, 2, 1}), 3.5);
}

TEST(MedianTest, EmptySetHasNoMedian) {
  EXPECT_TRUE(std::isnan(Median({})));
}

}  // namespace
}  // namespace tierlab
