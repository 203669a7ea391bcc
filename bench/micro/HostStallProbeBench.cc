// The host's stalls as different probes see them (bench/lab/HostStalls.h):
// the bare clock loop the CPU calibration's probe was first, against units
// of random memory touches over 4, 32 (the probe's own shape) and 128 MiB.
// Each run is one probe for two seconds of wall time; the counters are the
// share of the time lost to stalls and, per class of stall by duration, how
// many a second of the loop's running time and their mean length.
// Interleave the runs, as the host's load drifts over minutes:
//
//   ./build/bench/micro/HostStallProbeBench --benchmark_repetitions=4
//   --benchmark_enable_random_interleaving=true
//
// docs/VALIDATION.md ("the host's stalls") keeps a run's figures.

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <string>
#include <utility>

#include "bench/lab/HostStalls.h"

namespace tierlab {
namespace {

constexpr Nanos kProbeWindow = 2 * kSecond;

// Classes grouped for the report, by their mean length: up to 10 us,
// 10-20, 20-50, and 50 us or more (HostStalls keeps finer bins).
constexpr std::array<Nanos, 3> kGroupBoundsUs = {10, 20, 50};
constexpr std::array<const char*, 4> kGroupNames = {"2-10us", "10-20us", "20-50us", "50us+"};

void BM_HostStalls(benchmark::State& state, StallProbe probe) {
  HostStalls h;
  for (auto _ : state) h = MeasureHostStalls(kProbeWindow, probe);
  std::array<double, kGroupNames.size()> rate{};
  std::array<double, kGroupNames.size()> lost_per_s{};
  for (const CpuStall& c : h.stalls) {
    std::size_t g = 0;
    while (g < kGroupBoundsUs.size() && c.duration >= kGroupBoundsUs[g] * kMicro) ++g;
    rate[g] += c.per_second;
    lost_per_s[g] += c.per_second * static_cast<double>(c.duration);
  }
  state.counters["unit_ns"] = static_cast<double>(h.unit);
  state.counters["lost_%"] = 100 * h.lost_share;
  for (std::size_t g = 0; g < kGroupNames.size(); ++g) {
    const std::string name = kGroupNames[g];
    state.counters[name + "/s"] = rate[g];
    state.counters[name + "_mean"] = rate[g] > 0 ? lost_per_s[g] / rate[g] / 1e3 : 0;
  }
  state.counters["longest_us"] = static_cast<double>(h.longest) / 1e3;
}

// The probes, by name: the bare loop, then the probe's unit over three
// working sets.
const bool kRegistered = [] {
  const std::array<std::pair<const char*, StallProbe>, 4> probes = {{
      {"bare_clock_loop", StallProbe{0, 0}},
      {"touches16_4MiB", StallProbe{16, std::size_t{4} << 20}},
      {"touches16_32MiB_probe", StallProbe{}},
      {"touches16_128MiB", StallProbe{16, std::size_t{128} << 20}},
  }};
  for (const auto& [name, probe] : probes) {
    benchmark::RegisterBenchmark((std::string("BM_HostStalls/") + name).c_str(), BM_HostStalls,
                                 probe)
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
