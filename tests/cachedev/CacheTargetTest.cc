// Cache target: configuration errors, data correctness under every write mode
// and policy with tiny caches (constant eviction and destage), hit ratios.

#include <gtest/gtest.h>

#include <random>

#include "policies/PolicyRegistry.h"
#include "tests/cachedev/CacheTestUtil.h"
#include "tests/support/VerifyHarness.h"

namespace tierlab {
namespace {

using namespace cachetest;

TEST(CacheConfigTest, ValidateNamesTheField) {
  CacheConfig c;
  EXPECT_EQ(c.Validate(), "");
  c.line_size = 1000;
  EXPECT_EQ(c.Validate().rfind("line_size:", 0), 0u) << c.Validate();
  c = CacheConfig{};
  c.low_watermark = 60;
  EXPECT_EQ(c.Validate().rfind("low_watermark:", 0), 0u) << c.Validate();
  c = CacheConfig{};
  c.destage_concurrency = 0;
  EXPECT_EQ(c.Validate().rfind("destage_concurrency:", 0), 0u);
  EXPECT_EQ(ParseWriteMode("writeback"), WriteMode::kWriteBack);
  EXPECT_EQ(ParseWriteMode("off"), WriteMode::kPassthrough);
  EXPECT_EQ(ParseWriteMode("wi"), WriteMode::kWriteInvalidate);
  EXPECT_FALSE(ParseWriteMode("sometimes").has_value());
  EXPECT_FALSE(c.Describe().empty());
}

TEST(CacheConfigTest, CreateRejectsBadPolicyAndCapacity) {
  SimEngine e;
  auto make = [&](CacheConfig cfg) {
    std::vector<std::unique_ptr<BlockDevice>> caches;
    caches.push_back(std::make_unique<RamDevice>(e, "c", 1 * kMiB));
    return CacheTarget::Create(e, "x", std::make_unique<RamDevice>(e, "o", 8 * kMiB),
                               std::move(caches), cfg);
  };
  CacheConfig c;
  c.policy = "nosuch";
  auto r = make(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("policy: unknown \"nosuch\"; known: lru", 0), 0u)
      << r.error().message;
  c = CacheConfig{};
  c.promotion = "nosuch:3";
  r = make(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("promotion:", 0), 0u);
  c = CacheConfig{};
  c.line_size = 64 * kKiB;
  c.capacity_lines = 17;  // 1 MiB holds 16
  r = make(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("capacity_lines:", 0), 0u);
  c = CacheConfig{};
  c.destage_order = "random";
  r = make(c);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("destage_order:", 0), 0u);
  // Auto line size and default capacity: 1 MiB / 4 KiB.
  r = make(CacheConfig{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->line_size(), 4 * kKiB);
  EXPECT_EQ(r.value()->capacity_lines(), 256u);
}

std::vector<std::string> PoliciesUnderTest() {
  std::vector<std::string> out;
  for (const std::string& n : ReplacementPolicyNames()) {
    if (n == "lru" || n == "fifo" || n == "arc" || n == "s3fifo") out.push_back(n);
  }
  return out;
}

struct VerifyCase {
  WriteMode mode;
  std::uint64_t line_size;
  std::uint64_t lines;
  int ndev;
};

// Random mixed reads, writes, flushes and discards of random sizes at 512 B
// granularity, up to 16 in flight, compared with a reference image; then a
// full read-back. Tiny caches force eviction, throttling and destage on
// nearly every request.
TEST(CacheTargetTest, VerifyEveryModeAndPolicyWithTinyCaches) {
  const WriteMode modes[] = {WriteMode::kPassthrough, WriteMode::kWriteThrough,
                             WriteMode::kWriteBack,   WriteMode::kWriteAround,
                             WriteMode::kWriteOnly,   WriteMode::kWriteInvalidate};
  const VerifyCase shapes[] = {{WriteMode::kWriteBack, 4 * kKiB, 8, 1},
                               {WriteMode::kWriteBack, 16 * kKiB, 32, 2},
                               {WriteMode::kWriteBack, 4 * kKiB, 32, 3}};
  int seed = 0;
  for (WriteMode mode : modes) {
    for (const std::string& policy : PoliciesUnderTest()) {
      for (const VerifyCase& shape : shapes) {
        for (const char* order : {"fifo", "lba"}) {
          SCOPED_TRACE(std::string(ToString(mode)) + "/" + policy + "/" + order + " line " +
                       std::to_string(shape.line_size) + " x" + std::to_string(shape.lines) +
                       " devs " + std::to_string(shape.ndev));
          SimEngine e;
          CacheConfig cfg;
          cfg.write = mode;
          cfg.policy = policy;
          cfg.line_size = shape.line_size;
          cfg.destage_order = order;
          cfg.destage_concurrency = 3;
          cfg.destage_max_bytes = 4 * shape.line_size;
          cfg.with_data = true;
          auto c = MakeJitterCache(e, cfg, shape.lines, 4 * kMiB, shape.ndev, seed + 1);
          ASSERT_NE(c, nullptr);
          testing::VerifyOptions o;
          o.ops = 1500;
          o.seed = static_cast<std::uint64_t>(++seed);
          o.max_in_flight = 16;
          o.max_length = 48 * kKiB;
          o.align = 512;
          o.region = std::max(512 * kKiB, 4 * shape.lines * shape.line_size);  // lines churn
          auto r = testing::RunVerify(e, *c, o);
          EXPECT_TRUE(r.ok()) << r.first_problem << " | " << c->DebugString();
          EXPECT_GT(r.reads, 300u);
          EXPECT_GT(r.discards, 10u);
          const CacheStats s = c->cache_stats();
          if (KeepsDirtyLines(mode)) {
            EXPECT_GT(s.destage_ops, 0u);
            EXPECT_GT(s.write_absorbed, 0u);
          }
          if (mode != WriteMode::kPassthrough && mode != WriteMode::kWriteOnly) {
            EXPECT_GT(s.evictions, 0u);
            EXPECT_GT(s.read_hit_lines, 0u);
          }
          if (mode == WriteMode::kPassthrough) {
            EXPECT_EQ(s.clean_lines + s.dirty_lines, 0u);
          }
          EXPECT_EQ(c->in_flight(), 0u);
        }
      }
    }
  }
}

// Idle destage on a timer, concurrent drains, and the harness's flushes and
// discards: the data must still verify and a drain must leave nothing dirty.
TEST(CacheTargetTest, VerifyWriteBackWithIdleDestageAndDrains) {
  SimEngine e;
  CacheConfig cfg;
  cfg.write = WriteMode::kWriteBack;
  cfg.line_size = 8 * kKiB;
  cfg.idle_destage_age = 50 * kMicro;
  cfg.with_data = true;
  cfg.destage_bandwidth = 200 * kMiB;
  auto c = MakeJitterCache(e, cfg, 24, 2 * kMiB, 2, 5);
  ASSERT_NE(c, nullptr);
  int drains = 0, drains_done = 0;
  testing::VerifyOptions o;
  o.ops = 3000;
  o.seed = 99;
  o.max_in_flight = 12;
  o.max_length = 40 * kKiB;
  o.align = 512;
  o.region = 384 * kKiB;
  o.on_complete = [&](std::uint64_t n) {
    if (n % 500 == 0) {
      ++drains;
      c->Drain(nullptr, [&](Status st) {
        EXPECT_EQ(st, Status::kOk);
        ++drains_done;
      });
    }
  };
  auto r = testing::RunVerify(e, *c, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_EQ(drains, drains_done);
  EXPECT_GT(drains, 0);
  // Idle destage ran the remaining dirty lines down after the workload.
  EXPECT_EQ(c->cache_stats().dirty_lines, 0u);
}

TEST(CacheTargetTest, WorkingSetInsideCacheHitsAfterWarmup) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  auto c = MakeCache(e, cfg, 256, 64 * kMiB);
  std::mt19937_64 rng(5);
  const std::uint64_t ws_blocks = 200;  // < 256 lines
  for (std::uint64_t b = 0; b < ws_blocks; ++b) Io(e, *c, IoOp::kRead, b * 4096, 4096);
  const CacheStats warm = c->cache_stats();
  for (int i = 0; i < 5000; ++i) {
    IoRequest q;
    q.offset = (rng() % ws_blocks) * 4096;
    q.length = 4096;
    c->Submit(q, [](Status st) { EXPECT_EQ(st, Status::kOk); });
    if (i % 16 == 15) e.Run();
  }
  e.Run();
  const CacheStats s = c->cache_stats();
  EXPECT_EQ(s.read_miss_lines, warm.read_miss_lines);
  EXPECT_EQ(s.read_hit_lines - warm.read_hit_lines, 5000u);
  EXPECT_EQ(s.promotions, ws_blocks);
  EXPECT_EQ(c->origin().stats().read_ops, ws_blocks);
}

TEST(CacheTargetTest, UniformRandomOverTenTimesCacheHitsOneTenth) {
  for (const std::string& policy : PoliciesUnderTest()) {
    SimEngine e;
    CacheConfig cfg;
    cfg.line_size = 4 * kKiB;
    cfg.policy = policy;
    auto c = MakeCache(e, cfg, 1000, 64 * kMiB);
    std::mt19937_64 rng(11);
    const std::uint64_t blocks = 10000;
    CacheStats warm;
    for (int i = 0; i < 60000; ++i) {
      IoRequest q;
      q.offset = (rng() % blocks) * 4096;
      q.length = 4096;
      c->Submit(q, [](Status) {});
      if (i % 8 == 7) e.Run();
      if (i == 19999) {
        e.Run();
        warm = c->cache_stats();  // measure after warm-up
      }
    }
    e.Run();
    const CacheStats s = c->cache_stats();
    const double hits = static_cast<double>(s.read_hit_lines - warm.read_hit_lines);
    const double misses = static_cast<double>(s.read_miss_lines - warm.read_miss_lines);
    EXPECT_NEAR(hits / (hits + misses), 0.1, 0.02) << policy;
    EXPECT_EQ(s.clean_lines, 1000u) << policy;
  }
}

TEST(CacheTargetTest, PartialHitReadsSplitBetweenCacheAndOrigin) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.with_data = true;
  auto c = MakeCache(e, cfg, 64, 4 * kMiB);
  auto data = Pattern(64 * kKiB, 3);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kWrite, 0, data.size(), data.data()), Status::kOk);
  std::vector<std::byte> out(4 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 8 * kKiB, 4 * kKiB, out.data()), Status::kOk);  // line 2
  EXPECT_TRUE(c->IsResident(2));
  std::vector<std::byte> big(16 * kKiB);
  const auto before = c->cache_stats();
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 4 * kKiB + 512, 12 * kKiB, big.data()), Status::kOk);
  EXPECT_TRUE(std::equal(big.begin(), big.begin() + 12 * kKiB, data.begin() + 4 * kKiB + 512));
  const auto after = c->cache_stats();
  EXPECT_EQ(after.read_partial_hits, before.read_partial_hits + 1);
  EXPECT_EQ(after.read_hit_lines, before.read_hit_lines + 1);
  EXPECT_EQ(after.read_miss_lines, before.read_miss_lines + 3);
  EXPECT_TRUE(c->IsResident(1) && c->IsResident(3) && c->IsResident(4));
}

