// The tier target: data correctness under constant migration (verification
// harness), placement, discards, config errors, and a simulated hot/cold
// workload where migration brings the hot set to the fast tier.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tiering/DelayTarget.h"
#include "tiering/RamDevice.h"
#include "tiering/SimEngine.h"
#include "tiering/TierTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::vector<std::unique_ptr<BlockDevice>> RamTiers(Engine& e, std::uint64_t fast,
                                                   std::uint64_t slow, Nanos fast_lat = 0,
                                                   Nanos slow_lat = 0) {
  std::vector<std::unique_ptr<BlockDevice>> v;
  auto wrap = [&](std::unique_ptr<BlockDevice> d, Nanos lat) -> std::unique_ptr<BlockDevice> {
    if (lat == 0) return d;
    auto name = d->name() + "-delay";
    return std::make_unique<DelayTarget>(e, name, std::move(d), DelayConfig{lat, lat, 0});
  };
  v.push_back(wrap(std::make_unique<RamDevice>(e, "fast", fast), fast_lat));
  v.push_back(wrap(std::make_unique<RamDevice>(e, "slow", slow), slow_lat));
  return v;
}

std::unique_ptr<TierTarget> Make(Engine& e, std::vector<std::unique_ptr<BlockDevice>> tiers,
                                 const TierConfig& c) {
  auto t = TierTarget::Create(e, "tier", std::move(tiers), c);
  if (!t.ok()) {
    ADD_FAILURE() << t.error().message;
    return nullptr;
  }
  return std::move(t.value());
}

Status Io(SimEngine& e, BlockDevice& d, IoOp op, std::uint64_t off, std::uint64_t len,
          std::byte* data = nullptr) {
  Status got = Status::kShutdown;
  d.Submit(IoRequest{op, 0, off, len, data}, [&](Status st) { got = st; });
  e.Run();
  return got;
}

TierConfig Quiet() {  // no migration: placement alone
  TierConfig c;
  c.extent_size = kMiB;
  c.schedule = MigrationSchedule::kOff;
  return c;
}

TEST(TierTargetTest, BadConfigIsAnErrorNamingTheField) {
  SimEngine e;
  TierConfig c = Quiet();
  c.extent_size = kMiB + 512;
  std::vector<std::unique_ptr<BlockDevice>> bs4k;
  bs4k.push_back(std::make_unique<RamDevice>(e, "fast", 8 * kMiB, 4096));
  bs4k.push_back(std::make_unique<RamDevice>(e, "slow", 32 * kMiB, 4096));
  auto r = TierTarget::Create(e, "t", std::move(bs4k), c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("extent_size: must be a multiple of the block size", 0), 0u)
      << r.error().message;
  EXPECT_EQ(r.error().exit_code, kExitUsage);

  r = TierTarget::Create(e, "t", RamTiers(e, 0, 32 * kMiB), Quiet());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "tiers[0]: capacity is 0");

  c = Quiet();
  c.pins = {{30 * kMiB, 8 * kMiB, 0}};
  c.volume_size = 32 * kMiB;
  r = TierTarget::Create(e, "t", RamTiers(e, 8 * kMiB, 32 * kMiB), c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("pins[0]: range", 0), 0u) << r.error().message;

  c = Quiet();
  c.volume_size = 41 * kMiB;  // 8 + 32 slots of 1 MiB
  r = TierTarget::Create(e, "t", RamTiers(e, 8 * kMiB, 32 * kMiB), c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("volume_size: must be <=", 0), 0u) << r.error().message;
}

