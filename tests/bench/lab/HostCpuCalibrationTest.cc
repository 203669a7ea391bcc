// The host's CPU: a one-node layout's "cpu" binds a RAM-speed run and is
// named its busiest resource; the CPU's calibration gives back a known CPU
// when it probes a simulated one; the fit on a probe's figures.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/lab/HostCpuCalibration.h"
#include "bench/lab/RunCell.h"
#include "bench/workload/Profile.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

// A write-back cache on RAM over RAM, 4k reads at QD16 over 64 MiB that
// the cache holds: the RAM model's 2 M IOPS are not the bound, the host's
// 5 us a request is: 200,000 reads a second, and by Little's law 16 x 5 us
// = 80 us each. Without the cpu key the same run reads at the RAM model's
// rate, ten times as fast.
TEST(HostCpuCalibrationTest, TheHostCpuBindsARamSpeedRunAndIsNamedTheBusiest) {
  auto run = [](const nlohmann::json& cpu) {
    LayoutSpec l = HostCpuLayout(64ull << 20);
    if (!cpu.is_null()) {
      nlohmann::json j = LayoutToJson(l);
      j["cpu"] = cpu;
      l = *ParseLayoutJson(j, "test");
    }
    auto p = ParseProfileJson({{"name", "r"},
                               {"rw", "randread"},
                               {"bs", "4k"},
                               {"iodepth", 16},
                               {"size", "64m"},
                               {"precondition", "fill"},
                               {"ramp_time", "50ms"},
                               {"runtime", "500ms"},
                               {"time_based", true}},
                              "test");
    EXPECT_TRUE(p.ok()) << p.error().message;
    auto runs = RunCell(l, Workload{std::vector<Profile>{*p}}, RunSettings{});
    EXPECT_TRUE(runs.ok()) << runs.error().message;
    return runs.ok() ? (*runs)[0].json : nlohmann::json{};
  };
  const nlohmann::json bound = run({{"per_io_ns", 5000}});
  ASSERT_TRUE(bound.contains("jobs"));
  EXPECT_NEAR(bound["jobs"][0]["read"]["iops"].get<double>(), 200000, 2000);
  EXPECT_NEAR(bound["jobs"][0]["read"]["lat_ns"]["mean"].get<double>(), 80000, 2000);
  ASSERT_EQ(bound["cpu"].size(), 1u);
  EXPECT_EQ(bound["cpu"][0]["name"], "host.cpu");
  EXPECT_GT(bound["cpu"][0]["util"].get<double>(), 0.99);
  EXPECT_EQ(bound["busiest"]["resource"], "host.cpu");

  const nlohmann::json free = run(nullptr);
  ASSERT_TRUE(free.contains("jobs"));
  EXPECT_GT(free["jobs"][0]["read"]["iops"].get<double>(), 1'000'000);
  EXPECT_FALSE(free.contains("cpu"));
}

// The probe run on a simulated volume whose host CPU is known: the fit
// gives it back, and predicts the 16k points it was not fitted to (the RAM
// model's own time, 0.5 us a 4k request and 6.5 us a 64k one at its 10
// GB/s, is under the CPU's at every point).
TEST(HostCpuCalibrationTest, CalibratingASimulatedCpuGivesItBack) {
  const NodeCpuSpec known{
      .cores = 1, .per_io = 3000, .per_kib = 200, .per_write_io = 4500, .per_write_kib = 300};
  LayoutSpec l = HostCpuLayout(64ull << 20);
  l.cpu = HostCpuSpec{known, ""};
  SimEngine engine;
  auto v = BuildVolume(engine, l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  CalibrationPlan plan = HostCpuPlan(/*quick=*/true, 64ull << 20);
  plan.ramp = 20 * kMilli;
  plan.runtime = 200 * kMilli;
  auto probe = RunProbe(engine, v->top(), plan);
  ASSERT_TRUE(probe.ok()) << probe.error().message;
  auto fit = FitHostCpu(*probe);
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->cpu.cores, 1u);
  EXPECT_NEAR(fit->cpu.per_io, 3000, 150);
  EXPECT_NEAR(fit->cpu.per_write_io, 4500, 225);
  EXPECT_NEAR(fit->cpu.per_kib, 200, 10);
  EXPECT_NEAR(fit->cpu.per_write_kib, 300, 15);
  ASSERT_EQ(fit->points.size(), 6u);
  EXPECT_LT(fit->max_iops_error, 0.02);  // the 16k points, not fitted, too
}

ProbeResult Point(RwMode rw, std::uint64_t bs, double iops) {
  ProbeResult r;
  r.point = ProbePoint{rw, bs, 32};
  r.median.iops = iops;
  r.median.lat_mean_ns = 32e9 / iops;
  r.runs = {r.median};
  return r;
}

// Reads: 4k at 1 us, 64k at 2.2 us: 20 ns a KiB and 920 ns a read; 16k
// measured at 1.3 us against the model's 1.24 us is 4.6% under in IOPS.
// Writes: 4k at 1.25 us, 64k at 7.25 us: 100 ns a KiB and 850 a write.
TEST(HostCpuCalibrationTest, TheFitSplitsPerRequestAndPerKibPerDirection) {
  auto fit =
      FitHostCpu({Point(RwMode::kRandRead, 4096, 1e6), Point(RwMode::kRandRead, 16384, 1e9 / 1300),
                  Point(RwMode::kRandRead, 65536, 1e9 / 2200), Point(RwMode::kRandWrite, 4096, 8e5),
                  Point(RwMode::kRandWrite, 65536, 1e9 / 7250)});
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->cpu.per_kib, 20);
  EXPECT_EQ(fit->cpu.per_io, 920);
  EXPECT_EQ(fit->cpu.per_write_kib, 100);
  EXPECT_EQ(fit->cpu.per_write_io, 850);
  ASSERT_EQ(fit->points.size(), 5u);
  EXPECT_NEAR(fit->points[1].iops_error, 1300.0 / 1240 - 1, 1e-3);
  EXPECT_NEAR(fit->points[0].iops_error, 0, 1e-3);
  EXPECT_NEAR(fit->points[4].iops_error, 0, 1e-3);
  EXPECT_NEAR(fit->points[0].model.lat_mean_ns, 32000, 1);
  EXPECT_NEAR(fit->max_iops_error, 1300.0 / 1240 - 1, 1e-3);

  // A 64k request no dearer than a 4k one: no cost per KiB.
  auto flat =
      FitHostCpu({Point(RwMode::kRandRead, 4096, 1e6), Point(RwMode::kRandWrite, 4096, 1e6),
                  Point(RwMode::kRandRead, 65536, 1.1e6), Point(RwMode::kRandWrite, 65536, 1e6)});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(flat->cpu.per_kib, 0);
  EXPECT_EQ(flat->cpu.per_io, 1000);

  EXPECT_FALSE(
      FitHostCpu({Point(RwMode::kRandRead, 4096, 1e6), Point(RwMode::kRandRead, 65536, 1e5),
                  Point(RwMode::kRandWrite, 4096, 1e6)})
          .ok());
}

}  // namespace
}  // namespace tierlab