// Reads submitted in one burst are dispatched together on the next engine
// turn (lookup batching, in chunks of LineTable::kWarmBatch). A burst of 200
// hits spans several chunks, and every read returns its line. A write to a
// line submitted in the same burst runs beside the read of it (a read never
// waits for a write hit): that read returns the old or the new version, whole,
// and a read submitted after the write's acknowledgement the new one.
TEST(CacheTargetTest, ReadBurstSpanningLookupBatchesReturnsEveryLine) {
  SimEngine e;
  const CacheConfig cfg = DataCache(WriteMode::kWriteThrough);
  constexpr std::uint64_t kLines = 200;
  auto c = MakeCache(e, cfg, 256, 4 * kMiB);
  auto data = Pattern(kLines * 4 * kKiB, 7);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kWrite, 0, data.size(), data.data()), Status::kOk);
  std::vector<std::byte> warm(4 * kKiB);
  for (std::uint64_t l = 0; l < kLines; ++l) {
    ASSERT_EQ(Io(e, *c, IoOp::kRead, l * 4 * kKiB, warm.size(), warm.data()), Status::kOk);
  }
  ASSERT_EQ(c->cache_stats().clean_lines, kLines);

  const auto before = c->cache_stats();
  auto fresh = Pattern(4 * kKiB, 8);
  constexpr std::uint64_t kRewritten = 77;
  std::vector<std::vector<std::byte>> out(kLines, std::vector<std::byte>(4 * kKiB));
  std::vector<Status> st(kLines + 1, Status::kIoError);
  for (std::uint64_t l = 0; l < kLines; ++l) {
    IoRequest q;
    q.op = IoOp::kRead;
    q.offset = l * 4 * kKiB;
    q.length = 4 * kKiB;
    q.data = out[l].data();
    c->Submit(q, [&st, l](Status s) { st[l] = s; });
    if (l == kRewritten) {
      IoRequest w;
      w.op = IoOp::kWrite;
      w.offset = kRewritten * 4 * kKiB;
      w.length = 4 * kKiB;
      w.data = fresh.data();
      c->Submit(w, [&st](Status s) { st[kLines] = s; });
    }
  }
  e.Run();
  for (std::uint64_t l = 0; l <= kLines; ++l) ASSERT_EQ(st[l], Status::kOk) << l;
  for (std::uint64_t l = 0; l < kLines; ++l) {
    const bool old_version = std::equal(out[l].begin(), out[l].end(), data.begin() + l * 4 * kKiB);
    EXPECT_TRUE(old_version || (l == kRewritten && out[l] == fresh)) << l;
  }
  EXPECT_EQ(c->cache_stats().read_hit_lines - before.read_hit_lines, kLines);
  EXPECT_EQ(c->cache_stats().lock_waits, 0u);  // neither waited for the other
  std::vector<std::byte> again(4 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, kRewritten * 4 * kKiB, again.size(), again.data()), Status::kOk);
  EXPECT_EQ(again, fresh);
}

