// The tier target: data correctness under constant migration (verification
// harness), placement, discards, config errors, and a simulated hot/cold
// workload where migration brings the hot set to the fast tier
// (TierSimulationTest.cc holds the simulations on device models).

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/tier/TierTarget.h"

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
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);

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

// A freed slot keeps its last extent's data. The first write to a new
// extent that lands in it zero-fills the rest of the extent, and a read of
// the unwritten part, submitted while that runs, waits for it: it reads
// zeros, never the other extent's data.
TEST(TierTargetTest, APartlyWrittenNewExtentReadsZerosWhereNotWritten) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  auto t = Make(e, RamTiers(e, 4 * kMiB, 16 * kMiB, 10 * kMicro, 100 * kMicro), c);
  ASSERT_TRUE(t);
  std::vector<std::byte> old(kMiB, std::byte{0xAB});
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 0, kMiB, old.data()), Status::kOk);
  ASSERT_EQ(t->PlacementAt(0), (ExtentPlacement{1, 0}));
  for (int i = 0; i < 4; ++i) ASSERT_EQ(Io(e, *t, IoOp::kRead, 0, 4096, old.data()), Status::kOk);
  ASSERT_EQ(t->OptimizeNow(), 1u);
  e.Run();
  ASSERT_EQ(t->PlacementAt(0)->tier, 0u);  // slow slot 0 is free and holds 0xAB

  std::vector<std::byte> w(4096, std::byte{0xCD}), r(64 * 1024, std::byte{0x11});
  Status ws = Status::kShutdown, rs = Status::kShutdown;
  t->Submit(IoRequest{IoOp::kWrite, 0, 5 * kMiB, w.size(), w.data()}, [&](Status st) { ws = st; });
  t->Submit(IoRequest{IoOp::kRead, 0, 5 * kMiB + 8192, r.size(), r.data()},
            [&](Status st) { rs = st; });
  e.Run();
  ASSERT_EQ(ws, Status::kOk);
  ASSERT_EQ(rs, Status::kOk);
  ASSERT_EQ(t->PlacementAt(5 * kMiB), (ExtentPlacement{1, 0}));  // the reused slot
  EXPECT_TRUE(std::all_of(r.begin(), r.end(), [](std::byte b) { return b == std::byte{0}; }));
  std::vector<std::byte> all(kMiB);
  ASSERT_EQ(Io(e, *t, IoOp::kRead, 5 * kMiB, kMiB, all.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(all.data(), w.data(), w.size()), 0);
  EXPECT_TRUE(
      std::all_of(all.begin() + 4096, all.end(), [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_EQ(t->tier_stats().zero_fill_bytes, kMiB - 4096);
  // A write that covers its new extent whole writes no zeros.
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 6 * kMiB, kMiB, old.data()), Status::kOk);
  EXPECT_EQ(t->tier_stats().zero_fill_bytes, kMiB - 4096);
}

// A first write that covers its new extent whole: a read sent right after
// it waits for it (until the write lands, the slot holds its last owner's
// data).
TEST(TierTargetTest, ANewExtentIsNotReadBeforeItsFirstWriteLands) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  std::vector<std::unique_ptr<BlockDevice>> v;
  v.push_back(std::make_unique<RamDevice>(e, "fast", 4 * kMiB));
  v.push_back(std::make_unique<DelayTarget>(e, "slow-delay",
                                            std::make_unique<RamDevice>(e, "slow", 16 * kMiB),
                                            DelayConfig{10 * kMicro, 200 * kMicro, 0}));
  auto t = Make(e, std::move(v), c);
  ASSERT_TRUE(t);
  std::vector<std::byte> old(kMiB, std::byte{0xAB});
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 0, kMiB, old.data()), Status::kOk);
  for (int i = 0; i < 4; ++i) ASSERT_EQ(Io(e, *t, IoOp::kRead, 0, 4096, old.data()), Status::kOk);
  ASSERT_EQ(t->OptimizeNow(), 1u);
  e.Run();
  ASSERT_EQ(t->PlacementAt(0)->tier, 0u);  // slow slot 0 is free and holds 0xAB

  std::vector<std::byte> w(kMiB, std::byte{0xCD}), r(4096, std::byte{0x11});
  Status ws = Status::kShutdown, rs = Status::kShutdown;
  t->Submit(IoRequest{IoOp::kWrite, 0, 5 * kMiB, w.size(), w.data()}, [&](Status st) { ws = st; });
  t->Submit(IoRequest{IoOp::kRead, 0, 5 * kMiB, r.size(), r.data()}, [&](Status st) { rs = st; });
  e.Run();
  ASSERT_EQ(ws, Status::kOk);
  ASSERT_EQ(rs, Status::kOk);
  ASSERT_EQ(t->PlacementAt(5 * kMiB), (ExtentPlacement{1, 0}));
  EXPECT_TRUE(std::all_of(r.begin(), r.end(), [](std::byte b) { return b == std::byte{0xCD}; }));
  EXPECT_EQ(t->tier_stats().zero_fill_bytes, 0u);
}

