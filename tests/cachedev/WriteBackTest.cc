// Write-back behaviour and the coherence rules of the other write modes:
// watermarks, throttling, drain, destage vs rewrite, discard, idle destage,
// the bandwidth cap, flush, and cache-device failure.

#include <gtest/gtest.h>

#include "tests/cachedev/CacheTestUtil.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

using namespace cachetest;

CacheConfig WriteBack(std::uint64_t line = 4 * kKiB) {
  CacheConfig c;
  c.write = WriteMode::kWriteBack;
  c.line_size = line;
  c.with_data = true;
  return c;
}

// A cache target over a fixed-latency origin (and RAM or given cache devices).
std::unique_ptr<CacheTarget> MakeSlowOrigin(Engine& e, CacheConfig cfg, std::uint64_t lines,
                                            Nanos origin_latency,
                                            std::unique_ptr<BlockDevice> cache_dev = nullptr) {
  std::vector<std::unique_ptr<BlockDevice>> caches;
  if (cache_dev == nullptr) {
    cache_dev = std::make_unique<RamDevice>(e, "c", lines * cfg.line_size);
  }
  caches.push_back(std::move(cache_dev));
  cfg.capacity_lines = lines;
  auto r = CacheTarget::Create(
      e, "cache", std::make_unique<FixedLatencyDevice>(e, "origin", 16 * kMiB, origin_latency),
      std::move(caches), cfg);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return std::move(r).value();
}

TEST(WriteBackTest, AbsorbsUntilHighWatermarkThenDestagesToLow) {
  SimEngine e;
  auto c = MakeCache(e, WriteBack(), 100, 16 * kMiB);
  auto data = Pattern(4 * kKiB, 1);
  for (int i = 0; i < 49; ++i) {
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, i * 4 * kKiB, 4 * kKiB, data.data()), Status::kOk);
  }
  CacheStats s = c->cache_stats();
  EXPECT_EQ(s.dirty_lines, 49u);
  EXPECT_EQ(s.destage_ops, 0u);
  EXPECT_EQ(c->origin().stats().write_ops, 0u);
  EXPECT_EQ(s.write_absorbed, 49u);
  // The 50th dirty line reaches the high watermark (50%): destage runs down
  // to the low watermark (45%) and stops.
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 49 * 4 * kKiB, 4 * kKiB, data.data()), Status::kOk);
  s = c->cache_stats();
  EXPECT_EQ(s.dirty_lines, 45u);
  EXPECT_GE(s.destage_ops, 1u);  // five adjacent lines: one coalesced write
  EXPECT_EQ(s.destaged_bytes, (50 - s.dirty_lines) * 4 * kKiB);
  EXPECT_GT(c->origin().stats().flush_ops, 0u);  // destage flushes before marking clean
}

TEST(WriteBackTest, FullCacheThrottlesWritesAndNoneFail) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.high_watermark = 100;
  cfg.low_watermark = 90;
  auto c = MakeSlowOrigin(e, cfg, 16, 200 * kMicro);
  auto data = Pattern(4 * kKiB, 2);
  int ok = 0;
  for (int i = 0; i < 64; ++i) {
    IoRequest q;
    q.op = IoOp::kWrite;
    q.offset = i * 4 * kKiB;
    q.length = 4 * kKiB;
    q.data = data.data();
    c->Submit(q, [&](Status st) { ok += st == Status::kOk; });
  }
  e.Run();
  EXPECT_EQ(ok, 64);
  const CacheStats s = c->cache_stats();
  EXPECT_GT(s.write_throttled, 0u);
  EXPECT_GT(s.throttled_ns, 0);
  EXPECT_GE(s.destaged_bytes, (64u - 16u) * 4 * kKiB);
  EXPECT_EQ(s.write_bypassed, 0u);  // waited, never wrote around
  // Everything readable and correct.
  std::vector<std::byte> out(4 * kKiB);
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(Io(e, *c, IoOp::kRead, i * 4 * kKiB, 4 * kKiB, out.data()), Status::kOk);
    EXPECT_EQ(out, data) << i;
  }
}

