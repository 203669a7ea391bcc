// Throttles of the cache target: the promotion budget (a cache device slower
// than the origin must not slow reads down), and the write-back throttle
// (waiting writes admitted in arrival order, their wait counted once, space
// that destage cleans usable at once).

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

#include "policies/ReplacementPolicy.h"
#include "tests/cachedev/CacheTestUtil.h"

namespace tierlab {
namespace {

using namespace cachetest;

// One service unit, FIFO: each request takes `service` after the previous
// one, so a queue in front of it delays everything behind (a busy SATA SSD).
// Counts the writes it holds at once (the promotion fills of a read-only run).
class SerialDevice final : public BlockDevice {
 public:
  SerialDevice(Engine& e, std::string name, std::uint64_t size, Nanos service)
      : BlockDevice(e, std::move(name)), size_(size), service_(service) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "serial"; }
  std::uint32_t max_writes_in_flight() const { return max_writes_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    free_at_ = std::max(engine().Now(), free_at_) + service_;
    const bool write = req.op == IoOp::kWrite;
    if (write) max_writes_ = std::max(max_writes_, ++writes_);
    engine().ScheduleAt(free_at_, [this, write, done = std::move(done)]() mutable {
      if (write) --writes_;
      Finish(done, Status::kOk);
    });
  }

 private:
  std::uint64_t size_;
  Nanos service_;
  Nanos free_at_ = 0;
  std::uint32_t writes_ = 0;
  std::uint32_t max_writes_ = 0;
};

// Keeps `qd` 4 KiB reads in flight until `until`, half of them over a hot
// set of kHot lines (it fits the cache), half over kCold other lines; returns
// how many completed by then.
constexpr std::uint64_t kHot = 512;
constexpr std::uint64_t kCold = 100000;
std::uint64_t ClosedLoopReads(SimEngine& e, BlockDevice& d, int qd, Nanos until) {
  std::mt19937_64 rng(7);
  std::uint64_t completed = 0;
  std::function<void()> issue = [&] {
    IoRequest q;
    q.op = IoOp::kRead;
    const std::uint64_t line = rng() % 2 == 0 ? rng() % kHot : kHot + rng() % kCold;
    q.offset = line * 4 * kKiB;
    q.length = 4 * kKiB;
    d.Submit(q, [&](Status st) {
      EXPECT_EQ(st, Status::kOk);
      if (e.Now() > until) return;
      ++completed;
      issue();
    });
  };
  for (int i = 0; i < qd; ++i) issue();
  e.Run();
  return completed;
}

struct SlowCacheRun {
  std::uint64_t reads = 0;
  std::uint32_t max_fill_writes = 0;
  CacheStats stats;
};

// The origin: 100 us per read, unlimited parallelism (320k IOPS at QD32).
// The cache device: one unit at 5 us per request (200k IOPS): quick, but with
// less throughput than the origin, so every read miss asking for a promotion
// (half the reads) would saturate it.
constexpr Nanos kOriginLatency = 100 * kMicro;
constexpr Nanos kCacheService = 5 * kMicro;
constexpr std::uint64_t kCacheLines = 1024;

SlowCacheRun RunSlowCache(std::uint32_t budget) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4 * kKiB;
  cfg.capacity_lines = kCacheLines;
  cfg.promotion_concurrency = budget;
  auto dev = std::make_unique<SerialDevice>(e, "ssd", kCacheLines * 4 * kKiB, kCacheService);
  SerialDevice* serial = dev.get();
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::move(dev));
  auto r = CacheTarget::Create(
      e, "cache",
      std::make_unique<FixedLatencyDevice>(e, "origin", (kHot + kCold) * 4 * kKiB, kOriginLatency),
      std::move(caches), cfg);
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return {};
  CacheTarget& c = **r;
  SlowCacheRun out;
  out.reads = ClosedLoopReads(e, c, 32, 50 * kMilli);
  out.max_fill_writes = serial->max_writes_in_flight();
  out.stats = c.cache_stats();
  EXPECT_EQ(c.promotions_in_flight(), 0u);
  return out;
}