// A write over two new extents that finds a slot for the first and must
// wait for the second gives the first back: it is not readable meanwhile
// (it reads zeros, unmapped) and the retried write zero-fills it.
TEST(TierTargetTest, AWriteThatWaitsForASlotMapsNothingMeanwhile) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  c.fill_threshold = 1.0;
  c.volume_size = 4 * kMiB;
  auto t = Make(e, RamTiers(e, kMiB, 4 * kMiB, 10 * kMicro, 10 * kMicro), c);
  ASSERT_TRUE(t);
  std::vector<std::byte> old(kMiB, std::byte{0xAB}), other(kMiB, std::byte{0x22});
  for (std::uint64_t x = 0; x < 3; ++x) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, x * kMiB, kMiB, other.data()), Status::kOk);
  }
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 3 * kMiB, kMiB, old.data()), Status::kOk);
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(Io(e, *t, IoOp::kRead, 3 * kMiB, 4096, other.data()), Status::kOk);
  }
  ASSERT_EQ(t->OptimizeNow(), 1u);
  e.Run();
  ASSERT_EQ(t->PlacementAt(3 * kMiB)->tier, 0u);  // its slow slot is free and holds 0xAB

  // A read in flight on extents 0-1 keeps the discard's two slots from
  // coming free at once: the write over both finds one slot, waits for one.
  std::vector<std::byte> rb(2 * kMiB), w(kMiB, std::byte{0xCD}), head(4096, std::byte{0x11});
  int done = 0;
  auto ok = [&](Status st) {
    EXPECT_EQ(st, Status::kOk);
    ++done;
  };
  t->Submit(IoRequest{IoOp::kRead, 0, 0, rb.size(), rb.data()}, ok);
  t->Submit(IoRequest{IoOp::kDiscard, 0, 0, 2 * kMiB, nullptr}, ok);
  t->Submit(IoRequest{IoOp::kWrite, 0, 4096, w.size(), w.data()}, ok);
  EXPECT_FALSE(t->PlacementAt(0).has_value()) << "a waiting write keeps no extent mapped";
  t->Submit(IoRequest{IoOp::kRead, 0, 0, head.size(), head.data()}, ok);
  e.Run();
  ASSERT_EQ(done, 4);
  EXPECT_TRUE(std::all_of(head.begin(), head.end(), [](std::byte b) { return b == std::byte{0}; }));
  std::vector<std::byte> after(kMiB);
  ASSERT_EQ(Io(e, *t, IoOp::kRead, 0, kMiB, after.data()), Status::kOk);
  EXPECT_TRUE(std::all_of(after.begin(), after.begin() + 4096,
                          [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_TRUE(std::all_of(after.begin() + 4096, after.end(),
                          [](std::byte b) { return b == std::byte{0xCD}; }));
  EXPECT_EQ(t->tier_stats().zero_fill_bytes, 4096u + (kMiB - 4096));
}

// Timing only (no write carries data): nothing to leak, no zeros written.
TEST(TierTargetTest, TimingOnlyWritesNoZeroFill) {
  SimEngine e;
  auto t = Make(e, RamTiers(e, 4 * kMiB, 16 * kMiB), Quiet());
  ASSERT_TRUE(t);
  for (std::uint64_t x = 0; x < 8; ++x) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, x * kMiB + 4096, 4096), Status::kOk);
  }
  const TierStats s = t->tier_stats();
  EXPECT_EQ(s.zero_fill_bytes, 0u);
  EXPECT_EQ(s.tiers[0].write_ops + s.tiers[1].write_ops, 8u);
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
// `recopy_rounds` small makes moves hold writes (their final round) often.
void VerifyUnderMigration(Nanos fast_lat, Nanos slow_lat, std::uint64_t seed,
                          std::uint32_t recopy_rounds = 4) {
  SimEngine e;
  TierConfig c;
  c.extent_size = kMiB;
  c.volume_size = 24 * kMiB;
  c.migration_io_size = 128 * 1024;
  c.schedule = MigrationSchedule::kContinuous;
  c.interval = 10 * kMicro;
  c.heat_half_life = 2 * kMilli;
  c.promote_hysteresis = 0;
  c.min_promote_heat = 0;
  c.fill_threshold = 0.75;
  c.max_migration_ios = 3;
  c.max_moves_per_pass = 8;
  c.max_recopy_rounds = recopy_rounds;
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
  if (slow_lat > 0) {
    EXPECT_GT(s.migration_busy_ns, 0);
  }
  EXPECT_GT(s.recopy_rounds, 0u) << "no write ever hit an extent under copy";
  if (recopy_rounds <= 1) {
    EXPECT_GT(s.held_rounds, 0u);
    EXPECT_GT(s.held_ops, 0u) << "no write was held by a final round";
  }
  EXPECT_LE(s.max_held_ns, s.max_move_ns);  // a hold never outlasts its move
  EXPECT_FALSE(t->migrating());
  // Once idle, every slot is mapped or free: no move or discard leaked one.
  for (const TierUsage& u : s.tiers) EXPECT_EQ(u.extents + u.free_slots, u.slots);
  std::printf(
      "[ info ] promotions %llu demotions %llu recopies %llu held rounds %llu held writes %llu "
      "abandoned %llu\n",
      (unsigned long long)s.promotions, (unsigned long long)s.demotions,
      (unsigned long long)s.recopy_rounds, (unsigned long long)s.held_rounds,
      (unsigned long long)s.held_ops, (unsigned long long)s.migrations_abandoned);
}

