// The tier target in simulation on device models (tiering/devices/ModelDevice with
// the catalog's SATA SSD and 7200 rpm HDD presets), so latencies are those of
// real device types: a hot set that fits the fast tier ends up there after
// the migration warm-up, latency falls to near the SSD's, the copies show in
// the devices' byte counters, and with migration off none of it happens.
// Also the fixed-provisioning case (every extent placed up front, the fast
// tier full) with a zipf hot set scattered over the volume, which once made
// no promotion at all.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/tier/TierTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

struct ModelTiers {
  std::vector<std::unique_ptr<BlockDevice>> tiers;
  BlockDevice* fast = nullptr;  // the SSD
  BlockDevice* slow = nullptr;  // the HDD
  DevicePreset fast_preset, slow_preset;
};

// One SSD over one HDD (no stripe, so each tier's byte counters are one
// device's). Model capacities are small; the HDD keeps its full-stroke
// mechanics (ModelOptions::capacity).
ModelTiers SsdOverHdd(Engine& e, std::uint64_t fast_bytes, std::uint64_t slow_bytes) {
  ModelTiers m;
  m.fast_preset = FindPreset("ssd-hk4e").value();
  m.slow_preset = FindPreset("hdd-7200").value();
  ModelOptions fo;
  fo.capacity = fast_bytes;
  fo.block_size = 4096;
  ModelOptions so;
  so.capacity = slow_bytes;
  so.block_size = 4096;
  so.seed = 7;
  m.tiers.push_back(MakeModelDevice(e, m.fast_preset, "ssd", fo));
  m.tiers.push_back(MakeModelDevice(e, m.slow_preset, "hdd", so));
  m.fast = m.tiers[0].get();
  m.slow = m.tiers[1].get();
  return m;
}

// A closed loop of `depth` requests of 4 KiB (timing-only), each finished
// request replaced by the next. `pick` returns the extent to hit; the block
// inside it is uniform. Latency sum and maximum are kept per phase.
struct Driver {
  SimEngine& e;
  BlockDevice& dev;
  std::uint64_t extent_size;
  std::function<std::uint64_t(std::mt19937_64&)> pick;
  double read_share = 1.0;
  std::mt19937_64 rng{5};
  Nanos stop_at = 0;
  std::uint64_t ops = 0;
  Nanos lat_sum = 0, lat_max = 0;
  std::uint64_t errors = 0;

  void Run(std::uint32_t depth, Nanos until) {
    stop_at = until;
    for (std::uint32_t i = 0; i < depth; ++i) Issue();
    e.RunUntil(until);
  }
  void Reset() { ops = 0, lat_sum = 0, lat_max = 0; }
  void Issue() {
    const std::uint64_t extent = pick(rng);
    const std::uint64_t block = rng() % (extent_size / 4096);
    const bool read = std::uniform_real_distribution<double>(0, 1)(rng) < read_share;
    const Nanos t0 = e.Now();
    dev.Submit(IoRequest{read ? IoOp::kRead : IoOp::kWrite, 0, extent * extent_size + block * 4096,
                         4096, nullptr},
               [this, t0](Status st) {
                 if (st != Status::kOk) ++errors;
                 const Nanos lat = e.Now() - t0;
                 ++ops;
                 lat_sum += lat;
                 lat_max = std::max(lat_max, lat);
                 if (e.Now() < stop_at) Issue();
               });
  }
  double MeanLatency() const { return ops == 0 ? 0 : static_cast<double>(lat_sum) / ops; }
};

// Share of foreground ops served by tier 0 between two snapshots.
double FastShare(const TierStats& before, const TierStats& after) {
  auto ops = [](const TierStats& s, std::size_t t) {
    return static_cast<double>(s.tiers[t].read_ops + s.tiers[t].write_ops);
  };
  const double fast = ops(after, 0) - ops(before, 0);
  const double slow = ops(after, 1) - ops(before, 1);
  return fast + slow == 0 ? 0 : fast / (fast + slow);
}

struct HotColdResult {
  double fast_share = 0;  // of ops in the measured phase
  double mean_latency = 0;
  TierStats stats;
  DeviceStats fast_dev, slow_dev;
  Nanos fast_read_latency = 0;  // the SSD preset's QD1 read latency
};