TEST(WriteBackTest, DrainLeavesNothingDirtyAndOriginHoldsTheData) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_order = "lba";
  cfg.destage_max_bytes = 64 * kKiB;
  cfg.high_watermark = 90;
  auto c = MakeSlowOrigin(e, cfg, 64, 50 * kMicro);
  auto data = Pattern(128 * kKiB, 3);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, 128 * kKiB, data.data()), Status::kOk);  // 32 lines
  EXPECT_EQ(c->cache_stats().dirty_lines, 32u);
  std::vector<std::uint64_t> progress;
  Status drained = Status::kShutdown;
  c->Drain([&](std::uint64_t left) { progress.push_back(left); }, [&](Status st) { drained = st; });
  e.Run();
  EXPECT_EQ(drained, Status::kOk);
  EXPECT_EQ(c->cache_stats().dirty_lines, 0u);
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back(), 0u);
  EXPECT_TRUE(std::is_sorted(progress.rbegin(), progress.rend()));
  // lba order coalesced adjacent lines into 64 KiB origin writes.
  EXPECT_EQ(c->cache_stats().AverageDestageBytes(), 64.0 * kKiB);
  std::vector<std::byte> out(128 * kKiB);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, data);
}

TEST(WriteBackTest, RewriteDuringDestageIsNotLost) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  auto c = MakeSlowOrigin(e, cfg, 8, 500 * kMicro);
  auto v1 = Pattern(4 * kKiB, 10);
  auto v2 = Pattern(4 * kKiB, 11);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, 4 * kKiB, v1.data()), Status::kOk);
  Status drained = Status::kShutdown;
  c->Drain(nullptr, [&](Status st) { drained = st; });
  // Destage of v1 is in flight (the origin takes 500 us); rewrite now.
  e.RunUntil(e.Now() + 100 * kMicro);
  EXPECT_EQ(drained, Status::kShutdown);
  Status wrote = Status::kShutdown;
  IoRequest q;
  q.op = IoOp::kWrite;
  q.length = 4 * kKiB;
  q.data = v2.data();
  Nanos wrote_at = 0;
  c->Submit(q, [&](Status st) {
    wrote = st;
    wrote_at = e.Now();
  });
  // The write does not wait for the destage (the origin write still has
  // 400 us to go): it is acknowledged at cache-device speed, the line stays
  // dirty and the destage of v1 does not mark it clean.
  e.RunUntil(e.Now() + 200 * kMicro);
  EXPECT_EQ(wrote, Status::kOk);
  EXPECT_LT(wrote_at, e.Now() - 100 * kMicro);
  EXPECT_EQ(drained, Status::kShutdown);
  EXPECT_TRUE(c->IsDirty(0));
  std::vector<std::byte> out(4 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v2);
  // The drain destages the line again, now with v2.
  e.Run();
  EXPECT_EQ(drained, Status::kOk);
  EXPECT_FALSE(c->IsDirty(0));
  EXPECT_EQ(c->cache_stats().destage_rewritten, 1u);
  EXPECT_EQ(c->cache_stats().destage_ops, 2u);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v2);
}

TEST(WriteBackTest, DiscardDropsDirtyLinesAndTheyAreNeverDestaged) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.high_watermark = 100;
  auto c = MakeCache(e, cfg, 32, 4 * kMiB);
  auto data = Pattern(64 * kKiB, 4);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, 64 * kKiB, data.data()), Status::kOk);
  EXPECT_EQ(c->cache_stats().dirty_lines, 16u);
  ASSERT_EQ(Io(e, *c, IoOp::kDiscard, 16 * kKiB, 32 * kKiB), Status::kOk);
  EXPECT_FALSE(c->IsResident(4));
  EXPECT_FALSE(c->IsResident(11));
  EXPECT_TRUE(c->IsDirty(3));
  EXPECT_TRUE(c->IsDirty(12));
  EXPECT_EQ(c->cache_stats().dirty_lines, 8u);
  Status drained = Status::kShutdown;
  c->Drain(nullptr, [&](Status st) { drained = st; });
  e.Run();
  EXPECT_EQ(drained, Status::kOk);
  EXPECT_EQ(c->cache_stats().destaged_bytes, 8 * 4 * kKiB);
  std::vector<std::byte> out(32 * kKiB);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kRead, 16 * kKiB, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, std::vector<std::byte>(32 * kKiB));  // never written to the origin
}

