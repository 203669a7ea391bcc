// Functional accesses per CPU second (issue 17's target: at least 20 M):
// the fast warm-up's loop (bench/lab/FunctionalWarmup.cc: a job's stream,
// prefetch hints three stages ahead, BlockDevice::Warm) on a shorthand
// layout, uniform 4k random reads over a region of `range(0)` MiB, first
// until every line of it is resident (not timed), then timed. So the figure
// is the hit path of a warm cache, which is what most of a warm-up is, at a
// metadata size from CPU-cache resident to far beyond it.
//
//   ./build/bench/micro/FunctionalWarmupBench --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <array>

#include "bench/workload/JobStream.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

void BM_WarmReads(benchmark::State& state, const char* layout_name, bool norandommap) {
  const std::uint64_t region = static_cast<std::uint64_t>(state.range(0)) << 20;
  auto layout_json = ExpandShorthand(layout_name);
  if (!layout_json.ok()) {
    state.SkipWithError("bad layout");
    return;
  }
  auto layout = ParseLayoutJson(*layout_json, layout_name);
  auto profile = ParseProfileJson({{"rw", "randread"},
                                   {"bs", "4k"},
                                   {"size", std::to_string(region)},
                                   {"norandommap", norandommap}},
                                  "bench");
  if (!layout.ok() || !profile.ok()) {
    state.SkipWithError("bad bench config");
    return;
  }
  SimEngine engine;
  auto v = BuildVolume(engine, *layout, BuildOptions{});
  if (!v.ok()) {
    state.SkipWithError(v.error().message.c_str());
    return;
  }
  BlockDevice& top = v->top();
  auto stream = JobStream::Create(*profile, top.Size(), top.BlockSize(), 0, {});
  if (!stream.ok()) {
    state.SkipWithError("bad stream");
    return;
  }
  // Every line of the region resident first: the timed loop is the warm
  // cache's hit path.
  for (std::uint64_t off = 0; off < region; off += 4096) {
    top.Warm(IoRequest{IoOp::kRead, 0, off, 4096, nullptr});
  }
  top.WarmSettle();
  // The warmer's pipeline (FunctionalWarmup.cc): drawn kAhead before, hinted
  // at kAhead (2), kAhead / 2 (1) and kAhead / 4 (0).
  constexpr std::size_t kAhead = 32;
  std::array<NextIo, kAhead> ring;
  for (NextIo& io : ring) {
    io = stream->Next();
    top.PrefetchHint(io.op, io.offset, 2);
  }
  std::size_t at = 0;
  std::uint64_t placed = 0;
  for (auto _ : state) {
    const NextIo& half = ring[(at + kAhead / 2) % kAhead];
    top.PrefetchHint(half.op, half.offset, 1);
    const NextIo& near = ring[(at + kAhead / 4) % kAhead];
    top.PrefetchHint(near.op, near.offset, 0);
    placed += top.Warm(IoRequest{ring[at].op, 0, ring[at].offset, ring[at].length, nullptr});
    ring[at] = stream->Next();
    top.PrefetchHint(ring[at].op, ring[at].offset, 2);
    at = (at + 1) % kAhead;
  }
  benchmark::DoNotOptimize(placed);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["lines"] = static_cast<double>(region / 4096);
}

// 64 MiB: 16 Ki lines, metadata in L2. 1 GiB: 256 Ki lines. 8 GiB: 2 Mi
// lines, the benchmark region, tens of MiB of metadata.
// With fio's random map (a job file's default: each pass covers every
// block once, the late part of a pass in runs of neighbouring blocks) and
// with offsets drawn with repeats (norandommap, the builtin profiles').
BENCHMARK_CAPTURE(BM_WarmReads, nvme2_hdd4, "nvme2+hdd4", false)->Arg(64)->Arg(1024)->Arg(8192);
BENCHMARK_CAPTURE(BM_WarmReads, nvme2_hdd4_norandommap, "nvme2+hdd4", true)
    ->Arg(64)
    ->Arg(1024)
    ->Arg(8192);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