// Reads wait for the end of the callback that submitted them (lookup
// batching); a write hit submitted between them waits with them, so the
// cache device serves a mixed burst in the order it came. Dispatched at
// once, the writes went ahead of every read before them, and in a 70/30
// mix at RAM speed a read took half again as long as a write
// (docs/VALIDATION.md). RAM devices complete in the order they are given
// work, so the acknowledgements show the dispatch order.
TEST(CacheTargetTest, AMixedBurstIsDispatchedInTheOrderItCame) {
  SimEngine e;
  const CacheConfig cfg = DataCache(WriteMode::kWriteBack);
  constexpr std::uint64_t kLines = 40;
  auto c = MakeCache(e, cfg, 256, 4 * kMiB);
  auto data = Pattern(4 * kKiB, 3);
  for (std::uint64_t l = 0; l < kLines; ++l) {
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, l * 4 * kKiB, data.size(), data.data()), Status::kOk);
  }
  // Reads and writes in a pattern that is not periodic: write 3 of every 10.
  std::vector<std::vector<std::byte>> buf(kLines, std::vector<std::byte>(4 * kKiB));
  std::vector<std::uint64_t> acked;
  std::vector<std::uint64_t> writes;
  for (std::uint64_t l = 0; l < kLines; ++l) {
    IoRequest q;
    q.op = (l * 7 + 5) % 10 < 3 ? IoOp::kWrite : IoOp::kRead;
    if (q.op == IoOp::kWrite) writes.push_back(l);
    q.offset = l * 4 * kKiB;
    q.length = 4 * kKiB;
    q.data = buf[l].data();
    c->Submit(q, [&acked, l](Status s) {
      EXPECT_EQ(s, Status::kOk);
      acked.push_back(l);
    });
  }
  e.Run();
  ASSERT_EQ(acked.size(), kLines);
  ASSERT_FALSE(writes.empty());
  ASSERT_NE(writes.front(), 0u);  // a read first, so the writes had reads to overtake
  for (std::uint64_t l = 0; l < kLines; ++l) EXPECT_EQ(acked[l], l);
  EXPECT_EQ(c->cache_stats().lock_waits, 0u);

  // A burst of writes alone is dispatched at once, as it always was: the
  // first is with the cache device before Submit returns.
  const std::uint64_t cache_writes = c->cache_device(0).stats().write_ops;
  IoRequest w;
  w.op = IoOp::kWrite;
  w.length = 4 * kKiB;
  w.data = data.data();
  c->Submit(w, [](Status) {});
  EXPECT_EQ(c->cache_device(0).stats().write_ops, cache_writes + 1);
  e.Run();
}