TEST(WriteBackTest, PartialLineWriteMissIsReadFilled) {
  SimEngine e;
  auto c = MakeCache(e, WriteBack(16 * kKiB), 8, 4 * kMiB);
  auto base = Pattern(16 * kKiB, 5);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kWrite, 0, base.size(), base.data()), Status::kOk);
  auto patch = Pattern(1024, 6);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 3072, patch.size(), patch.data()), Status::kOk);
  EXPECT_TRUE(c->IsDirty(0));
  EXPECT_EQ(c->cache_stats().write_fills, 1u);
  std::vector<std::byte> out(16 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  std::copy(patch.begin(), patch.end(), base.begin() + 3072);
  EXPECT_EQ(out, base);
}

TEST(WriteBackTest, IdleDestageCleansOldLines) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.idle_destage_age = 5 * kMilli;
  cfg.idle_quiet = 1 * kMilli;
  auto c = MakeCache(e, cfg, 64, 4 * kMiB);
  auto data = Pattern(16 * kKiB, 7);
  IoRequest q;
  q.op = IoOp::kWrite;
  q.length = data.size();
  q.data = data.data();
  c->Submit(q, [](Status st) { EXPECT_EQ(st, Status::kOk); });
  e.RunUntil(4 * kMilli);
  EXPECT_EQ(c->cache_stats().dirty_lines, 4u);
  EXPECT_EQ(c->cache_stats().destage_ops, 0u);
  e.Run();  // the idle timer fires at dirty time + 5 ms
  EXPECT_EQ(c->cache_stats().dirty_lines, 0u);
  EXPECT_GE(e.Now(), 5 * kMilli);
}

TEST(WriteBackTest, BandwidthCapPacesDestage) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_bandwidth = 10 * kMiB;  // bytes per second
  cfg.destage_max_bytes = 64 * kKiB;
  auto c = MakeCache(e, cfg, 512, 16 * kMiB);
  auto data = Pattern(1 * kMiB, 8);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, data.size(), data.data()), Status::kOk);
  const Nanos start = e.Now();
  c->Drain(nullptr, [](Status) {});
  e.Run();
  // 1 MiB at 10 MiB/s, with one 64 KiB burst up front: ~94 ms.
  const Nanos took = e.Now() - start;
  EXPECT_GE(took, 90 * kMilli);
  EXPECT_LE(took, 110 * kMilli);
}

TEST(WriteBackTest, FlushFlushesCacheDevicesNotTheOrigin) {
  SimEngine e;
  auto c = MakeCache(e, WriteBack(), 32, 4 * kMiB);
  auto data = Pattern(8 * kKiB, 9);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, data.size(), data.data()), Status::kOk);
  ASSERT_EQ(Io(e, *c, IoOp::kFlush, 0, 0), Status::kOk);
  EXPECT_EQ(c->cache_device(0).stats().flush_ops, 1u);
  EXPECT_EQ(c->origin().stats().flush_ops, 0u);
  EXPECT_EQ(c->origin().stats().write_ops, 0u);
  // A discard reached the origin: the next flush makes it durable there
  // (the dropped dirty line must not come back as the origin's older data).
  ASSERT_EQ(Io(e, *c, IoOp::kDiscard, 0, 4 * kKiB), Status::kOk);
  ASSERT_EQ(Io(e, *c, IoOp::kFlush, 0, 0), Status::kOk);
  EXPECT_EQ(c->origin().stats().flush_ops, 1u);
  ASSERT_EQ(Io(e, *c, IoOp::kFlush, 0, 0), Status::kOk);
  EXPECT_EQ(c->origin().stats().flush_ops, 1u);  // once
  // Write-through flushes the origin too.
  SimEngine e2;
  CacheConfig wt;
  wt.line_size = 4 * kKiB;
  wt.with_data = true;
  auto t = MakeCache(e2, wt, 32, 4 * kMiB);
  ASSERT_EQ(Io(e2, *t, IoOp::kWrite, 0, data.size(), data.data()), Status::kOk);
  ASSERT_EQ(Io(e2, *t, IoOp::kFlush, 0, 0), Status::kOk);
  EXPECT_EQ(t->origin().stats().flush_ops, 1u);
}

