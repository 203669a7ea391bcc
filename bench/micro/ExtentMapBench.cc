// Extent-map lookup cost per I/O and memory per extent, at 1 million extents
// of scattered placement (a random tier per extent, so no two neighbours
// merge: the worst case for the interval map). Compares the Boost.Icl
// interval_map (IntervalExtentMap) with the flat array (FlatExtentMap) the
// tier target uses. Target: <= 100 ns per lookup. Figures: docs/PERFORMANCE.md,
// "Tier target: extent map".
//
// Memory is measured with mallinfo2() (glibc heap bytes in use) before and
// after building the map, so allocator overhead per node is included.

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <memory>
#include <random>
#include <vector>

#include "tiering/tier/ExtentMap.h"
#include "tiering/tier/TierFreeSpace.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kExtents = 1'000'000;
constexpr std::uint32_t kTiers = 3;

std::size_t HeapInUse() {
  return mallinfo2().uordblks;
}

// Scattered placement: extent e on a random tier; slots assigned in order per
// tier, so a run can only form where consecutive extents draw the same tier
// (then they do merge: that is real behaviour, and it is reported).
template <typename Map>
std::unique_ptr<Map> Build(std::uint64_t extents, double* bytes_per_extent) {
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> next(kTiers, 0);
  const std::size_t before = HeapInUse();
  auto m = std::make_unique<Map>(extents);
  for (std::uint64_t e = 0; e < extents; ++e) {
    const auto t = static_cast<std::uint32_t>(rng() % kTiers);
    // Skip a slot now and then so runs on one tier break too.
    next[t] += 1 + (rng() % 2);
    m->Set(e, {t, next[t]});
  }
  *bytes_per_extent = static_cast<double>(HeapInUse() - before) / static_cast<double>(extents);
  return m;
}

std::vector<std::uint64_t> RandomExtents(std::uint64_t extents, std::size_t n) {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> v(n);
  for (auto& x : v) x = rng() % extents;
  return v;
}

template <typename Map>
void BM_Lookup(benchmark::State& state) {
  double bpe = 0;
  auto m = Build<Map>(kExtents, &bpe);
  const auto keys = RandomExtents(kExtents, 1 << 16);
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    const auto p = m->Lookup(keys[i++ & (keys.size() - 1)]);
    sum += p ? p->slot : 0;
    benchmark::DoNotOptimize(sum);
  }
  state.counters["bytes_per_extent"] = bpe;
  state.counters["intervals"] = static_cast<double>(m->intervals());
}

// What an I/O actually does: the runs covering a request (here 1-4 extents,
// as a 4 KiB - 4 MiB request over 1 MiB extents would).
template <typename Map>
void BM_RequestRuns(benchmark::State& state) {
  double bpe = 0;
  auto m = Build<Map>(kExtents, &bpe);
  const auto keys = RandomExtents(kExtents - 4, 1 << 16);
  std::size_t i = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    const std::uint64_t k = keys[i & (keys.size() - 1)];
    const std::uint64_t n = 1 + (i & 3);
    ++i;
    m->ForEachRun(k, n, [&](std::uint64_t, std::uint64_t c, const ExtentPlacement* p) {
      sum += p ? p->slot + c : c;
    });
    benchmark::DoNotOptimize(sum);
  }
  state.counters["bytes_per_extent"] = bpe;
}

// A migration switch (Set) on a built map: the update cost per move.
template <typename Map>
void BM_Update(benchmark::State& state) {
  double bpe = 0;
  auto m = Build<Map>(kExtents, &bpe);
  const auto keys = RandomExtents(kExtents, 1 << 16);
  std::size_t i = 0;
  for (auto _ : state) {
    const std::uint64_t e = keys[i++ & (keys.size() - 1)];
    m->Set(e, {static_cast<std::uint32_t>(i % kTiers), 5'000'000 + i});
  }
}

// First-fit slot allocation and free on a fragmented tier (1M slots, every
// other one free: 500k intervals).
void BM_FreeSpaceAllocFree(benchmark::State& state) {
  const std::size_t before = HeapInUse();
  TierFreeSpace f(kExtents);
  for (std::uint64_t s = 0; s < kExtents; ++s) f.Allocate();
  for (std::uint64_t s = 0; s < kExtents; s += 2) f.Free(s);
  const double bytes_per_interval =
      static_cast<double>(HeapInUse() - before) / static_cast<double>(f.intervals());
  for (auto _ : state) {
    auto s = f.Allocate();
    benchmark::DoNotOptimize(s);
    f.Free(*s);
  }
  state.counters["intervals"] = static_cast<double>(f.intervals());
  state.counters["bytes_per_interval"] = bytes_per_interval;
}

BENCHMARK_TEMPLATE(BM_Lookup, IntervalExtentMap);
BENCHMARK_TEMPLATE(BM_Lookup, FlatExtentMap);
BENCHMARK_TEMPLATE(BM_RequestRuns, IntervalExtentMap);
BENCHMARK_TEMPLATE(BM_RequestRuns, FlatExtentMap);
BENCHMARK_TEMPLATE(BM_Update, IntervalExtentMap);
BENCHMARK_TEMPLATE(BM_Update, FlatExtentMap);
BENCHMARK(BM_FreeSpaceAllocFree);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