TEST(TierTargetTest, FastFirstFillsFastThenSpills) {
  SimEngine e;
  TierConfig c = Quiet();
  c.volume_size = 32 * kMiB;  // larger than the fast tier
  auto t = Make(e, RamTiers(e, 4 * kMiB, 64 * kMiB), c);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->Size(), 32 * kMiB);
  EXPECT_FALSE(t->PlacementAt(0).has_value());
  for (std::uint64_t off = 0; off < 32 * kMiB; off += 2 * kMiB) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, off, 2 * kMiB), Status::kOk) << off;
  }
  // The fast tier is exhausted after 4 extents; writes keep succeeding below.
  for (std::uint64_t x = 0; x < 32; ++x) {
    auto p = t->PlacementAt(x * kMiB);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->tier, x < 4 ? 0u : 1u) << x;
    EXPECT_EQ(p->slot, x < 4 ? x : x - 4) << x;
  }
  TierStats s = t->tier_stats();
  EXPECT_EQ(s.tiers[0].extents, 4u);
  EXPECT_EQ(s.tiers[1].extents, 28u);
  EXPECT_EQ(s.tiers[0].bytes, 4 * kMiB);
  EXPECT_EQ(s.map_intervals, 2u);  // consecutive slots on each tier merge
  // A request spanning the tier boundary is split: one piece per tier.
  EXPECT_EQ(Io(e, *t, IoOp::kRead, 3 * kMiB, 2 * kMiB), Status::kOk);
  s = t->tier_stats();
  EXPECT_EQ(s.tiers[0].read_ops, 1u);
  EXPECT_EQ(s.tiers[1].read_ops, 1u);
  EXPECT_EQ(s.tiers[0].read_bytes, kMiB);
  EXPECT_DOUBLE_EQ(s.OpShare(0), 3.0 / 18.0);  // 2 of 16 write pieces + 1 of 2 read pieces
}

TEST(TierTargetTest, SlowFirstAndPins) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.volume_size = 16 * kMiB;
  c.pins = {{2 * kMiB, kMiB + 4096, 0}};  // touches extents 2 and 3
  auto t = Make(e, RamTiers(e, 4 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  for (std::uint64_t x = 0; x < 16; ++x) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, x * kMiB, 4096), Status::kOk);
  }
  for (std::uint64_t x = 0; x < 16; ++x) {
    EXPECT_EQ(t->PlacementAt(x * kMiB)->tier, (x == 2 || x == 3) ? 0u : 1u) << x;
  }
}

TEST(TierTargetTest, UnmappedReadsZeroAndWholeExtentDiscardUnmaps) {
  SimEngine e;
  TierConfig c = Quiet();
  auto t = Make(e, RamTiers(e, 4 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  std::vector<std::byte> buf(2 * kMiB, std::byte{0x5A});
  ASSERT_EQ(Io(e, *t, IoOp::kRead, 0, buf.size(), buf.data()), Status::kOk);
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_EQ(t->tier_stats().zero_read_bytes, 2 * kMiB);

  std::fill(buf.begin(), buf.end(), std::byte{0x77});
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 0, buf.size(), buf.data()), Status::kOk);
  EXPECT_EQ(t->tier_stats().tiers[0].extents, 2u);
  // A partial discard keeps the extent; a whole one unmaps it and frees the slot.
  ASSERT_EQ(Io(e, *t, IoOp::kDiscard, 0, 4096), Status::kOk);
  EXPECT_TRUE(t->PlacementAt(0).has_value());
  ASSERT_EQ(Io(e, *t, IoOp::kDiscard, kMiB, kMiB), Status::kOk);
  EXPECT_FALSE(t->PlacementAt(kMiB).has_value());
  EXPECT_EQ(t->tier_stats().tiers[0].extents, 1u);
  std::fill(buf.begin(), buf.end(), std::byte{0x11});
  ASSERT_EQ(Io(e, *t, IoOp::kRead, kMiB, kMiB, buf.data()), Status::kOk);
  EXPECT_EQ(buf[0], std::byte{0});
  EXPECT_EQ(buf[kMiB - 1], std::byte{0});
  // The freed slot is reused by the next new extent.
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 5 * kMiB, 4096, buf.data()), Status::kOk);
  EXPECT_EQ(t->PlacementAt(5 * kMiB), (ExtentPlacement{0, 1}));
}

