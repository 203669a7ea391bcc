// Coverage of a run's batch-means intervals on real simulated runs: 200
// short runs of one 7200 rpm disk at QD1 (4k random reads; seek and
// rotation make every run's IOPS and latency differ), each with its own
// seed. The long-run mean is estimated by the mean of the 200 runs' figures
// (its standard error is 1/sqrt(200) of one run's); each run's 95% interval
// should hold it about 95% of the time: 90-99% is asked, the binomial
// standard error at 200 runs being 1.5 points.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "bench/lab/CiFormat.h"
#include "bench/lab/RunCell.h"

namespace tierlab {
namespace {

struct Figure {
  double value = 0;
  ConfidenceInterval ci;
};

TEST(OpMetricsCoverageTest, IntervalsHoldTheLongRunMean) {
  auto layout = ParseLayoutJson(
      {{"name", "disk"},
       {"tiers", {{{"name", "d"}, {"preset", "hdd-7200"}, {"count", 1}, {"capacity", "8g"}}}}},
      "test");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  auto profile = ParseProfileJson({{"name", "qd1"},
                                   {"rw", "randread"},
                                   {"bs", "4k"},
                                   {"iodepth", 1},
                                   {"size", "8g"},
                                   {"runtime", "2s"}},
                                  "test");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  constexpr int kRuns = 200;
  std::vector<Figure> iops, lat;
  for (int seed = 1; seed <= kRuns; ++seed) {
    RunSettings settings;
    settings.randseed = seed;
    settings.build_seed = seed;
    auto runs = RunCell(*layout, Workload{std::vector<Profile>{*profile}}, settings);
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    const nlohmann::json& read = runs->at(0).json["jobs"][0]["read"];
    iops.push_back({read["iops"].get<double>(), CiFromJson(read["iops_ci95"])});
    lat.push_back({read["lat_ns"]["mean"].get<double>(), CiFromJson(read["lat_ns"]["mean_ci95"])});
  }
  for (const auto* figures : {&iops, &lat}) {
    double mean = 0;
    for (const Figure& f : *figures) mean += f.value / kRuns;
    int held = 0;
    for (const Figure& f : *figures) {
      ASSERT_TRUE(f.ci.valid());
      held += f.ci.Contains(mean) ? 1 : 0;
    }
    const double coverage = static_cast<double>(held) / kRuns;
    EXPECT_GE(coverage, 0.90) << (figures == &iops ? "iops" : "lat") << " mean " << mean;
    EXPECT_LE(coverage, 0.99) << (figures == &iops ? "iops" : "lat") << " mean " << mean;
  }
}

}  // namespace
}  // namespace tierlab
