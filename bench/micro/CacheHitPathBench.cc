// Hit-path CPU cost of the cache target: wall time per 4 KiB read that hits,
// through CacheTarget on RAM devices with the SimEngine running (submission,
// line lock, lookup, policy touch, cache-device read, completion). Also
// reports the line metadata bytes per line at scale. Targets: <= 300 ns per
// hit, <= 16 bytes per line (docs/PERFORMANCE.md, "Cache target").

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "cachedev/CacheTarget.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kLine = 4096;

std::unique_ptr<CacheTarget> Build(SimEngine& e, std::uint64_t lines, const char* policy) {
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::make_unique<RamDevice>(e, "cache", lines * kLine));
  CacheConfig cfg;
  cfg.line_size = kLine;
  cfg.policy = policy;
  auto r = CacheTarget::Create(e, "c", std::make_unique<RamDevice>(e, "origin", lines * kLine * 4),
                               std::move(caches), cfg);
  return std::move(r).value();
}

// Timing-only 4 KiB random reads over a working set that fits, after warm-up:
// every read is a hit. `depth` reads in flight per engine run.
void BM_HitPath(benchmark::State& state) {
  const std::uint64_t lines = static_cast<std::uint64_t>(state.range(0));
  const int depth = static_cast<int>(state.range(1));
  SimEngine e;
  auto c = Build(e, lines, "lru");
  for (std::uint64_t l = 0; l < lines; ++l) {
    IoRequest q;
    q.offset = l * kLine;
    q.length = kLine;
    c->Submit(q, [](Status) {});
    if (l % 64 == 63) e.Run();
  }
  e.Run();
  const CacheStats warm = c->cache_stats();
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> offs(1 << 16);
  for (auto& o : offs) o = (rng() % lines) * kLine;
  std::size_t i = 0;
  std::uint64_t done = 0;
  for (auto _ : state) {
    for (int d = 0; d < depth; ++d) {
      IoRequest q;
      q.offset = offs[i++ & (offs.size() - 1)];
      q.length = kLine;
      c->Submit(q, [&done](Status) { ++done; });
    }
    e.Run();
  }
  const CacheStats s = c->cache_stats();
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * depth);
  state.counters["hit_ratio"] = static_cast<double>(s.read_hit_lines - warm.read_hit_lines) /
                                static_cast<double>(s.read_hit_lines + s.read_miss_lines -
                                                    warm.read_hit_lines - warm.read_miss_lines);
  state.counters["ns_per_read"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * depth,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["meta_B_per_line"] = s.metadata_bytes_per_line;
}
BENCHMARK(BM_HitPath)->Args({1 << 10, 1})->Args({1 << 10, 32})->Args({1 << 20, 32});

// The same through the bare RAM device: the engine's own cost per I/O.
void BM_RamDeviceOnly(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  SimEngine e;
  RamDevice d(e, "ram", 1 << 30);
  std::mt19937_64 rng(1);
  for (auto _ : state) {
    for (int k = 0; k < depth; ++k) {
      IoRequest q;
      q.offset = (rng() % (1 << 18)) * kLine;
      q.length = kLine;
      d.Submit(q, [](Status) {});
    }
    e.Run();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * depth);
  state.counters["ns_per_read"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * depth,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_RamDeviceOnly)->Arg(32);

// Metadata bytes per line for a 4M-line cache (16 GiB of 4 KiB lines).
void BM_MetadataPerLine(benchmark::State& state) {
  const char* policy = state.range(0) == 0 ? "lru" : "fifo";
  for (auto _ : state) {
    SimEngine e;
    std::vector<std::unique_ptr<BlockDevice>> caches;
    caches.push_back(std::make_unique<RamDevice>(e, "cache", (4ull << 20) * kLine));
    CacheConfig cfg;
    cfg.line_size = kLine;
    cfg.policy = policy;
    auto r = CacheTarget::Create(e, "c", std::make_unique<RamDevice>(e, "o", 1ull << 40),
                                 std::move(caches), cfg);
    state.counters["meta_B_per_line"] = r.value()->cache_stats().metadata_bytes_per_line;
  }
  state.SetLabel(policy);
}
BENCHMARK(BM_MetadataPerLine)->Arg(0)->Arg(1)->Iterations(1);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