TEST(TierTargetTest, OptimizeMovesDataForReal) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  c.migration_io_size = 256 * 1024;
  auto t = Make(e, RamTiers(e, 4 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  std::vector<std::byte> w(kMiB), r(kMiB);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::byte>(i * 7 + 3);
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 6 * kMiB, kMiB, w.data()), Status::kOk);
  ASSERT_EQ(t->PlacementAt(6 * kMiB)->tier, 1u);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(Io(e, *t, IoOp::kRead, 6 * kMiB, 4096, r.data()), Status::kOk);
  EXPECT_EQ(t->OptimizeNow(), 1u);  // schedule off, but a manual pass still runs
  e.Run();
  EXPECT_EQ(t->PlacementAt(6 * kMiB)->tier, 0u);
  ASSERT_EQ(Io(e, *t, IoOp::kRead, 6 * kMiB, kMiB, r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), kMiB), 0);
  const TierStats s = t->tier_stats();
  EXPECT_EQ(s.promotions, 1u);
  EXPECT_EQ(s.promoted_bytes, kMiB);
  EXPECT_EQ(s.tiers[0].extents, 1u);
  EXPECT_EQ(s.tiers[1].extents, 0u);
}

// The verification harness with migrations running all the time: a tiny fast
// tier, a hair-trigger schedule, no hysteresis, a pass after every few ops.
// Writes and discards land on extents under copy; nothing may be lost.
void VerifyUnderMigration(Nanos fast_lat, Nanos slow_lat, std::uint64_t seed) {
  SimEngine e;
  TierConfig c;
  c.extent_size = kMiB;
  c.volume_size = 24 * kMiB;
  c.migration_io_size = 128 * 1024;
  c.schedule = MigrationSchedule::kContinuous;
  c.continuous_interval = 10 * kMicro;
  c.heat_half_life = 2 * kMilli;
  c.promote_hysteresis = 0;
  c.min_promote_heat = 0;
  c.fill_threshold = 0.75;
  c.max_migration_ios = 3;
  c.max_moves_per_pass = 8;
  auto t = Make(e, RamTiers(e, 8 * kMiB, 24 * kMiB, fast_lat, slow_lat), c);
  ASSERT_TRUE(t);
  testing::VerifyOptions o;
  o.ops = 6000;
  o.seed = seed;
  o.max_in_flight = 12;
  o.max_length = 192 * 1024;
  o.read_share = 0.4;
  o.write_share = 0.45;
  o.flush_share = 0.03;  // 12% discards
  o.on_complete = [&](std::uint64_t n) {
    if (n % 16 == 0) t->OptimizeNow();
  };
  auto r = testing::RunVerify(e, *t, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.discards, 300u);
  const TierStats s = t->tier_stats();
  EXPECT_GT(s.promotions, 15u);
  EXPECT_GT(s.demotions, 15u);
  if (slow_lat > 0) EXPECT_GT(s.migration_busy_ns, 0);
  EXPECT_GT(s.recopy_rounds, 0u) << "no write ever hit an extent under copy";
  EXPECT_FALSE(t->migrating());
  // Once idle, every slot is mapped or free: no move or discard leaked one.
  for (const TierUsage& u : s.tiers) EXPECT_EQ(u.extents + u.free_slots, u.slots);
  std::printf("[ info ] promotions %llu demotions %llu recopies %llu abandoned %llu\n",
              (unsigned long long)s.promotions, (unsigned long long)s.demotions,
              (unsigned long long)s.recopy_rounds, (unsigned long long)s.migrations_abandoned);
}

TEST(TierTargetTest, VerifyUnderConstantMigrationRam) {
  VerifyUnderMigration(0, 0, 11);
}

TEST(TierTargetTest, VerifyUnderConstantMigrationWithLatency) {
  VerifyUnderMigration(5 * kMicro, 40 * kMicro, 12);
}

// A closed-loop driver: `depth` requests in flight, each finished request
// replaced by a new one; 4 KiB random reads, `hot_share` of them on the hot
// extents, the rest uniform over the volume. Timing-only (no buffers).
struct Driver {
  SimEngine& e;
  BlockDevice& dev;
  std::vector<std::uint64_t> hot;  // extent indexes
  std::uint64_t extent_size;
  double hot_share;
  std::mt19937_64 rng{5};
  Nanos stop_at = 0;
  std::uint64_t ops = 0;
  Nanos lat_sum = 0;