TEST(TierTargetTest, VerifyUnderConstantMigrationRam) {
  VerifyUnderMigration(0, 0, 11);
}

TEST(TierTargetTest, VerifyUnderConstantMigrationWithLatency) {
  VerifyUnderMigration(5 * kMicro, 40 * kMicro, 12);
}

TEST(TierTargetTest, VerifyUnderConstantMigrationHoldingWrites) {
  VerifyUnderMigration(5 * kMicro, 40 * kMicro, 13, /*recopy_rounds=*/0);
  VerifyUnderMigration(0, 0, 14, /*recopy_rounds=*/1);
}

// An extent written all the time never has a clean copy round. It used to be
// abandoned after max_recopy_rounds (so the hottest extents of a write-heavy
// workload never moved); now its final round holds new writes, the move
// completes, and the held writes land on the new tier. The hold is bounded
// by one round: the writes in flight when it began, then one copy of the
// chunks they dirtied.
TEST(TierTargetTest, ConstantlyWrittenExtentStillMovesWithABoundedHold) {
  constexpr Nanos kFast = 20 * kMicro, kSlow = kMilli;
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  c.migration_io_size = 256 * 1024;  // 4 chunks per extent
  c.max_migration_ios = 4;
  c.max_recopy_rounds = 3;
  std::vector<std::unique_ptr<BlockDevice>> tiers;
  tiers.push_back(std::make_unique<DelayTarget>(
      e, "fast", std::make_unique<RamDevice>(e, "fast-ram", 4 * kMiB, 4096),
      DelayConfig{kFast, kFast, 0}));
  tiers.push_back(std::make_unique<DelayTarget>(
      e, "slow", std::make_unique<RamDevice>(e, "slow-ram", 16 * kMiB, 4096),
      DelayConfig{kSlow, kSlow, 0}));
  auto t = Make(e, std::move(tiers), c);
  ASSERT_TRUE(t);
  constexpr std::uint64_t kExtent = 5;  // on the slow tier (slow-first)
  constexpr std::uint64_t kBlocks = kMiB / 4096;
  std::vector<std::byte> init(kMiB, std::byte{0});
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, kExtent * kMiB, kMiB, init.data()), Status::kOk);
  ASSERT_EQ(t->PlacementAt(kExtent * kMiB)->tier, 1u);
  // Four writers, each rewriting its own blocks of the extent back to back
  // with an increasing stamp; the last stamp of every block is remembered.
  struct Writers {
    std::vector<std::uint8_t> expect = std::vector<std::uint8_t>(kBlocks, 0);
    std::vector<std::vector<std::byte>> bufs =
        std::vector<std::vector<std::byte>>(4, std::vector<std::byte>(4096));
    std::uint64_t writes = 0;
    bool stop = false;
    std::function<void(int, std::uint8_t)> write;
  } ws;
  std::vector<std::uint8_t>& expect = ws.expect;
  std::uint64_t& writes = ws.writes;
  auto write = [&](int w, std::uint8_t stamp) { ws.write(w, stamp); };
  ws.write = [&t, &ws](int w, std::uint8_t stamp) {
    const std::uint64_t block =
        (ws.writes * 7 + static_cast<std::uint64_t>(w)) % kBlocks / 4 * 4 + w;
    std::fill(ws.bufs[w].begin(), ws.bufs[w].end(), std::byte{stamp});
    t->Submit(IoRequest{IoOp::kWrite, 0, kExtent * kMiB + block * 4096, 4096, ws.bufs[w].data()},
              [p = &ws, w, block, stamp](Status st) {
                EXPECT_EQ(st, Status::kOk);
                p->expect[block] = stamp;
                ++p->writes;
                if (!p->stop) p->write(w, static_cast<std::uint8_t>(stamp + 1));
              });
  };
  for (int w = 0; w < 4; ++w) write(w, static_cast<std::uint8_t>(1 + 50 * w));
  e.RunUntil(e.Now() + 5 * kMilli);
  EXPECT_EQ(t->OptimizeNow(), 1u);
  e.RunUntil(e.Now() + 200 * kMilli);
  ws.stop = true;
  e.Run();
  EXPECT_EQ(t->PlacementAt(kExtent * kMiB)->tier, 0u);
  const TierStats s = t->tier_stats();
  EXPECT_EQ(s.promotions, 1u);
  EXPECT_EQ(s.migrations_abandoned, 0u);
  EXPECT_EQ(s.held_rounds, 1u);
  EXPECT_GT(s.held_ops, 0u);
  EXPECT_GE(s.recopy_rounds, c.max_recopy_rounds);
  // Bound: the writes in flight at the hold (one slow write), then one
  // round copying at most the whole extent (4 chunks, 4 at once: one slow
  // read + one fast write), then maybe one more round for the chunks those
  // in-flight writes dirtied after being copied.
  EXPECT_LE(s.max_held_ns, kSlow + 2 * (kSlow + kFast)) << s.max_held_ns;
  std::printf("[ info ] %llu writes, %llu held, longest hold %.2f ms, move %.2f ms\n",
              (unsigned long long)writes, (unsigned long long)s.held_ops, s.max_held_ns / 1e6,
              s.max_move_ns / 1e6);
  // No write was lost across the switch: every block holds its last stamp.
  std::vector<std::byte> back(kMiB);
  ASSERT_EQ(Io(e, *t, IoOp::kRead, kExtent * kMiB, kMiB, back.data()), Status::kOk);
  for (std::uint64_t b = 0; b < kBlocks; ++b) {
    ASSERT_EQ(back[b * 4096], std::byte{expect[b]}) << "block " << b;
    ASSERT_EQ(back[b * 4096 + 4095], std::byte{expect[b]}) << "block " << b;
  }
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

