// A run's device figures name the resource that bound it: a tier's
// throttle (read_iops_limit and the rest) is one, weighed by the share of
// its limit that passed, per direction.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/bench/lab/RunOnce.h"

namespace tierlab {
namespace {

// 4k random reads at QD8 for a second on one SATA SSD (75k reads a second
// rated) with `limits` on its tier.
nlohmann::json ReadRun(const nlohmann::json& limits) {
  nlohmann::json tier = {{"name", "ssd"}, {"preset", "ssd-hk4e"}, {"capacity", "4g"}};
  tier.update(limits);
  return RunOnce({{"name", "one"}, {"tiers", {tier}}}, {{"name", "r"},
                                                        {"rw", "randread"},
                                                        {"bs", "4k"},
                                                        {"iodepth", 8},
                                                        {"size", "1g"},
                                                        {"runtime", "1s"}});
}

TEST(DeviceWindowTest, AThrottleAtItsLimitIsTheBusiest) {
  const nlohmann::json run = ReadRun({{"read_iops_limit", 5000}});
  ASSERT_TRUE(run.contains("busiest")) << run.dump();
  const double iops = run["jobs"][0]["read"]["iops"].get<double>();
  EXPECT_NEAR(iops, 5000, 50);
  EXPECT_EQ(run["busiest"]["resource"], "ssd ssd0 throttle") << run["busiest"].dump();
  // The reads that passed over the limit's 5,000 a second.
  EXPECT_NEAR(run["busiest"]["util"].get<double>(), 1.0, 0.02);

  // A bandwidth limit binds the same way: 8 MiB/s of 4 KiB reads is 2,048
  // a second.
  const nlohmann::json bw = ReadRun({{"read_bw_limit", "8m"}});
  EXPECT_NEAR(bw["jobs"][0]["read"]["iops"].get<double>(), 2048, 20);
  EXPECT_EQ(bw["busiest"]["resource"], "ssd ssd0 throttle");
  EXPECT_NEAR(bw["busiest"]["util"].get<double>(), 1.0, 0.02);
}

TEST(DeviceWindowTest, AThrottleOnTheOtherDirectionWeighsNothing) {
  // Writes are throttled, the run only reads: the reads run at the
  // device's speed and the throttle is not named.
  const nlohmann::json run = ReadRun({{"write_iops_limit", 1000}});
  EXPECT_GT(run["jobs"][0]["read"]["iops"].get<double>(), 50'000);
  EXPECT_EQ(run["busiest"]["resource"], "ssd ssd0") << run["busiest"].dump();
}

}  // namespace
}  // namespace tierlab
