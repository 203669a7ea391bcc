// Memory of fixed-size SHARDS over a long stream (docs/PERFORMANCE.md,
// "Trace parsing and MRC"): 100 M block references, zipf(0.9) over 64 M
// blocks (256 GiB at 4 KiB), generated on the fly and never stored. Reports
// the process's peak RSS (getrusage ru_maxrss) before and after, and the
// structure's own byte count. Exact MRC memory would grow with the distinct
// blocks (~70 B each); SHARDS fixed-size stays at max_samples.
//
// Flags: --references=N (default 100000000), --samples=S (default 8192).

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstring>

#include "bench/analysis/ShardsMrc.h"
#include "bench/workload/BlockDistributions.h"
#include "bench/workload/Random.h"

namespace tierlab {
namespace {

std::uint64_t g_references = 100'000'000;
std::size_t g_samples = 8192;
constexpr std::uint64_t kBlocks = 64ull << 20;

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

void BM_ShardsFixedSizeMemory(benchmark::State& state) {
  double before = PeakRssMiB();
  for (auto _ : state) {
    ZipfSampler zipf(kBlocks, 0.9);
    BlockPermutation scatter(kBlocks, 11);
    Xoshiro256 rng(5);
    ShardsMrc shards({.rate = 1.0, .max_samples = g_samples});
    for (std::uint64_t i = 0; i < g_references; ++i) {
      shards.AccessBlock(scatter(zipf.Sample(rng)), (i & 3) != 0);
    }
    state.counters["references"] = static_cast<double>(shards.references());
    state.counters["final_rate"] = shards.rate();
    state.counters["sampled_blocks"] = static_cast<double>(shards.sampled_blocks());
    state.counters["shards_KiB"] = static_cast<double>(shards.memory_bytes()) / 1024.0;
    state.counters["miss_ratio_at_1GiB"] = shards.MissRatio(1 << 18);
    state.counters["refs_per_s"] =
        benchmark::Counter(static_cast<double>(shards.references()), benchmark::Counter::kIsRate);
  }
  state.counters["peak_rss_before_MiB"] = before;
  state.counters["peak_rss_after_MiB"] = PeakRssMiB();
}

BENCHMARK(BM_ShardsFixedSizeMemory)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace tierlab

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--references=", 13) == 0)
      tierlab::g_references = std::strtoull(argv[i] + 13, nullptr, 10);
    if (std::strncmp(argv[i], "--samples=", 10) == 0)
      tierlab::g_samples = std::strtoull(argv[i] + 10, nullptr, 10);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
