// The tier target's building blocks: the extent map (both implementations,
// checked against each other), per-tier free space, decayed heat, and config
// validation.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tiering/tier/ExtentHeat.h"
#include "tiering/tier/ExtentMap.h"
#include "tiering/tier/TierConfig.h"
#include "tiering/tier/TierFreeSpace.h"

namespace tierlab {
namespace {

struct Run {
  std::uint64_t first, count;
  bool mapped;
  ExtentPlacement p;
  bool operator==(const Run&) const = default;
};

template <typename Map>
std::vector<Run> Runs(const Map& m, std::uint64_t first, std::uint64_t count) {
  std::vector<Run> out;
  m.ForEachRun(first, count, [&](std::uint64_t f, std::uint64_t n, const ExtentPlacement* p) {
    out.push_back({f, n, p != nullptr, p != nullptr ? *p : ExtentPlacement{}});
  });
  return out;
}

template <typename Map>
class ExtentMapTyped : public ::testing::Test {};
using MapTypes = ::testing::Types<IntervalExtentMap, FlatExtentMap>;
TYPED_TEST_SUITE(ExtentMapTyped, MapTypes);

TYPED_TEST(ExtentMapTyped, ContiguousRunsMergeAndSplit) {
  TypeParam m(100);
  for (std::uint64_t e = 10; e < 20; ++e) m.Set(e, {0, e + 5});  // slots 15..24 on tier 0
  EXPECT_EQ(m.intervals(), 1u);
  EXPECT_EQ(m.mapped(), 10u);
  EXPECT_EQ(Runs(m, 0, 100),
            (std::vector<Run>{{0, 10, false, {}}, {10, 10, true, {0, 15}}, {20, 80, false, {}}}));
  // Moving one extent to another tier splits the run in three.
  m.Set(14, {1, 3});
  EXPECT_EQ(m.intervals(), 3u);
  EXPECT_EQ(m.Lookup(14), (ExtentPlacement{1, 3}));
  EXPECT_EQ(m.Lookup(15), (ExtentPlacement{0, 20}));
  EXPECT_EQ(
      Runs(m, 12, 5),
      (std::vector<Run>{{12, 2, true, {0, 17}}, {14, 1, true, {1, 3}}, {15, 2, true, {0, 20}}}));
  // Moving it back to its old slot merges them again.
  m.Set(14, {0, 19});
  EXPECT_EQ(m.intervals(), 1u);
  // Same tier, non-consecutive slot: no merge.
  m.Set(20, {0, 99});
  EXPECT_EQ(m.intervals(), 2u);
  m.Erase(15);
  EXPECT_FALSE(m.Lookup(15).has_value());
  EXPECT_EQ(m.mapped(), 10u);
  EXPECT_EQ(m.intervals(), 3u);
  m.Erase(15);  // erasing an unmapped extent changes nothing
  EXPECT_EQ(m.mapped(), 10u);
}

TYPED_TEST(ExtentMapTyped, SlotBelowExtentIndexEncodes) {
  TypeParam m(1000);
  m.Set(999, {2, 0});
  m.Set(998, {2, 1});
  EXPECT_EQ(m.Lookup(999), (ExtentPlacement{2, 0}));
  EXPECT_EQ(m.Lookup(998), (ExtentPlacement{2, 1}));
  EXPECT_EQ(m.intervals(), 2u);  // descending slots do not merge
}

// Both implementations give the same answers for any sequence of updates.
TEST(ExtentMapTest, ImplementationsAgree) {
  constexpr std::uint64_t kExtents = 2000;
  IntervalExtentMap a(kExtents);
  FlatExtentMap b(kExtents);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t e = rng() % kExtents;
    if (rng() % 5 == 0) {
      a.Erase(e);
      b.Erase(e);
    } else {
      // Mostly sequential-looking placements so runs form and break.
      const ExtentPlacement p{static_cast<std::uint32_t>(rng() % 3),
                              rng() % 2 == 0 ? e : rng() % 5000};
      a.Set(e, p);
      b.Set(e, p);
    }
    if (i % 1000 == 0) {
      const std::uint64_t f = rng() % kExtents;
      const std::uint64_t n = 1 + rng() % (kExtents - f);
      ASSERT_EQ(Runs(a, f, n), Runs(b, f, n)) << "after " << i << " updates";
    }
  }
  EXPECT_EQ(a.mapped(), b.mapped());
  EXPECT_EQ(a.intervals(), b.intervals());
  EXPECT_EQ(Runs(a, 0, kExtents), Runs(b, 0, kExtents));
  for (std::uint64_t e = 0; e < kExtents; ++e) ASSERT_EQ(a.Lookup(e), b.Lookup(e)) << e;
}

TEST(TierFreeSpaceTest, FirstFitExhaustionAndReuse) {
  TierFreeSpace f(4);
  EXPECT_EQ(f.intervals(), 1u);
  for (std::uint64_t s = 0; s < 4; ++s) EXPECT_EQ(f.Allocate(), s);
  EXPECT_EQ(f.free(), 0u);
  EXPECT_FALSE(f.Allocate().has_value());  // exhausted
  f.Free(2);
  f.Free(0);
  EXPECT_EQ(f.free(), 2u);
  EXPECT_EQ(f.intervals(), 2u);
  EXPECT_TRUE(f.IsFree(2));
  EXPECT_FALSE(f.IsFree(1));
  EXPECT_EQ(f.Allocate(), 0u);  // lowest first
  EXPECT_EQ(f.Allocate(), 2u);
  EXPECT_FALSE(f.Allocate().has_value());
  f.Free(1);
  f.Free(2);
  EXPECT_EQ(f.intervals(), 1u);  // neighbours merge back
}

TEST(ExtentHeatTest, DecaysByHalfLifeAndOrders) {
  ExtentHeat h(4, 10 * kSecond);
  h.Touch(0, 1, 8.0f, 0);
  EXPECT_NEAR(h.Heat(0, 0), 8.0, 1e-4);
  EXPECT_NEAR(h.Heat(0, 10 * kSecond), 4.0, 1e-4);
  EXPECT_NEAR(h.Heat(0, 30 * kSecond), 1.0, 1e-4);
  h.Touch(1, 2, 2.0f, 30 * kSecond);  // extents 1 and 2
  EXPECT_NEAR(h.Heat(1, 30 * kSecond), 2.0, 1e-4);
  EXPECT_GT(h.Score(1), h.Score(0));  // 2 now beats 8 three half-lives ago
  EXPECT_EQ(h.Score(1), h.Score(2));
  h.Reset(2);
  EXPECT_EQ(h.Heat(2, 30 * kSecond), 0.0);
  const auto hist = h.Histogram(30 * kSecond);
  std::uint64_t total = 0;
  for (auto c : hist) total += c;
  EXPECT_EQ(total, 4u);
  EXPECT_EQ(hist[0], 2u);  // extents 2 and 3 (zero heat)
  EXPECT_EQ(hist[1], 1u);  // extent 0: heat 1 is in [1, 2)
  EXPECT_EQ(hist[2], 1u);  // extent 1: heat 2 is in [2, 4)
}

TEST(ExtentHeatTest, RebaseKeepsHeatAcrossManyHalfLives) {
  ExtentHeat h(2, kSecond);
  h.Touch(0, 1, 1.0f, 0);
  // Far beyond the rebase horizon: scores are renormalised, values stay right.
  const Nanos t = (ExtentHeat::kRebaseExponent + 40) * kSecond;
  h.Touch(1, 1, 4.0f, t);
  EXPECT_NEAR(h.Heat(1, t), 4.0, 1e-3);
  EXPECT_NEAR(h.Heat(1, t + kSecond), 2.0, 1e-3);
  EXPECT_LT(h.Heat(0, t), 1e-20);
}

std::vector<TierGeometry> TwoTiers(std::uint64_t fast = 64 << 20, std::uint64_t slow = 512 << 20,
                                   std::uint32_t bs = 4096) {
  return {{fast, bs}, {slow, bs}};
}

std::string Err(const TierConfig& c, const std::vector<TierGeometry>& g) {
  auto r = ValidateTierConfig(c, g);
  return r.ok() ? std::string() : r.error().message;
}

TEST(TierConfigTest, ValidDefaults) {
  TierConfig c;
  EXPECT_EQ(Err(c, TwoTiers()), "");
  // Default volume: all whole extents less max_migration_ios spares.
  EXPECT_EQ(TierVolumeSize(c, TwoTiers()), (576ull << 20) - 4 * c.extent_size);
}

TEST(TierConfigTest, ErrorsNameTheField) {
  TierConfig c;
  c.extent_size = (1 << 20) + 512;  // not a multiple of 4096
  EXPECT_EQ(Err(c, TwoTiers()).rfind("extent_size: must be a multiple of the block size 4096", 0),
            0u)
      << Err(c, TwoTiers());
  c = {};
  c.extent_size = 512 << 20;
  EXPECT_EQ(Err(c, TwoTiers()).rfind("extent_size: must be 1 MiB..256 MiB", 0), 0u);
  c = {};
  EXPECT_EQ(Err(c, TwoTiers(0)), "tiers[0]: capacity is 0");
  EXPECT_EQ(Err(c, {{64 << 20, 4096}}).rfind("tiers: need 2..", 0), 0u);
  EXPECT_EQ(Err(c, TwoTiers(4 << 20)).rfind("tiers[0]: capacity 4194304 holds no whole extent", 0),
            0u);
  c.volume_size = 1ull << 30;
  EXPECT_EQ(Err(c, TwoTiers()).rfind("volume_size: must be <=", 0), 0u);
  c = {};
  c.volume_size = (64 << 20) + 512;
  EXPECT_EQ(Err(c, TwoTiers()).rfind("volume_size: must be a multiple of the block size", 0), 0u);
  c = {};
  c.volume_size = 256 << 20;
  c.pins = {{200 << 20, 100 << 20, 0}};
  EXPECT_EQ(Err(c, TwoTiers()).rfind("pins[0]: range", 0), 0u) << Err(c, TwoTiers());
  c.pins = {{0, 1 << 20, 2}};
  EXPECT_EQ(Err(c, TwoTiers()).rfind("pins[0].tier: must be < 2", 0), 0u);
  c.pins = {{0, 4 << 20, 0}, {8 << 20, 16 << 20, 1}, {(2 << 20), 1 << 20, 1}};
  EXPECT_EQ(Err(c, TwoTiers()).rfind("pins[2]: shares extent 0 with pins[0]", 0), 0u)
      << Err(c, TwoTiers());
  c.pins = {{0, 128 << 20, 0}};  // 16 extents to a tier of 8
  EXPECT_EQ(Err(c, TwoTiers()).rfind("pins: pin 16 extents to tier 0, which holds only 8", 0), 0u)
      << Err(c, TwoTiers());
  c = {};
  c.migration_io_size = 3 << 20;
  EXPECT_EQ(Err(c, TwoTiers()).rfind("migration_io_size:", 0), 0u);
  c = {};
  c.fill_threshold = 0;
  EXPECT_EQ(Err(c, TwoTiers()), "fill_threshold: must be in (0, 1]");
  c = {};
  c.max_migration_ios = 0;
  EXPECT_EQ(Err(c, TwoTiers()), "max_migration_ios: must be >= 1");
  c = {};
  c.heat_half_life = 0;
  EXPECT_EQ(Err(c, TwoTiers()), "heat_half_life: must be > 0");
  c = {};
  c.schedule = MigrationSchedule::kPeriodic;
  c.period = 0;
  EXPECT_EQ(Err(c, TwoTiers()), "period: must be > 0 with schedule periodic");
}

TEST(TierConfigTest, ParsesNames) {
  EXPECT_EQ(*ParseTierPlacement("slow-first"), TierPlacement::kSlowFirst);
  EXPECT_EQ(*ParseMigrationSchedule("periodic"), MigrationSchedule::kPeriodic);
  auto bad = ParseMigrationSchedule("sometimes");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "schedule: unknown value 'sometimes' (valid: off, continuous, periodic)");
  EXPECT_EQ(ToString(TierPlacement::kFastFirst), "fast-first");
}

// The layout takes a half-life up to 1e9 s: 64 of them overflow Nanos, and
// the rebase check once multiplied (undefined behaviour; every touch then
// rebased). UBSan runs this test in the sanitizer configuration.
TEST(ExtentHeatTest, TheLongestHalfLifeNeitherOverflowsNorForgets) {
  const Nanos half_life = 1'000'000'000 * kSecond;
  ExtentHeat h(1, half_life);
  for (int i = 1; i <= 4; ++i) h.Touch(0, 1, 1.0f, i * 3600 * kSecond);
  EXPECT_NEAR(h.Heat(0, 4 * 3600 * kSecond), 4.0, 1e-4);
}

}  // namespace
}  // namespace tierlab