  void Start(std::uint32_t depth, Nanos until) {
    stop_at = until;
    for (std::uint32_t i = 0; i < depth; ++i) Issue();
    e.RunUntil(until);
    e.Run();  // drain (migrations included)
  }
  void Issue() {
    const std::uint64_t blocks_per_extent = extent_size / 4096;
    std::uint64_t off;
    if (std::uniform_real_distribution<double>(0, 1)(rng) < hot_share) {
      off = hot[rng() % hot.size()] * extent_size + (rng() % blocks_per_extent) * 4096;
    } else {
      off = (rng() % (dev.Size() / 4096)) * 4096;
    }
    const Nanos t0 = e.Now();
    dev.Submit(IoRequest{IoOp::kRead, 0, off, 4096, nullptr}, [this, t0](Status st) {
      EXPECT_EQ(st, Status::kOk);
      ++ops;
      lat_sum += e.Now() - t0;
      if (e.Now() < stop_at) Issue();
    });
  }
  double MeanLatency() const { return ops == 0 ? 0 : static_cast<double>(lat_sum) / ops; }
};

struct HotColdResult {
  double fast_share = 0;  // of ops in the measured phase
  double mean_latency = 0;
  TierStats stats;
  DeviceStats fast_dev, slow_dev;
};

HotColdResult RunHotCold(MigrationSchedule schedule) {
  constexpr Nanos kFast = 20 * kMicro;
  constexpr Nanos kSlow = 2 * kMilli;
  SimEngine e;
  TierConfig c;
  c.extent_size = kMiB;
  c.volume_size = 64 * kMiB;
  c.placement = TierPlacement::kSlowFirst;
  c.schedule = schedule;
  c.continuous_interval = 100 * kMilli;
  c.heat_half_life = 2 * kSecond;
  c.max_migration_ios = 2;
  auto tiers = RamTiers(e, 16 * kMiB, 64 * kMiB, kFast, kSlow);
  BlockDevice* fast_dev = tiers[0].get();
  BlockDevice* slow_dev = tiers[1].get();
  auto t = Make(e, std::move(tiers), c);
  if (!t) return {};
  // Write the whole volume once: slow-first puts everything on the slow tier.
  for (std::uint64_t off = 0; off < t->Size(); off += kMiB) {
    t->Submit(IoRequest{IoOp::kWrite, 0, off, kMiB, nullptr},
              [](Status st) { EXPECT_EQ(st, Status::kOk); });
  }
  e.Run();
  std::vector<std::uint64_t> hot;
  for (std::uint64_t x = 3; hot.size() < 10; x += 5) hot.push_back(x);  // 10 extents, scattered
  // Warm-up, then the measured phase.
  Driver warm{e, *t, hot, kMiB, 0.99};
  warm.Start(8, e.Now() + 5 * kSecond);
  const TierStats before = t->tier_stats();
  Driver run{e, *t, hot, kMiB, 0.99};
  run.rng.seed(9);
  run.Start(8, e.Now() + 2 * kSecond);
  HotColdResult r;
  r.stats = t->tier_stats();
  const double fast_ops = static_cast<double>(r.stats.tiers[0].read_ops - before.tiers[0].read_ops);
  const double slow_ops = static_cast<double>(r.stats.tiers[1].read_ops - before.tiers[1].read_ops);
  r.fast_share = fast_ops / (fast_ops + slow_ops);
  r.mean_latency = run.MeanLatency();
  r.fast_dev = fast_dev->stats();
  r.slow_dev = slow_dev->stats();
  return r;
}

