// SHARDS estimates against the exact curve on a seeded zipf trace.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "bench/analysis/ShardsMrc.h"
#include "bench/analysis/StackDistanceMrc.h"

namespace tierlab {
namespace {

// Zipf(theta) over [0, n) by inverse CDF; keys are scattered so that hot
// keys are not adjacent block numbers.
std::vector<std::uint64_t> ZipfTrace(std::size_t n_keys, std::size_t n_requests, double theta,
                                     std::uint64_t seed) {
  std::vector<double> cdf(n_keys);
  double sum = 0;
  for (std::size_t i = 0; i < n_keys; ++i) {
    sum += 1.0 / std::pow(static_cast<double>(i + 1), theta);
    cdf[i] = sum;
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::uint64_t> out(n_requests);
  for (auto& k : out) {
    std::size_t rank = std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin();
    k = (rank * 2654435761u) % 1000003;  // a permutation-like scatter
  }
  return out;
}

struct Compared {
  double mae = 0;
  double max_error = 0;
};

Compared Compare(const StackDistanceMrc& exact, const ShardsMrc& shards, std::uint64_t max_size) {
  Compared c;
  std::vector<std::uint64_t> sizes = EvenCacheSizes(max_size, 100);
  for (std::uint64_t s : sizes) {
    double e = std::abs(exact.MissRatio(s) - shards.MissRatio(s));
    c.mae += e;
    c.max_error = std::max(c.max_error, e);
  }
  c.mae /= sizes.size();
  return c;
}

class ShardsMrcTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    trace_ = new std::vector<std::uint64_t>(ZipfTrace(1'000'000, 2'000'000, 0.9, 42));
    exact_ = new StackDistanceMrc(4096);
    for (std::uint64_t k : *trace_) exact_->AccessBlock(k, true);
  }
  static void TearDownTestSuite() {
    delete trace_;
    delete exact_;
  }
  static std::vector<std::uint64_t>* trace_;
  static StackDistanceMrc* exact_;
};
std::vector<std::uint64_t>* ShardsMrcTest::trace_ = nullptr;
StackDistanceMrc* ShardsMrcTest::exact_ = nullptr;

TEST_F(ShardsMrcTest, FixedRateOnePercentWithinTwoHundredthsMae) {
  ShardsMrc shards({.rate = 0.01});
  for (std::uint64_t k : *trace_) shards.AccessBlock(k, true);
  EXPECT_EQ(shards.references(), trace_->size());
  // About 1% of the references are sampled.
  EXPECT_NEAR(static_cast<double>(shards.sampled_references()) / trace_->size(), 0.01, 0.004);
  Compared c = Compare(*exact_, shards, exact_->unique_blocks());
  EXPECT_LT(c.mae, 0.02) << "max error " << c.max_error;
}

TEST_F(ShardsMrcTest, FixedSizeStaysBoundedAndClose) {
  ShardsMrc shards({.rate = 1.0, .max_samples = 8192});
  for (std::uint64_t k : *trace_) shards.AccessBlock(k, true);
  EXPECT_LE(shards.sampled_blocks(), 8192u);
  EXPECT_LT(shards.rate(), 0.05);  // the threshold had to drop
  Compared c = Compare(*exact_, shards, exact_->unique_blocks());
  EXPECT_LT(c.mae, 0.02) << "max error " << c.max_error;
}

TEST(ShardsMrcSmallTest, RateOneIsExact) {
  std::mt19937_64 rng(3);
  StackDistanceMrc exact(4096);
  ShardsMrc shards({.rate = 1.0});
  for (int i = 0; i < 20000; ++i) {
    std::uint64_t k = rng() % 700;
    bool read = rng() % 2;
    exact.AccessBlock(k, read);
    shards.AccessBlock(k, read);
  }
  for (std::uint64_t s : {1, 10, 100, 350, 699, 700}) {
    EXPECT_NEAR(shards.MissRatio(s), exact.MissRatio(s), 1e-12) << s;
    EXPECT_NEAR(shards.ReadMissRatio(s), exact.ReadMissRatio(s), 1e-12) << s;
  }
}

}  // namespace
}  // namespace tierlab