TEST(WriteModesTest, WriteInvalidateAndWriteAroundNeverLeaveStaleLines) {
  for (WriteMode mode : {WriteMode::kWriteInvalidate, WriteMode::kWriteAround,
                         WriteMode::kPassthrough, WriteMode::kWriteThrough}) {
    SCOPED_TRACE(std::string(ToString(mode)));
    SimEngine e;
    CacheConfig cfg;
    cfg.write = mode;
    cfg.line_size = 4 * kKiB;
    cfg.with_data = true;
    cfg.read = true;
    auto c = MakeCache(e, cfg, 32, 4 * kMiB);
    auto v1 = Pattern(8 * kKiB, 20);
    auto v2 = Pattern(8 * kKiB, 21);
    ASSERT_EQ(Io(e, c->origin(), IoOp::kWrite, 0, v1.size(), v1.data()), Status::kOk);
    std::vector<std::byte> out(8 * kKiB);
    ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, 4 * kKiB, out.data()), Status::kOk);  // line 0 cached
    const bool promoted = mode != WriteMode::kPassthrough;
    EXPECT_EQ(c->IsResident(0), promoted);
    // Lines 0 (resident) and 1 (not): a partial hit for write-around.
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v2.size(), v2.data()), Status::kOk);
    if (mode == WriteMode::kWriteThrough) {
      EXPECT_TRUE(c->IsResident(0));
      EXPECT_TRUE(c->IsResident(1));  // whole-line write miss admitted
    } else {
      EXPECT_FALSE(c->IsResident(0));  // invalidated (a partial hit for write-around)
      EXPECT_FALSE(c->IsResident(1));
    }
    ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
    EXPECT_EQ(out, v2);
    ASSERT_EQ(Io(e, c->origin(), IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
    EXPECT_EQ(out, v2);
    EXPECT_EQ(c->cache_stats().dirty_lines, 0u);
  }
}

TEST(WriteModesTest, WriteAroundUpdatesFullHitsInPlace) {
  SimEngine e;
  CacheConfig cfg;
  cfg.write = WriteMode::kWriteAround;
  cfg.line_size = 4 * kKiB;
  cfg.with_data = true;
  auto c = MakeCache(e, cfg, 32, 4 * kMiB);
  std::vector<std::byte> out(4 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  auto v = Pattern(4 * kKiB, 22);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v.size(), v.data()), Status::kOk);
  EXPECT_TRUE(c->IsResident(0));  // a full hit is written through, not invalidated
  const auto hits = c->cache_stats().read_hit_lines;
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v);
  EXPECT_EQ(c->cache_stats().read_hit_lines, hits + 1);
  // Write-invalidate drops it instead.
  SimEngine e2;
  cfg.write = WriteMode::kWriteInvalidate;
  auto w = MakeCache(e2, cfg, 32, 4 * kMiB);
  ASSERT_EQ(Io(e2, *w, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  ASSERT_EQ(Io(e2, *w, IoOp::kWrite, 0, v.size(), v.data()), Status::kOk);
  EXPECT_FALSE(w->IsResident(0));
}

TEST(WriteModesTest, WriteOnlyAbsorbsWritesButNeverPromotesReads) {
  SimEngine e;
  CacheConfig cfg;
  cfg.write = WriteMode::kWriteOnly;
  cfg.line_size = 4 * kKiB;
  cfg.with_data = true;
  auto c = MakeCache(e, cfg, 32, 4 * kMiB);
  std::vector<std::byte> out(4 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_FALSE(c->IsResident(0));
  auto v = Pattern(4 * kKiB, 23);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 8 * kKiB, v.size(), v.data()), Status::kOk);
  EXPECT_TRUE(c->IsDirty(2));
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 8 * kKiB, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v);
  EXPECT_EQ(c->cache_stats().read_hit_lines, 1u);  // served from the write cache
}