TEST(CacheTargetTest, ReadCacheOffNeverPromotes) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.read = false;
  auto c = MakeCache(e, cfg, 64);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, 64 * kKiB), Status::kOk);
  EXPECT_EQ(c->cache_stats().promotions, 0u);
  EXPECT_EQ(c->cache_stats().read_hit_lines, 0u);
  EXPECT_EQ(c->origin().stats().read_ops, 3u);
}

TEST(CacheTargetTest, TimingOnlyModeMovesNoDataAndAllocatesNoOps) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.write = WriteMode::kWriteBack;
  auto c = MakeCache(e, cfg, 128, 16 * kMiB);
  EXPECT_FALSE(c->RequiresData());
  for (int i = 0; i < 1000; ++i) {
    IoRequest q;
    q.op = i % 3 == 0 ? IoOp::kWrite : IoOp::kRead;
    q.offset = (i * 7 % 100) * 4096;  // 100 blocks in 128 lines
    q.length = 4096;
    c->Submit(q, [](Status st) { EXPECT_EQ(st, Status::kOk); });
    if (i % 4 == 3) e.Run();
  }
  e.Run();
  const CacheStats s = c->cache_stats();
  EXPECT_GT(s.read_hit_lines, 0u);
  EXPECT_GT(s.destage_ops, 0u);
  EXPECT_LE(s.metadata_bytes_per_line, 40.0);  // tiny cache: fixed overheads dominate
}

TEST(CacheTargetTest, MetadataBytesPerLineAtScale) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::make_unique<RamDevice>(e, "c", 4096ull * 4 * kKiB * 256));  // 1M lines
  auto r = CacheTarget::Create(e, "x", std::make_unique<RamDevice>(e, "o", 64ull << 30),
                               std::move(caches), cfg);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const double b = r.value()->cache_stats().metadata_bytes_per_line;
  // Line table 8 B/slot + 2 B of bucket heads, plus the policy (LRU 5.25 at
  // 1 Mi lines: two packed 21-bit links).
  EXPECT_LE(b, 16.0);
  EXPECT_GE(b, 9.0);
}

}  // namespace
}  // namespace tierlab