// 64 MiB volume of 1 MiB extents, slow-first: everything starts on the HDD.
// 99% of reads go to 10 scattered extents (the hot set; the SSD holds 16).
HotColdResult RunHotCold(MigrationSchedule schedule) {
  SimEngine e;
  TierConfig c;
  c.extent_size = kMiB;
  c.volume_size = 64 * kMiB;
  c.placement = TierPlacement::kSlowFirst;
  c.schedule = schedule;
  c.interval = 100 * kMilli;
  c.heat_half_life = 2 * kSecond;
  c.max_migration_ios = 2;
  c.migration_io_size = 256 * 1024;
  ModelTiers m = SsdOverHdd(e, 16 * kMiB, 64 * kMiB);
  BlockDevice* fast_dev = m.fast;
  BlockDevice* slow_dev = m.slow;
  auto created = TierTarget::Create(e, "tier", std::move(m.tiers), c);
  EXPECT_TRUE(created.ok()) << created.error().message;
  if (!created.ok()) return {};
  TierTarget& t = **created;
  for (std::uint64_t off = 0; off < t.Size(); off += kMiB) {
    t.Submit(IoRequest{IoOp::kWrite, 0, off, kMiB, nullptr},
             [](Status st) { EXPECT_EQ(st, Status::kOk); });
  }
  e.Run();
  std::vector<std::uint64_t> hot;
  for (std::uint64_t x = 3; hot.size() < 10; x += 5) hot.push_back(x);
  const std::uint64_t extents = t.Size() / kMiB;
  Driver d{e, t, kMiB, [&](std::mt19937_64& rng) {
             return std::uniform_real_distribution<double>(0, 1)(rng) < 0.99
                        ? hot[rng() % hot.size()]
                        : rng() % extents;
           }};
  d.Run(8, e.Now() + 10 * kSecond);  // warm-up
  const TierStats before = t.tier_stats();
  d.Reset();
  d.Run(8, e.Now() + 5 * kSecond);
  e.Run();  // drain (migrations included)
  EXPECT_EQ(d.errors, 0u);
  HotColdResult r;
  r.stats = t.tier_stats();
  r.fast_share = FastShare(before, r.stats);
  r.mean_latency = d.MeanLatency();
  r.fast_dev = fast_dev->stats();
  r.slow_dev = slow_dev->stats();
  r.fast_read_latency = FindPreset("ssd-hk4e")->read_latency;
  return r;
}

TEST(TierSimulationTest, HotSetMigratesToTheSsdTier) {
  const HotColdResult on = RunHotCold(MigrationSchedule::kContinuous);
  const HotColdResult off = RunHotCold(MigrationSchedule::kOff);
  std::printf(
      "[ info ] migration on: SSD share %.3f, mean %.3f ms, %llu promotions; "
      "off: %.3f, %.3f ms\n",
      on.fast_share, on.mean_latency / 1e6, (unsigned long long)on.stats.promotions, off.fast_share,
      off.mean_latency / 1e6);
  // On: the hot set (99% of reads) lives on the SSD after warm-up. The mean
  // is near the SSD's QD1 read latency: the 1% of reads that go to the HDD
  // add about 1% of an HDD access.
  EXPECT_GT(on.fast_share, 0.95);
  EXPECT_GE(on.stats.promotions, 10u);
  EXPECT_LT(on.mean_latency, 0.05 * off.mean_latency);
  EXPECT_LT(on.mean_latency, on.fast_read_latency + 0.03 * off.mean_latency);
  // Off: everything stays on the HDD and costs an HDD access.
  EXPECT_EQ(off.fast_share, 0.0);
  EXPECT_EQ(off.stats.promotions + off.stats.demotions, 0u);
  EXPECT_GT(off.mean_latency, 20 * on.fast_read_latency);
  // Migration is real I/O on the devices: their byte counters hold exactly
  // the foreground pieces plus the copies.
  const TierStats& s = on.stats;
  EXPECT_GT(s.promoted_bytes, 0u);
  EXPECT_EQ(on.slow_dev.read_bytes, s.tiers[1].read_bytes + s.promoted_bytes);
  EXPECT_EQ(on.fast_dev.write_bytes, s.tiers[0].write_bytes + s.promoted_bytes);
  EXPECT_EQ(on.fast_dev.read_bytes, s.tiers[0].read_bytes + s.demoted_bytes);
  EXPECT_EQ(on.slow_dev.write_bytes, s.tiers[1].write_bytes + s.demoted_bytes);
  EXPECT_EQ(off.slow_dev.read_bytes, off.stats.tiers[1].read_bytes);
  EXPECT_EQ(off.slow_dev.write_bytes, off.stats.tiers[1].write_bytes);
  EXPECT_EQ(off.fast_dev.read_bytes + off.fast_dev.write_bytes, 0u);
}

// Zipf over the volume's extents (theta 1.2), ranks scattered by a fixed
// random permutation, 4 KiB random inside the extent, 70% reads.
struct ScatteredZipf {
  std::vector<double> cdf;
  std::vector<std::uint64_t> extent_of_rank;

