// Extent-size sweep for the tier target's default (docs/TIERING.md, "Default
// extent size"): a simulated zipf:0.99 read workload on a 16 GiB volume over
// a 2 GiB fast tier, at extent sizes 1..256 MiB, reporting the fast tier's
// share of reads after warm-up, the bytes migrated, and the target's metadata.
//
// The hot set's spatial scale decides the answer, so it is an axis: zipf
// ranks pick a "region" (4 KiB = no locality, as fio's hashed zipf; 1 MiB and
// 16 MiB = hot files / VM disk areas), scattered over the volume, and the
// 4 KiB read lands uniformly inside the region. Devices: RAM behind fixed
// delays (fast 50 us, slow 5 ms) in timing-only mode; QD 16 closed loop.
//
// Run: ExtentMapBench's sibling, e.g.
//   build/bench/micro/TierExtentSizeBench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/tier/TierTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t kVolume = 16ull << 30;
constexpr std::uint64_t kFast = 2ull << 30;
constexpr Nanos kFastLat = 50 * kMicro;
constexpr Nanos kSlowLat = 5 * kMilli;

// Zipf over n ranks by inverse CDF; rank r maps to item (r * odd) mod n, a
// bijection for n a power of two, which scatters hot items over the volume.
class ScatteredZipf {
 public:
  ScatteredZipf(std::uint64_t n, double theta) : n_(n), cdf_(n) {
    double sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) cdf_[i] = (sum += 1.0 / std::pow(i + 1.0, theta));
    for (auto& c : cdf_) c /= sum;
  }
  std::uint64_t Next(std::mt19937_64& rng) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const std::uint64_t rank = std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
    return (std::min(rank, n_ - 1) * 0x9E3779B97F4A7C15ull) & (n_ - 1);
  }

 private:
  std::uint64_t n_;
  std::vector<double> cdf_;
};

void BM_ExtentSize(benchmark::State& state) {
  const std::uint64_t extent = static_cast<std::uint64_t>(state.range(0)) * kMiB;
  const std::uint64_t region = static_cast<std::uint64_t>(state.range(1)) * 1024;
  for (auto _ : state) {
    SimEngine e;
    std::vector<std::unique_ptr<BlockDevice>> tiers;
    tiers.push_back(std::make_unique<DelayTarget>(
        e, "fast", std::make_unique<RamDevice>(e, "fast-ram", kFast, 4096),
        DelayConfig{kFastLat, kFastLat, 0}));
    tiers.push_back(std::make_unique<DelayTarget>(
        e, "slow", std::make_unique<RamDevice>(e, "slow-ram", kVolume, 4096),
        DelayConfig{kSlowLat, kSlowLat, 0}));
    TierConfig c;
    c.extent_size = extent;
    c.volume_size = kVolume;
    c.placement = TierPlacement::kSlowFirst;
    c.schedule = MigrationSchedule::kContinuous;
    c.heat_half_life = 10 * kSecond;
    c.max_migration_ios = 8;
    c.max_moves_per_pass = 64;
    auto made = TierTarget::Create(e, "tier", std::move(tiers), c);
    if (!made.ok()) {
      state.SkipWithError(made.error().message.c_str());
      return;
    }
    TierTarget& t = **made;
    for (std::uint64_t off = 0; off < kVolume; off += 4 * kMiB) {
      t.Submit(IoRequest{IoOp::kWrite, 0, off, 4 * kMiB, nullptr}, [](Status) {});
    }
    e.Run();
    ScatteredZipf zipf(kVolume / region, 0.99);
    std::mt19937_64 rng(1);
    Nanos stop = 0;
    std::uint64_t ops = 0;
    Nanos lat = 0;
    std::function<void()> issue = [&] {
      const std::uint64_t off = zipf.Next(rng) * region + (rng() % (region / 4096)) * 4096;
      const Nanos t0 = e.Now();
      t.Submit(IoRequest{IoOp::kRead, 0, off, 4096, nullptr}, [&, t0](Status) {
        ++ops;
        lat += e.Now() - t0;
        if (e.Now() < stop) issue();
      });
    };
    auto phase = [&](Nanos length) {
      stop = e.Now() + length;
      for (int i = 0; i < 16; ++i) issue();
      e.RunUntil(stop);
      e.Run();
    };
    phase(120 * kSecond);  // warm-up
    const TierStats before = t.tier_stats();
    ops = 0;
    lat = 0;
    phase(30 * kSecond);
    const TierStats s = t.tier_stats();
    const double fast = static_cast<double>(s.tiers[0].read_ops - before.tiers[0].read_ops);
    const double slow = static_cast<double>(s.tiers[1].read_ops - before.tiers[1].read_ops);
    state.counters["fast_share"] = fast / (fast + slow);
    state.counters["mean_lat_us"] = static_cast<double>(lat) / static_cast<double>(ops) / 1e3;
    state.counters["migrated_GiB"] =
        static_cast<double>(s.promoted_bytes + s.demoted_bytes) / (1ull << 30);
    // Per-extent metadata: map word 8 B + heat 4 B + write count 2 B + pin 1 B.
    state.counters["meta_B_per_TiB"] =
        15.0 * static_cast<double>(1ull << 40) / static_cast<double>(extent);
    state.counters["moves"] = static_cast<double>(s.promotions + s.demotions);
  }
}

BENCHMARK(BM_ExtentSize)
    ->ArgsProduct({{1, 4, 8, 16, 64, 256}, {4, 1024, 16384}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
