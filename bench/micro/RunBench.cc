// End-to-end simulated `tierlab run` throughput: the runner, the workload
// generator and the layout's stack on a SimEngine, timing-only, through
// RunCell as `tierlab run` does (the results JSON of the run is made inside
// the timed region: small beside the run). Reports
// simulated I/Os per second of CPU time (items_per_second).
//
//   ./build/bench/micro/RunBench --benchmark_repetitions=5

#include <benchmark/benchmark.h>
#include <malloc.h>

#include "bench/lab/RunCell.h"
#include "layouts/Layout.h"

namespace tierlab {
namespace {

// The heap's bytes in use now (glibc's count of allocated chunks: exact
// where a resident-memory figure moves by whole pages, or not at all when
// the heap reuses what an earlier run freed).
double HeapBytesInUse() {
  return static_cast<double>(mallinfo2().uordblks) + static_cast<double>(mallinfo2().hblkhd);
}

// With `nodes` > 0, also reports per node the heap that building the volume
// took ("KiB_per_node_built": models, targets) and what the heap held at
// the end of the run, its pools and queues grown ("KiB_per_node_run"; the
// first run's, over the same baseline).
void RunLayout(benchmark::State& state, const nlohmann::json& layout_json,
               const nlohmann::json& profile_json, int nodes = 0) {
  auto layout = ParseLayoutJson(layout_json, "bench");
  auto profile = ParseProfileJson(profile_json, "bench");
  if (!layout.ok() || !profile.ok()) {
    state.SkipWithError("bad bench config");
    return;
  }
  // The run path of `tierlab run` (RunCell); building the volume before and
  // tearing it down after the workload are outside the timed region.
  bool timing = false;
  double baseline = -1;
  double built = -1;
  double ran = -1;
  RunSettings settings;
  settings.before = [&](Engine&, Volume&) -> Expected<void> {
    if (built < 0) built = HeapBytesInUse();
    state.ResumeTiming();
    timing = true;
    return {};
  };
  settings.after = [&](Engine&, Volume&) {
    state.PauseTiming();
    if (ran < 0) ran = HeapBytesInUse();
    timing = false;
  };
  const Workload workload = std::vector<Profile>{*profile};
  std::uint64_t ios = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (baseline < 0) baseline = HeapBytesInUse();
    auto runs = RunCell(*layout, workload, settings);
    if (!timing) state.ResumeTiming();
    if (!runs.ok()) {
      state.SkipWithError(runs.error().message.c_str());
      return;
    }
    ios += runs->front().run.issued;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(ios));
  if (nodes > 0) {
    state.counters["KiB_per_node_built"] = (built - baseline) / nodes / 1024;
    state.counters["KiB_per_node_run"] = (ran - baseline) / nodes / 1024;
  }
}

// One NVMe, 4k random read at QD32: the end-to-end target (>= 3M/s).
void BM_RunNvme4kRandRead(benchmark::State& state) {
  RunLayout(state,
            {{"name", "nvme1"},
             {"tiers", {{{"preset", "nvme-pm1725"}, {"count", 1}, {"capacity", "64g"}}}}},
            {{"rw", "randread"}, {"bs", "4k"}, {"iodepth", 32}, {"number_ios", 2000000}});
}
BENCHMARK(BM_RunNvme4kRandRead)->Unit(benchmark::kMillisecond);

// The cache issue's target: NVMe over 4 HDDs through the cache target,
// 4k 70/30 on a working set that fits the cache (>= 2M/s).
void BM_RunCachedNvmeOverHdd(benchmark::State& state) {
  nlohmann::json layout = *ExpandShorthand("nvme1+hdd4");
  layout["tiers"][0]["capacity"] = "4g";
  RunLayout(state, layout,
            {{"rw", "randrw"},
             {"rwmixread", 70},
             {"bs", "4k"},
             {"iodepth", 32},
             {"size", "1g"},
             {"number_ios", 1000000}});
}
BENCHMARK(BM_RunCachedNvmeOverHdd)->Unit(benchmark::kMillisecond);

// One HDD model behind the runner, 4k 70/30 at QD32 on 256 MiB: a queue of up
// to 32 requests for NCQ's pick to scan on every start (the HDD side of the
// cached run, on its own).
void BM_RunHddNcq(benchmark::State& state) {
  RunLayout(state, *ExpandShorthand("hdd1"),
            {{"rw", "randrw"},
             {"rwmixread", 70},
             {"bs", "4k"},
             {"iodepth", 32},
             {"size", "256m"},
             {"number_ios", 200000}});
}
BENCHMARK(BM_RunHddNcq)->Unit(benchmark::kMillisecond);

// Issue 18's scale target (>= 1M/s): a 16-node hyper-converged cluster of
// 24 SATA SSDs a node (striped), two copies over 25 GbE, 4k 70/30 from a
// job on every node at QD32: each guest write is two device writes and
// mostly network messages, each read one device read.
void BM_RunCluster16x24Mirror(benchmark::State& state) {
  const nlohmann::json layout = {
      {"name", "cluster16"},
      {"tiers", {{{"name", "ssd"}, {"preset", "ssd-hk4e"}, {"count", 24}, {"capacity", "1g"}}}},
      {"cluster", {{"nodes", 16}, {"network", {{"preset", "25gbe-tcp"}}}}}};
  RunLayout(state, layout,
            {{"rw", "randrw"},
             {"rwmixread", 70},
             {"bs", "4k"},
             {"iodepth", 32},
             {"numjobs", 16},
             {"number_ios", 62500}},
            16);
}
BENCHMARK(BM_RunCluster16x24Mirror)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