  ScatteredZipf(std::uint64_t extents, double theta, std::uint64_t seed) {
    double sum = 0;
    for (std::uint64_t k = 1; k <= extents; ++k) {
      sum += std::pow(static_cast<double>(k), -theta);
      cdf.push_back(sum);
    }
    for (double& x : cdf) x /= sum;
    extent_of_rank.resize(extents);
    std::iota(extent_of_rank.begin(), extent_of_rank.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(extent_of_rank.begin(), extent_of_rank.end(), rng);
  }
  std::uint64_t operator()(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    const auto rank =
        static_cast<std::uint64_t>(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    return extent_of_rank[std::min<std::uint64_t>(rank, cdf.size() - 1)];
  }
  // The share of accesses that the `n` hottest extents receive.
  double TopShare(std::uint64_t n) const { return cdf[n - 1]; }
};

struct FixedResult {
  double fast_share = 0;
  double ideal_share = 0;  // the zipf share of as many extents as the SSD holds
  double iops = 0;
  double mean_latency = 0;
  Nanos max_latency = 0;
  TierStats stats;
};

// Fixed provisioning as layouts build it: the default volume (the tiers'
// slots less max_migration_ios spare), every extent placed up front
// fast-first, so the SSD is full and the HDD has only the spare slots free.
// Only swaps can bring the hot set up.
FixedResult RunFixedZipf(MigrationSchedule schedule) {
  SimEngine e;
  TierConfig c;
  c.extent_size = kMiB;
  c.schedule = schedule;
  c.interval = 200 * kMilli;
  c.heat_half_life = 10 * kSecond;
  c.migration_io_size = 256 * 1024;
  ModelTiers m = SsdOverHdd(e, 32 * kMiB, 256 * kMiB);
  auto created = TierTarget::Create(e, "tier", std::move(m.tiers), c);
  EXPECT_TRUE(created.ok()) << created.error().message;
  if (!created.ok()) return {};
  TierTarget& t = **created;
  EXPECT_TRUE(t.ProvisionAll());
  const TierStats provisioned = t.tier_stats();
  EXPECT_EQ(provisioned.tiers[0].free_slots, 0u);
  EXPECT_EQ(provisioned.tiers[1].free_slots, c.max_migration_ios);
  const std::uint64_t extents = t.Size() / kMiB;
  const ScatteredZipf zipf(extents, 1.2, 3);
  Driver d{e, t, kMiB, [&](std::mt19937_64& rng) { return zipf(rng); }};
  d.read_share = 0.7;
  d.Run(16, e.Now() + 90 * kSecond);  // warm-up
  const TierStats before = t.tier_stats();
  d.Reset();
  const Nanos t0 = e.Now();
  d.Run(16, t0 + 30 * kSecond);
  FixedResult r;
  r.iops = static_cast<double>(d.ops) / 30.0;
  e.Run();
  EXPECT_EQ(d.errors, 0u);
  r.stats = t.tier_stats();
  r.fast_share = FastShare(before, r.stats);
  r.ideal_share = zipf.TopShare(r.stats.tiers[0].slots);
  r.mean_latency = d.MeanLatency();
  r.max_latency = d.lat_max;
  return r;
}

TEST(TierSimulationTest, FixedProvisioningSwapsAZipfHotSetOntoAFullSsdTier) {
  const FixedResult on = RunFixedZipf(MigrationSchedule::kContinuous);
  const FixedResult off = RunFixedZipf(MigrationSchedule::kOff);
  const TierStats& s = on.stats;
  std::printf(
      "[ info ] on: SSD share %.3f (ideal %.3f), %.0f IOPS, mean %.2f ms, max %.1f ms, "
      "%llu up / %llu down, longest move %.1f ms, held %llu (longest %.1f ms); "
      "off: SSD share %.3f, %.0f IOPS, mean %.2f ms, max %.1f ms\n",
      on.fast_share, on.ideal_share, on.iops, on.mean_latency / 1e6, on.max_latency / 1e6,
      (unsigned long long)s.promotions, (unsigned long long)s.demotions, s.max_move_ns / 1e6,
      (unsigned long long)s.held_ops, s.max_held_ns / 1e6, off.fast_share, off.iops,
      off.mean_latency / 1e6, off.max_latency / 1e6);
  // A full SSD tier still takes the hot set: each promotion is paired with a
  // demotion (a swap through the spare slots), and once warm most I/O, close
  // to the best any placement of whole extents can do, is served by the SSD.
  EXPECT_GT(s.promotions, 20u);
  EXPECT_GT(s.demotions, 20u);
  EXPECT_LE(s.promotions, s.demotions);  // the SSD was full: every promotion needs a demotion
  EXPECT_EQ(s.migrations_abandoned, 0u);
  EXPECT_GT(on.fast_share, 0.5);
  EXPECT_GT(on.fast_share, 0.85 * on.ideal_share);
  EXPECT_GT(on.iops, 2 * off.iops);
  // Off: the SSD serves only the extents placed on it at provisioning.
  EXPECT_EQ(off.stats.promotions + off.stats.demotions, 0u);
  EXPECT_LT(off.fast_share, 0.5 * on.fast_share);
  // Nothing holds a request inside the target for longer than one extent
  // copy: a write held by a move's final round waits at most for that move,
  // and the slowest request is no slower than without migration by more
  // than the longest move.
  EXPECT_LE(s.max_held_ns, s.max_move_ns);
  EXPECT_LE(on.max_latency, off.max_latency + s.max_move_ns);
}

}  // namespace
}  // namespace tierlab
