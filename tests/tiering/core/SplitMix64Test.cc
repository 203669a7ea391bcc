// SplitMix64: the published sequence from seed 0 (the first outputs of
// Vigna's splitmix64.c), the hash as the generator's step, and consecutive
// keys spread over every bit.

#include <gtest/gtest.h>

#include <bit>

#include "tiering/core/SplitMix64.h"

namespace tierlab {
namespace {

TEST(SplitMix64Test, SeedZeroGivesThePublishedSequence) {
  SplitMix64 g(0);
  EXPECT_EQ(g.Next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(g.Next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(g.Next(), 0x06c45d188009454full);
}

TEST(SplitMix64Test, TheHashIsTheGeneratorsStepAndUsableAtCompileTime) {
  static_assert(SplitMix64Hash(0) == 0xe220a8397b1dcdafull);
  SplitMix64 g(12345);
  for (std::uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(g.Next(), SplitMix64Hash(12345 + i * kGoldenGamma)) << i;
  }
}

TEST(SplitMix64Test, ConsecutiveKeysFlipAboutHalfTheBitsAndUnitsStayInRange) {
  double flipped = 0;
  constexpr int kKeys = 10000;
  for (std::uint64_t k = 0; k < kKeys; ++k) {
    flipped += std::popcount(SplitMix64Hash(k) ^ SplitMix64Hash(k + 1));
  }
  EXPECT_NEAR(flipped / kKeys, 32, 0.5);
  SplitMix64 g(7);
  double sum = 0;
  for (int i = 0; i < kKeys; ++i) {
    const double u = g.NextUnit();
    ASSERT_GE(u, 0);
    ASSERT_LT(u, 1);
    sum += u;
  }
  EXPECT_NEAR(sum / kKeys, 0.5, 0.01);
}

}  // namespace
}  // namespace tierlab