TEST(PromotionThrottleTest, SlowCacheDeviceDoesNotSlowReadsBelowTheOrigin) {
  // The origin alone, same workload.
  SimEngine e;
  FixedLatencyDevice origin(e, "origin", (kHot + kCold) * 4 * kKiB, kOriginLatency);
  const std::uint64_t alone = ClosedLoopReads(e, origin, 32, 50 * kMilli);
  ASSERT_GT(alone, 10000u);

  constexpr std::uint32_t kBudget = 8;
  const SlowCacheRun capped = RunSlowCache(kBudget);
  // Fills never exceed the budget, promotions beyond it are skipped, and
  // reads are no slower than from the origin alone (within 5%): a hit waits
  // behind at most 8 fills.
  EXPECT_LE(capped.max_fill_writes, kBudget);
  EXPECT_GT(capped.stats.promotions, kHot / 2);
  EXPECT_GT(capped.stats.promotions_skipped, 0u);
  EXPECT_GE(static_cast<double>(capped.reads), 0.95 * static_cast<double>(alone));

  // Without a budget the fills of the cold misses queue on the device (up to
  // every slot the hot set leaves) and the hot hits wait behind them: the
  // case the budget exists for.
  const SlowCacheRun unlimited = RunSlowCache(0);
  EXPECT_EQ(unlimited.stats.promotions_skipped, 0u);
  EXPECT_GT(unlimited.max_fill_writes, 8 * kBudget);
  EXPECT_LT(static_cast<double>(unlimited.reads), 0.8 * static_cast<double>(alone));
  RecordProperty("reads_origin_alone", std::to_string(alone));
  RecordProperty("reads_budget_8", std::to_string(capped.reads));
  RecordProperty("reads_unlimited", std::to_string(unlimited.reads));
  RecordProperty("max_fills_unlimited", std::to_string(unlimited.max_fill_writes));
}

CacheConfig WriteBack() {
  CacheConfig c;
  c.write = WriteMode::kWriteBack;
  c.line_size = 4 * kKiB;
  c.with_data = true;
  c.high_watermark = 100;
  c.low_watermark = 90;
  return c;
}

// RAM cache device (no latency, so a write's latency is its throttle wait)
// over a fixed-latency origin.
std::unique_ptr<CacheTarget> MakeCacheOverSlowOrigin(Engine& e, CacheConfig cfg,
                                                     std::uint64_t lines, Nanos origin_latency) {
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::make_unique<RamDevice>(e, "c", lines * cfg.line_size));
  cfg.capacity_lines = lines;
  auto r = CacheTarget::Create(
      e, "cache", std::make_unique<FixedLatencyDevice>(e, "origin", 64 * kMiB, origin_latency),
      std::move(caches), cfg);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : nullptr;
}

// Submits a 4 KiB-aligned write at the current time; `*done_at` gets its
// completion time.
void SubmitWrite(CacheTarget& c, std::uint64_t offset, std::uint64_t length, std::byte* data,
                 Nanos* done_at) {
  IoRequest q;
  q.op = IoOp::kWrite;
  q.offset = offset;
  q.length = length;
  q.data = data;
  Engine* e = &c.engine();
  c.Submit(q, [e, done_at](Status st) {
    EXPECT_EQ(st, Status::kOk);
    *done_at = e->Now();
  });
}

TEST(WriteThrottleTest, EachWaitCountedOnceAndWritersAdmittedInOrder) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_concurrency = 1;
  cfg.destage_max_bytes = 4 * kKiB;  // one line per destage: many wake-ups
  cfg.destage_order = "fifo";
  auto c = MakeCacheOverSlowOrigin(e, cfg, 16, 100 * kMicro);
  ASSERT_NE(c, nullptr);
  auto data = Pattern(4 * kKiB, 1);
  constexpr int kWrites = 48;
  std::vector<Nanos> done(kWrites, -1);
  for (int i = 0; i < kWrites; ++i) {
    SubmitWrite(*c, i * 4 * kKiB, 4 * kKiB, data.data(), &done[i]);  // all at t = 0
  }
  e.Run();
  const CacheStats s = c->cache_stats();
  std::uint64_t throttled = 0;
  Nanos sum = 0;
  for (int i = 0; i < kWrites; ++i) {
    ASSERT_GE(done[i], 0) << i;
    throttled += done[i] > 0;
    sum += done[i];
  }
  // Most writes waited, through many destage completions each; the counter
  // holds each one's wait once, submission to admission (= its latency on a
  // RAM cache device).
  EXPECT_GE(throttled, static_cast<std::uint64_t>(kWrites - 16));
  EXPECT_EQ(s.write_throttled, throttled);
  EXPECT_EQ(s.throttled_ns, sum);
  EXPECT_EQ(s.throttled_max_ns, *std::max_element(done.begin(), done.end()));
  // FIFO: no write finished before one submitted earlier.
  EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
}

