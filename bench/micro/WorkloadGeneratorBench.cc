// Next() throughput of the workload generator; the target is >= 20 M/s per
// core for uniform 4k random I/O. Run:
//   build/bench/micro/WorkloadGeneratorBench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "bench/workload/WorkloadGenerator.h"

namespace tierlab {
namespace {

void RunNext(benchmark::State& state, Profile p) {
  auto g = WorkloadGenerator::Create(p, 1ull << 40, 4096, 0);  // 1 TiB volume: 268M blocks
  if (!g.ok()) {
    state.SkipWithError(g.error().message.c_str());
    return;
  }
  std::uint64_t sink = 0;
  for (auto _ : state) {
    const NextIo io = g->Next();
    sink += io.offset + io.length;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
}

Profile Base(RwMode rw) {
  Profile p;
  p.rw = rw;
  p.bs = 4096;
  return p;
}

void BM_Uniform4kRandRead(benchmark::State& state) {
  RunNext(state, Base(RwMode::kRandRead));
}
// fio's random map (the default, as above) against draws with repeats.
void BM_Uniform4kRandReadNoRandomMap(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRead);
  p.norandommap = true;
  RunNext(state, p);
}
void BM_Uniform4kRandRw7030(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRw);
  p.rwmixread = 70;
  RunNext(state, p);
}
void BM_Sequential64k(benchmark::State& state) {
  Profile p = Base(RwMode::kRead);
  p.bs = 65536;
  RunNext(state, p);
}
void BM_BsSplit(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRw);
  p.bssplit = {{4096, 50}, {8192, 30}, {65536, 20}};
  RunNext(state, p);
}
void BM_Zipf(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRead);
  p.random_distribution = RandomDistribution::kZipf;
  p.zipf_theta = static_cast<double>(state.range(0)) / 100.0;
  RunNext(state, p);
}
void BM_Pareto(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRead);
  p.random_distribution = RandomDistribution::kPareto;
  p.pareto_h = 0.2;
  RunNext(state, p);
}
void BM_Normal(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRead);
  p.random_distribution = RandomDistribution::kNormal;
  RunNext(state, p);
}
void BM_HciBench50Rand(benchmark::State& state) {
  Profile p = Base(RwMode::kRandRw);
  p.rwmixread = 70;
  p.percentage_random = 50;
  RunNext(state, p);
}

BENCHMARK(BM_Uniform4kRandRead);
BENCHMARK(BM_Uniform4kRandReadNoRandomMap);
BENCHMARK(BM_Uniform4kRandRw7030);
BENCHMARK(BM_Sequential64k);
BENCHMARK(BM_BsSplit);
BENCHMARK(BM_Zipf)->Arg(80)->Arg(120);
BENCHMARK(BM_Pareto);
BENCHMARK(BM_Normal);
BENCHMARK(BM_HciBench50Rand);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