TEST(TierTargetTest, HotSetMigratesToFastTier) {
  const HotColdResult on = RunHotCold(MigrationSchedule::kContinuous);
  const HotColdResult off = RunHotCold(MigrationSchedule::kOff);
  std::printf("[ info ] migration on: fast share %.3f mean %.1f us; off: %.3f, %.1f us\n",
              on.fast_share, on.mean_latency / 1e3, off.fast_share, off.mean_latency / 1e3);
  // On: the hot set (99% of reads) lives on the fast tier after warm-up, and
  // the mean falls to near the fast tier's 20 us (1% of reads still miss to
  // the slow tier's 2 ms: ~40 us expected).
  EXPECT_GT(on.fast_share, 0.95);
  EXPECT_LT(on.mean_latency, 3 * 20e3);
  EXPECT_GE(on.stats.promotions, 10u);
  // Off: everything stays on the slow tier.
  EXPECT_EQ(off.fast_share, 0.0);
  EXPECT_GT(off.mean_latency, 1.9e6);
  EXPECT_EQ(off.stats.promotions, 0u);
  // Migration is real I/O on the children: their byte counters hold exactly
  // the foreground pieces plus the copies.
  const TierStats& s = on.stats;
  const std::uint64_t promoted = s.promoted_bytes, demoted = s.demoted_bytes;
  EXPECT_EQ(on.slow_dev.read_bytes, s.tiers[1].read_bytes + promoted);
  EXPECT_EQ(on.fast_dev.write_bytes, s.tiers[0].write_bytes + promoted);
  EXPECT_EQ(on.fast_dev.read_bytes, s.tiers[0].read_bytes + demoted);
  EXPECT_EQ(on.slow_dev.write_bytes, s.tiers[1].write_bytes + demoted);
  EXPECT_EQ(off.slow_dev.read_bytes, off.stats.tiers[1].read_bytes);
}

TEST(TierTargetTest, BandwidthBudgetPacesCopies) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  c.migration_bandwidth = 8 * kMiB;  // bytes/s
  c.max_migration_ios = 4;
  auto t = Make(e, RamTiers(e, 8 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  for (std::uint64_t x = 0; x < 4; ++x) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, x * kMiB, 4096), Status::kOk);
  }
  const Nanos t0 = e.Now();
  EXPECT_EQ(t->OptimizeNow(), 4u);
  e.Run();
  const TierStats s = t->tier_stats();
  EXPECT_EQ(s.promotions, 4u);
  // 4 MiB at 8 MiB/s: the last chunk cannot start before 3/8 s.
  EXPECT_GE(e.Now() - t0, 3 * kSecond / 8);
  EXPECT_GE(s.migration_busy_ns, 3 * kSecond / 8);
}

TEST(TierTargetTest, PeriodicScheduleWaitsForThePeriod) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.schedule = MigrationSchedule::kPeriodic;
  c.period = 10 * kSecond;
  c.min_promote_heat = 0.5;
  auto t = Make(e, RamTiers(e, 8 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 0, 4096), Status::kOk);  // runs until the pass at 10 s
  EXPECT_EQ(e.Now(), 10 * kSecond);
  EXPECT_EQ(t->PlacementAt(0)->tier, 0u);
  EXPECT_EQ(t->tier_stats().migration_passes, 1u);
}

TEST(TierTargetTest, FillThresholdRotatesColdExtentsDown) {
  SimEngine e;
  TierConfig c = Quiet();
  c.schedule = MigrationSchedule::kPeriodic;
  c.period = 1000 * kSecond;  // only the fill trigger runs passes here
  c.fill_threshold = 0.5;
  c.volume_size = 16 * kMiB;
  auto t = Make(e, RamTiers(e, 8 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  // Fast-first: the first 8 extents land on the fast tier, the fill trigger
  // sends the coldest down while writes continue.
  for (std::uint64_t x = 0; x < 8; ++x) {
    bool done = false;
    t->Submit(IoRequest{IoOp::kWrite, 0, x * kMiB, 4096, nullptr}, [&](Status) { done = true; });
    e.RunUntil(e.Now() + kMilli);
    ASSERT_TRUE(done);
  }
  e.RunUntil(e.Now() + 10 * kSecond);
  const TierStats s = t->tier_stats();
  EXPECT_GT(s.demotions, 0u);
  EXPECT_LE(s.tiers[0].extents, 4u);
  EXPECT_EQ(s.tiers[0].extents + s.tiers[1].extents, 8u);
}

}  // namespace
}  // namespace tierlab