TEST(WriteThrottleTest, LargeWriteIsNotOvertakenBySmallOnes) {
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_concurrency = 1;
  cfg.destage_max_bytes = 4 * kKiB;  // destage frees one line at a time
  cfg.destage_order = "fifo";
  auto c = MakeCacheOverSlowOrigin(e, cfg, 16, 100 * kMicro);
  ASSERT_NE(c, nullptr);
  auto data = Pattern(16 * kKiB, 2);
  for (int i = 0; i < 16; ++i) {
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, i * 4 * kKiB, 4 * kKiB, data.data()), Status::kOk);
  }
  // A 4-line write, then a stream of 1-line writes four times faster than
  // destage frees lines: each freed line fits a small write but not the big
  // one, which must still go first.
  const Nanos t0 = e.Now();
  Nanos big_done = -1;
  SubmitWrite(*c, 100 * 4 * kKiB, 16 * kKiB, data.data(), &big_done);
  constexpr int kSmall = 40;
  std::vector<Nanos> small_done(kSmall, -1);
  for (int i = 0; i < kSmall; ++i) {
    e.ScheduleAt(t0 + (i + 1) * 50 * kMicro, [&, i] {
      SubmitWrite(*c, (200 + 2 * i) * 4 * kKiB, 4 * kKiB, data.data(), &small_done[i]);
    });
  }
  e.Run();
  ASSERT_GE(big_done, 0);
  for (int i = 0; i < kSmall; ++i) {
    ASSERT_GE(small_done[i], 0) << i;
    EXPECT_GE(small_done[i], big_done) << i;
  }
  EXPECT_TRUE(std::is_sorted(small_done.begin(), small_done.end()));
  // Four lines at one per destage (origin write + flush, ~200 us): well
  // under 2 ms, not the whole stream.
  EXPECT_LT(big_done - t0, 2 * kMilli);
  EXPECT_EQ(c->cache_stats().write_bypassed, 0u);
}

TEST(DestageBudgetTest, FifoDestageKeepsOriginWritesWithinTheBudget) {
  // Scattered dirty lines in FIFO order are one-line runs; a destage pass used
  // to start one origin write per run (up to destage_max_bytes worth, 256 of
  // them) whatever destage_concurrency said.
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_order = "fifo";
  cfg.destage_concurrency = 2;
  constexpr std::uint64_t kLines = 64;
  cfg.capacity_lines = kLines;
  auto origin = std::make_unique<SerialDevice>(e, "origin", 64 * kMiB, 100 * kMicro);
  SerialDevice* serial = origin.get();
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::make_unique<RamDevice>(e, "c", kLines * cfg.line_size));
  auto r = CacheTarget::Create(e, "cache", std::move(origin), std::move(caches), cfg);
  ASSERT_TRUE(r.ok()) << r.error().message;
  CacheTarget& c = **r;
  auto data = Pattern(4 * kKiB, 4);
  constexpr int kWrites = 200;
  std::vector<Nanos> done(kWrites, -1);
  for (int i = 0; i < kWrites; ++i) {
    SubmitWrite(c, static_cast<std::uint64_t>(3 * i) * 4 * kKiB, 4 * kKiB, data.data(), &done[i]);
  }
  e.Run();
  for (int i = 0; i < kWrites; ++i) ASSERT_GE(done[i], 0) << i;
  const CacheStats s = c.cache_stats();
  EXPECT_GE(s.destage_ops, static_cast<std::uint64_t>(kWrites) - kLines);
  EXPECT_GT(serial->max_writes_in_flight(), 1u);  // the budget was used
  EXPECT_LE(serial->max_writes_in_flight(), cfg.destage_concurrency);
}

