// RAM block cache: hits and misses, coherence with writes and discards (data
// verification), and the modelled cost that makes it slower than no cache in
// front of a fast device when the working set is far larger than the RAM.

#include <gtest/gtest.h>

#include <random>

#include "cachedev/BlockCache.h"
#include "tests/cachedev/CacheTestUtil.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/RealEngine.h"

namespace tierlab {
namespace {

using namespace cachetest;

std::unique_ptr<BlockCache> Make(Engine& e, BlockCacheConfig cfg,
                                 std::unique_ptr<BlockDevice> dev) {
  auto r = BlockCache::Create(e, "bc", std::move(dev), cfg);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

TEST(BlockCacheTest, ConfigErrorsNameTheField) {
  BlockCacheConfig c;
  EXPECT_EQ(c.Validate(), "");
  c.locks = 0;
  EXPECT_EQ(c.Validate().rfind("locks:", 0), 0u);
  c = BlockCacheConfig{};
  c.line_size = 3000;
  EXPECT_EQ(c.Validate().rfind("line_size:", 0), 0u);
  SimEngine e;
  c = BlockCacheConfig{};
  c.policy = "nope";
  auto r = BlockCache::Create(e, "bc", std::make_unique<RamDevice>(e, "r", kMiB), c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("policy:", 0), 0u);
}

TEST(BlockCacheTest, HitsMissesAndWriteCoherence) {
  SimEngine e;
  BlockCacheConfig cfg;
  cfg.size = 64 * kKiB;
  cfg.with_data = true;
  auto c = Make(e, cfg, std::make_unique<RamDevice>(e, "r", 4 * kMiB));
  auto v1 = Pattern(8 * kKiB, 1);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v1.size(), v1.data()), Status::kOk);
  EXPECT_FALSE(c->IsResident(0));  // write misses are not inserted
  std::vector<std::byte> out(8 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v1);
  EXPECT_TRUE(c->IsResident(0) && c->IsResident(1));
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v1);
  EXPECT_EQ(c->cache_stats().read_hits, 1u);
  EXPECT_EQ(c->Children()[0]->stats().read_ops, 1u);
  // A whole-line write updates the cached copy; a partial one drops it.
  auto v2 = Pattern(4 * kKiB, 2);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v2.size(), v2.data()), Status::kOk);
  EXPECT_TRUE(c->IsResident(0));
  auto p = Pattern(512, 3);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 4 * kKiB + 512, p.size(), p.data()), Status::kOk);
  EXPECT_FALSE(c->IsResident(1));
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  std::copy(v2.begin(), v2.end(), v1.begin());
  std::copy(p.begin(), p.end(), v1.begin() + 4 * kKiB + 512);
  EXPECT_EQ(out, v1);
  ASSERT_EQ(Io(e, *c, IoOp::kDiscard, 0, 4 * kKiB), Status::kOk);
  EXPECT_FALSE(c->IsResident(0));
}

TEST(BlockCacheTest, VerifyDataWithConcurrentMixedIo) {
  for (const char* policy : {"lru", "fifo"}) {
    SimEngine e;
    BlockCacheConfig cfg;
    cfg.size = 48 * kKiB;
    cfg.with_data = true;
    cfg.policy = policy;
    cfg.locks = 2;
    auto c = Make(e, cfg, std::make_unique<JitterDevice>(e, "j", 4 * kMiB, 3));
    testing::VerifyOptions o;
    o.ops = 4000;
    o.seed = 17;
    o.max_in_flight = 16;
    o.max_length = 32 * kKiB;
    o.align = 512;
    o.region = 256 * kKiB;
    auto r = testing::RunVerify(e, *c, o);
    EXPECT_TRUE(r.ok()) << policy << ": " << r.first_problem;
    EXPECT_GT(c->cache_stats().hit_lines, 100u);
    EXPECT_GT(c->cache_stats().evictions, 0u);
  }
}

// Mean latency of `n` random 4 KiB reads at queue depth `qd` over `blocks`.
Nanos MeanReadLatency(SimEngine& e, BlockDevice& d, std::uint64_t blocks, int n, int qd) {
  std::mt19937_64 rng(9);
  Nanos total = 0;
  int issued = 0, completed = 0;
  std::function<void()> issue = [&] {
    if (issued == n) return;
    ++issued;
    IoRequest q;
    q.offset = (rng() % blocks) * 4096;
    q.length = 4096;
    const Nanos start = e.Now();
    d.Submit(q, [&, start](Status st) {
      EXPECT_EQ(st, Status::kOk);
      total += e.Now() - start;
      ++completed;
      issue();
    });
  };
  for (int i = 0; i < qd; ++i) issue();
  e.Run();
  EXPECT_EQ(completed, n);
  return total / n;
}

TEST(BlockCacheTest, SlowerThanNoCacheInFrontOfFastFlashWhenWorkingSetIsHuge) {
  const std::uint64_t blocks = (1ull << 30) / 4096;  // 1 GiB working set
  SimEngine e1;
  FixedLatencyDevice bare(e1, "nvme", 1ull << 30, 10 * kMicro);
  const Nanos without = MeanReadLatency(e1, bare, blocks, 20000, 32);

  SimEngine e2;
  BlockCacheConfig cfg;
  cfg.size = 16 * kMiB;  // 1.6% of the working set
  cfg.locks = 1;
  auto c = Make(e2, cfg, std::make_unique<FixedLatencyDevice>(e2, "nvme", 1ull << 30, 10 * kMicro));
  const Nanos with = MeanReadLatency(e2, *c, blocks, 20000, 32);
  EXPECT_LT(c->cache_stats().HitRatio(), 0.05);
  EXPECT_GT(with, without + without / 5) << "with " << with << " ns, without " << without << " ns";
  EXPECT_GT(c->cache_stats().lock_wait_ns, 0);

  // A working set that fits: the cache wins.
  SimEngine e3;
  auto small =
      Make(e3, cfg, std::make_unique<FixedLatencyDevice>(e3, "nvme", 1ull << 30, 10 * kMicro));
  const std::uint64_t fits = 2 * kMiB / 4096;
  MeanReadLatency(e3, *small, fits, 2000, 8);  // warm up
  const Nanos hot = MeanReadLatency(e3, *small, fits, 20000, 8);
  EXPECT_LT(hot, without / 2);
}

TEST(BlockCacheTest, CostIsChargedInSimulationOnly) {
  BlockCacheConfig cfg;
  cfg.lookup_ns = 1000;
  {
    SimEngine e;
    auto c = Make(e, cfg, std::make_unique<RamDevice>(e, "r", kMiB));
    ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, 4096), Status::kOk);
    EXPECT_GE(e.Now(), 1000);
    EXPECT_EQ(c->cache_stats().cpu_ns, 1000 + cfg.insert_ns);
  }
  {
    RealEngine e;
    auto c = Make(e, cfg, std::make_unique<RamDevice>(e, "r", kMiB));
    Status got = Status::kShutdown;
    IoRequest q;
    q.length = 4096;
    c->Submit(q, [&](Status st) { got = st; });
    e.Run();
    EXPECT_EQ(got, Status::kOk);
    EXPECT_EQ(c->cache_stats().cpu_ns, 0);
    EXPECT_EQ(c->cache_stats().inserts, 1u);
  }
}

}  // namespace
}  // namespace tierlab
