// Replacement policy throughput: one operation = one access of a zipf(0.99)
// key stream over 1M keys through CacheSimulator (flat key->slot table, no
// std::unordered_map) with a cache of 10% of the keys: lookup + Touch on a
// hit, Evict + Insert on a miss. The cache is warmed with one pass of the
// stream before timing. Counters: hit ratio and policy bytes per slot.
//
// Run: PolicyBench [--benchmark_filter=...]; figures in docs/PERFORMANCE.md.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "policies/CacheSimulator.h"
#include "policies/PolicyRegistry.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kKeys = 1'000'000;
constexpr std::size_t kCapacity = kKeys / 10;
constexpr std::size_t kStream = std::size_t{1} << 22;
constexpr double kTheta = 0.99;

// Gray et al.'s zipf generator (as in YCSB): O(n) setup, O(1) per sample.
std::vector<LineKey> ZipfStream() {
  double zetan = 0;
  for (std::uint64_t i = 1; i <= kKeys; ++i)
    zetan += 1.0 / std::pow(static_cast<double>(i), kTheta);
  const double zeta2 = 1.0 + 1.0 / std::pow(2.0, kTheta);
  const double alpha = 1.0 / (1.0 - kTheta);
  const double eta =
      (1.0 - std::pow(2.0 / static_cast<double>(kKeys), 1.0 - kTheta)) / (1.0 - zeta2 / zetan);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  std::vector<LineKey> keys(kStream);
  for (LineKey& k : keys) {
    const double u = u01(rng);
    const double uz = u * zetan;
    std::uint64_t r;
    if (uz < 1.0) {
      r = 0;
    } else if (uz < zeta2) {
      r = 1;
    } else {
      r = static_cast<std::uint64_t>(static_cast<double>(kKeys) *
                                     std::pow(eta * u - eta + 1.0, alpha));
    }
    // Spread ranks over the key space so that hot keys are not neighbours.
    k = (std::min(r, kKeys - 1) * 0x9E3779B97F4A7C15ULL) % (kKeys * 1000);
  }
  return keys;
}

const std::vector<LineKey>& Stream() {
  static const std::vector<LineKey> s = ZipfStream();
  return s;
}

void BM_Policy(benchmark::State& state, std::string name) {
  const std::vector<LineKey>& keys = Stream();
  auto policy = MakeReplacementPolicy(name, kCapacity, 1);
  CacheSimulator sim(policy.get(), kCapacity, /*check=*/false);
  for (std::size_t i = 0; i < kStream / 4; ++i) sim.Access(keys[i]);  // warm: fill the cache
  const std::uint64_t hits0 = sim.Hits();
  const std::uint64_t misses0 = sim.Misses();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim.Access(keys[i]));
    if (++i == kStream) i = 0;
  }
  const double hits = static_cast<double>(sim.Hits() - hits0);
  const double total = hits + static_cast<double>(sim.Misses() - misses0);
  state.counters["hit_ratio"] = total > 0 ? hits / total : 0.0;
  state.counters["bytes_per_slot"] =
      static_cast<double>(policy->MemoryBytes()) / static_cast<double>(kCapacity);
  state.counters["ops"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

const bool kRegistered = [] {
  for (const std::string& name : ReplacementPolicyNames()) {
    benchmark::RegisterBenchmark(("Policy/" + name).c_str(), BM_Policy, name);
  }
  return true;
}();

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