TEST(WriteThrottleTest, LinesDestageCleanedAreReusedWhenTheOldestAreDirty) {
  // LBA destage cleans the lowest lines first; written in descending order,
  // those are the youngest for LRU, whose oldest lines all stay dirty. The
  // policy scans only kEvictScanLimit of them, fewer than the dirty ones.
  constexpr std::uint64_t kLines = 256;
  static_assert(kEvictScanLimit < kLines * 9 / 10, "the oldest scanned lines must all be dirty");
  SimEngine e;
  CacheConfig cfg = WriteBack();
  cfg.destage_order = "lba";
  auto c = MakeCacheOverSlowOrigin(e, cfg, kLines, 100 * kMicro);
  ASSERT_NE(c, nullptr);
  auto data = Pattern(4 * kKiB, 3);
  for (std::uint64_t i = 0; i < kLines; ++i) {
    const std::uint64_t line = 2 * (kLines - 1 - i);  // not adjacent: no coalescing
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, line * 4 * kKiB, 4 * kKiB, data.data()), Status::kOk);
  }
  // Full at the high watermark (100%): destage ran down to the low one (90%).
  CacheStats s = c->cache_stats();
  ASSERT_EQ(s.dirty_lines, kLines * 9 / 10);
  ASSERT_EQ(s.free_lines, 0u);
  ASSERT_FALSE(c->IsDirty(0));
  ASSERT_TRUE(c->IsDirty(2 * (kLines - 1)));  // the oldest line

  const Nanos t0 = e.Now();
  Nanos done = -1;
  SubmitWrite(*c, 5000 * 4 * kKiB, 4 * kKiB, data.data(), &done);
  e.Run();
  s = c->cache_stats();
  EXPECT_EQ(done, t0);  // took a cleaned line at once: no wait for destage
  EXPECT_EQ(s.write_throttled, 0u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_TRUE(c->IsDirty(5000));
  EXPECT_TRUE(c->IsDirty(2 * (kLines - 1)));
}

// The replacement policy tracks clean lines only: 100 old dirty lines (more
// than an eviction scans past, kEvictScanLimit) below 156 newer clean ones
// must not make a new write wait for destage while clean lines can be
// evicted. With dirty lines left in the policy they sank to its cold end,
// every eviction gave up behind them, and the write waited.
TEST(CacheThrottleTest, ADirtyColdEndDoesNotHideTheCleanLinesFromEviction) {
  static_assert(kEvictScanLimit < 100);
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4096;
  cfg.write = WriteMode::kWriteBack;
  cfg.high_watermark = 100;  // no destage unless a writer waits
  cfg.low_watermark = 100;
  auto c = MakeCache(e, cfg, 256, 16 * kMiB);
  ASSERT_NE(c, nullptr);
  auto buf = Pattern(4096, 1);
  for (std::uint64_t l = 0; l < 100; ++l) {
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, l * 4096, 4096, buf.data()), Status::kOk);
  }
  for (std::uint64_t l = 100; l < 256; ++l) {
    ASSERT_EQ(Io(e, *c, IoOp::kRead, l * 4096, 4096, buf.data()), Status::kOk);
  }
  ASSERT_EQ(c->cache_stats().dirty_lines, 100u);
  ASSERT_EQ(c->cache_stats().free_lines, 0u);
  for (std::uint64_t l = 1000; l < 1010; ++l) {
    ASSERT_EQ(Io(e, *c, IoOp::kWrite, l * 4096, 4096, buf.data()), Status::kOk);
  }
  const CacheStats st = c->cache_stats();
  EXPECT_EQ(st.write_throttled, 0u);
  EXPECT_EQ(st.destage_ops, 0u);
  EXPECT_EQ(st.dirty_lines, 110u);
  EXPECT_EQ(st.evictions, 10u);  // the oldest clean lines
  EXPECT_FALSE(c->IsResident(100));
  EXPECT_TRUE(c->IsResident(110));
  EXPECT_TRUE(c->IsDirty(0));
}

}  // namespace
}  // namespace tierlab