// A whole-extent discard of a move that has no copy in flight (its turn in
// the bandwidth budget has not come) retires the move at once: before, it
// stayed active for good, held both slots, and no pass ever planned again.
TEST(TierTargetTest, DiscardOfAMoveWaitingForItsBudgetRetiresIt) {
  SimEngine e;
  TierConfig c = Quiet();
  c.placement = TierPlacement::kSlowFirst;
  c.min_promote_heat = 0.5;
  c.migration_bandwidth = 2 * kMiB;  // one 1 MiB chunk every 0.5 s
  c.max_migration_ios = 4;
  auto t = Make(e, RamTiers(e, 8 * kMiB, 16 * kMiB), c);
  ASSERT_TRUE(t);
  for (std::uint64_t x = 0; x < 4; ++x) {
    ASSERT_EQ(Io(e, *t, IoOp::kWrite, x * kMiB, 4096), Status::kOk);
  }
  ASSERT_EQ(t->OptimizeNow(), 4u);
  e.RunUntil(e.Now() + kMilli);  // one move has copied; three wait for the budget
  std::vector<std::uint64_t> waiting;
  for (std::uint64_t x = 0; x < 4; ++x) {
    if (t->PlacementAt(x * kMiB)->tier == 1) waiting.push_back(x);
  }
  ASSERT_EQ(waiting.size(), 3u);
  bool done = false;
  for (std::uint64_t x : waiting) {
    t->Submit(IoRequest{IoOp::kDiscard, 0, x * kMiB, kMiB, nullptr}, [&](Status st) {
      EXPECT_EQ(st, Status::kOk);
      done = true;
    });
  }
  e.Run();
  EXPECT_TRUE(done);
  EXPECT_FALSE(t->migrating());
  TierStats s = t->tier_stats();
  EXPECT_EQ(s.promotions, 1u);
  EXPECT_EQ(s.migrations_abandoned, 3u);
  for (const TierUsage& u : s.tiers) EXPECT_EQ(u.extents + u.free_slots, u.slots);
  // Passes plan again: a newly written, read extent is promoted.
  ASSERT_EQ(Io(e, *t, IoOp::kWrite, 9 * kMiB, 4096), Status::kOk);
  ASSERT_EQ(t->PlacementAt(9 * kMiB)->tier, 1u);
  EXPECT_EQ(t->OptimizeNow(), 1u);
  e.Run();
  EXPECT_EQ(t->PlacementAt(9 * kMiB)->tier, 0u);
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