// Cache device failure: write-through keeps serving from the origin;
// write-back fails reads of dirty lines (never returns stale data) and serves
// clean lines from the origin.
TEST(CacheFailureTest, WriteThroughServesFromOriginWhenCacheDies) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.with_data = true;
  auto fault =
      std::make_unique<FaultTarget>(e, "fc", std::make_unique<RamDevice>(e, "c", 32 * 4 * kKiB));
  FaultTarget* f = fault.get();
  auto c = MakeSlowOrigin(e, cfg, 32, 10 * kMicro, std::move(fault));
  auto v = Pattern(32 * kKiB, 30);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v.size(), v.data()), Status::kOk);
  std::vector<std::byte> out(32 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_TRUE(c->IsResident(3));
  f->FailAll(true);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v);
  EXPECT_FALSE(c->IsResident(3));  // dropped after the error
  EXPECT_GT(c->cache_stats().cache_read_errors, 0u);
  auto v2 = Pattern(32 * kKiB, 31);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v2.size(), v2.data()), Status::kOk);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 0, out.size(), out.data()), Status::kOk);
  EXPECT_EQ(out, v2);
}

TEST(CacheFailureTest, WriteBackFailsDirtyReadsAndNeverReturnsStaleData) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  auto fault =
      std::make_unique<FaultTarget>(e, "fc", std::make_unique<RamDevice>(e, "c", 64 * 4 * kKiB));
  FaultTarget* f = fault.get();
  auto c = MakeSlowOrigin(e, cfg, 64, 10 * kMicro, std::move(fault));
  auto old_data = Pattern(16 * kKiB, 40);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kWrite, 0, old_data.size(), old_data.data()), Status::kOk);
  std::vector<std::byte> out(16 * kKiB);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 8 * kKiB, 8 * kKiB, out.data()), Status::kOk);  // clean 2,3
  auto v = Pattern(8 * kKiB, 41);
  ASSERT_EQ(Io(e, *c, IoOp::kWrite, 0, v.size(), v.data()), Status::kOk);  // dirty 0,1
  f->FailAll(true);
  EXPECT_EQ(Io(e, *c, IoOp::kRead, 0, 8 * kKiB, out.data()), Status::kIoError);
  EXPECT_EQ(Io(e, *c, IoOp::kRead, 0, 16 * kKiB, out.data()), Status::kIoError);
  ASSERT_EQ(Io(e, *c, IoOp::kRead, 8 * kKiB, 8 * kKiB, out.data()), Status::kOk);
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 8 * kKiB, old_data.begin() + 8 * kKiB));
  // A drain cannot read the dirty lines back: it reports the error and ends.
  Status drained = Status::kShutdown;
  c->Drain(nullptr, [&](Status st) { drained = st; });
  e.Run();
  EXPECT_EQ(drained, Status::kIoError);
  EXPECT_TRUE(c->IsDirty(0));
  // New writes to other lines cannot use the cache; they reach the origin.
  auto w = Pattern(4 * kKiB, 42);
  EXPECT_EQ(Io(e, *c, IoOp::kWrite, 40 * kKiB, w.size(), w.data()), Status::kOk);
  std::vector<std::byte> o(4 * kKiB);
  ASSERT_EQ(Io(e, c->origin(), IoOp::kRead, 40 * kKiB, o.size(), o.data()), Status::kOk);
  EXPECT_EQ(o, w);
}

}  // namespace
}  // namespace tierlab
