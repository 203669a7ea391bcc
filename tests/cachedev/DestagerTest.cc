// The destager on its own, driven through its interface: a small cache over
// RAM devices (line i in slot i) implements DestageCache, so watermarks,
// drain, failures, flush batching, idle destage and the bandwidth cap are
// seen without a cache target around them.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cachedev/Destager.h"
#include "cachedev/LineTable.h"
#include "policies/PolicyRegistry.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kLine = 4096;

// Line i lives in slot i of one RAM cache device; the origin is a RAM device
// behind a FaultTarget so a test can make it fail.
class TestCache final : public DestageCache {
 public:
  TestCache(SimEngine& e, std::uint64_t lines)
      : engine_(e),
        cache_dev_(e, "cache", lines * kLine),
        dirty_(lines, false),
        cleaned_at_(lines, -1),
        flushes_before_clean_(lines, 0) {
    auto ram = std::make_unique<RamDevice>(e, "origin", lines * kLine);
    origin_ram_ = ram.get();
    origin_ = std::make_unique<FaultTarget>(e, "fault", std::move(ram));
  }

  std::uint64_t DirtyLines() const override { return dirty_count_; }
  bool WritersWaiting() const override { return writers_waiting; }
  Slot DirtySlot(std::uint64_t line) const override {
    return dirty_[line] ? static_cast<Slot>(line) : LineTable::kNone;
  }
  bool SlotsAdjacent(Slot a, Slot b) const override { return b == a + 1; }
  bool LockLines(LockWaiter* w) override { return locks_.Acquire(w); }
  void UnlockLines(LockWaiter* w) override { locks_.Release(w); }
  std::uint64_t WriteGeneration(std::uint64_t line) const override {
    return locks_.Generation(line);
  }
  void ReadSlots(Slot s, std::uint64_t length, std::byte* data, IoCallback cb) override {
    Submit(cache_dev_, IoOp::kRead, s * kLine, length, data, std::move(cb));
  }
  void WriteOrigin(std::uint64_t offset, std::uint64_t length, std::byte* data,
                   IoCallback cb) override {
    Submit(*origin_, IoOp::kWrite, offset, length, data, std::move(cb));
  }
  void FlushOrigin(IoCallback cb) override {
    Submit(*origin_, IoOp::kFlush, 0, 0, nullptr, std::move(cb));
  }
  bool VerifyLineData(Slot, const std::byte*, std::uint64_t) override { return data_intact; }
  void MarkClean(Slot s, std::uint64_t line) override {
    EXPECT_EQ(s, line);
    EXPECT_TRUE(dirty_[line]);
    dirty_[line] = false;
    --dirty_count_;
    cleaned_at_[line] = engine_.Now();
    flushes_before_clean_[line] = origin_flushes();
  }
  void OnDestageFinished() override { ++finished; }

  // A write-back write: the line's pattern goes to the cache device and the
  // line turns dirty, as the cache target does before it acknowledges.
  void Dirty(Destager& d, std::uint64_t line) {
    AlignedBuffer b(kLine);
    std::memset(b.data(), static_cast<int>(line + 1), kLine);
    Submit(cache_dev_, IoOp::kWrite, line * kLine, kLine, b.data(), [](Status) {});
    engine_.Run();
    if (!dirty_[line]) ++dirty_count_;
    dirty_[line] = true;
    d.MarkDirty(line, engine_.Now());
  }
  // True if the origin holds line's pattern.
  bool OriginHolds(std::uint64_t line) {
    AlignedBuffer b(kLine);
    Submit(*origin_ram_, IoOp::kRead, line * kLine, kLine, b.data(), [](Status) {});
    engine_.Run();
    for (std::uint64_t i = 0; i < kLine; ++i) {
      if (b.data()[i] != static_cast<std::byte>(line + 1)) return false;
    }
    return true;
  }
  bool IsDirty(std::uint64_t line) const { return dirty_[line]; }
  Nanos cleaned_at(std::uint64_t line) const { return cleaned_at_[line]; }
  std::uint64_t flushes_before_clean(std::uint64_t line) const {
    return flushes_before_clean_[line];
  }
  FaultTarget& origin() { return *origin_; }
  DeviceStats origin_stats() const { return origin_ram_->stats(); }
  // Flushes that reached the origin (a line's covering flush is submitted
  // before it turns clean, and completes before MarkClean).
  std::uint64_t origin_flushes() const { return origin_ram_->stats().flush_ops; }

  bool writers_waiting = false;
  bool data_intact = true;
  std::uint64_t finished = 0;

 private:
  static void Submit(BlockDevice& dev, IoOp op, std::uint64_t off, std::uint64_t len,
                     std::byte* data, IoCallback cb) {
    IoRequest r;
    r.op = op;
    r.offset = off;
    r.length = len;
    r.data = data;
    dev.Submit(r, std::move(cb));
  }

  SimEngine& engine_;
  RamDevice cache_dev_;
  RamDevice* origin_ram_ = nullptr;
  std::unique_ptr<FaultTarget> origin_;
  LineLocks locks_;
  std::vector<bool> dirty_;
  std::uint64_t dirty_count_ = 0;
  std::vector<Nanos> cleaned_at_;
  std::vector<std::uint64_t> flushes_before_clean_;
};

struct Rig {
  explicit Rig(DestageSettings s, std::uint64_t lines = 100, const char* order = "fifo")
      : cache(engine, lines),
        destager(engine, cache, s, kLine, lines, lines * kLine, true, MakeDestageOrder(order)) {}
  SimEngine engine;
  TestCache cache;
  Destager destager;
};

DestageSettings OneLineOps() {
  DestageSettings s;
  s.high_watermark = 50;
  s.low_watermark = 40;
  s.concurrency = 1;
  s.max_bytes = kLine;
  return s;
}

TEST(DestagerTest, WatermarksStartAtHighAndStopAtLow) {
  Rig r(OneLineOps());
  for (std::uint64_t l = 0; l < 49; ++l) r.cache.Dirty(r.destager, l);
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 49u) << "below the high watermark nothing is destaged";
  r.cache.Dirty(r.destager, 49);
  r.destager.MaybeDestage();
  r.engine.Run();
  // Hysteresis: once the high mark is reached, destage continues down to the
  // low mark, through the dirty counts in between.
  EXPECT_EQ(r.cache.DirtyLines(), 40u);
  // FIFO: the oldest lines went first, and each reached the origin.
  for (std::uint64_t l = 0; l < 10; ++l) {
    EXPECT_FALSE(r.cache.IsDirty(l)) << l;
    EXPECT_TRUE(r.cache.OriginHolds(l)) << l;
  }
  EXPECT_EQ(r.destager.counters().bytes, 10 * kLine);
  // Back between the marks: not above high again, so nothing starts.
  for (std::uint64_t l = 50; l < 55; ++l) r.cache.Dirty(r.destager, l);
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 45u);
}

TEST(DestagerTest, DrainCleansEverythingReportsProgressAndJoins) {
  Rig r(OneLineOps());
  for (std::uint64_t l = 0; l < 30; ++l) r.cache.Dirty(r.destager, l);
  std::vector<std::uint64_t> progress;
  int done_ok = 0;
  r.destager.Drain([&](std::uint64_t dirty) { progress.push_back(dirty); },
                   [&](Status st) { done_ok += st == Status::kOk; });
  // A second drain while the first runs joins it.
  r.destager.Drain([&](std::uint64_t dirty) { progress.push_back(dirty); },
                   [&](Status st) { done_ok += st == Status::kOk; });
  r.engine.Run();
  EXPECT_EQ(done_ok, 2);
  EXPECT_EQ(r.cache.DirtyLines(), 0u);
  ASSERT_EQ(progress.size(), 30u);  // one report per one-line operation
  for (std::size_t i = 0; i < progress.size(); ++i) {
    EXPECT_EQ(progress[i], (29 - i) * kLine) << i;
  }
  for (std::uint64_t l = 0; l < 30; ++l) EXPECT_TRUE(r.cache.OriginHolds(l)) << l;
  EXPECT_EQ(r.cache.finished, 30u);
  // A drain with nothing dirty completes too (posted, not inside the call).
  bool empty_done = false;
  r.destager.Drain(nullptr, [&](Status st) { empty_done = st == Status::kOk; });
  EXPECT_FALSE(empty_done);
  r.engine.Run();
  EXPECT_TRUE(empty_done);
}

TEST(DestagerTest, FailedDrainReportsErrorKeepsLinesDirtyAndPauses) {
  Rig r(OneLineOps());
  for (std::uint64_t l = 0; l < 60; ++l) r.cache.Dirty(r.destager, l);
  r.cache.origin().FailAll(true);
  Status got = Status::kOk;
  r.destager.Drain(nullptr, [&](Status st) { got = st; });
  r.engine.Run();
  EXPECT_EQ(got, Status::kIoError);
  EXPECT_EQ(r.cache.DirtyLines(), 60u);
  EXPECT_TRUE(r.destager.paused());
  EXPECT_EQ(r.destager.counters().errors, 1u);
  // Paused: above the high mark, yet nothing starts (a dead origin must not
  // spin the loop).
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_EQ(r.destager.counters().errors, 1u);
  // A new write resumes; the failed line was queued again, and watermark
  // destage brings the cache down to the low mark.
  r.cache.origin().FailAll(false);
  r.destager.Resume();
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 40u);
  EXPECT_FALSE(r.destager.paused());
}

TEST(DestagerTest, DataFailingVerificationNeverReachesTheOrigin) {
  Rig r(OneLineOps());
  r.cache.Dirty(r.destager, 3);
  r.cache.data_intact = false;
  Status got = Status::kOk;
  r.destager.Drain(nullptr, [&](Status st) { got = st; });
  r.engine.Run();
  EXPECT_EQ(got, Status::kIoError);
  EXPECT_TRUE(r.cache.IsDirty(3));
  EXPECT_EQ(r.cache.origin_stats().write_ops, 0u);
}

TEST(DestagerTest, LinesTurnCleanOnlyAfterAnOriginFlushThatBatches) {
  DestageSettings s = OneLineOps();
  s.concurrency = 8;
  Rig r(s);
  for (std::uint64_t l = 0; l < 32; ++l) r.cache.Dirty(r.destager, l);
  r.destager.Drain(nullptr, [](Status) {});
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 0u);
  for (std::uint64_t l = 0; l < 32; ++l) EXPECT_GE(r.cache.flushes_before_clean(l), 1u) << l;
  EXPECT_EQ(r.destager.counters().ops, 32u);
  // Eight operations complete together: one flush covers several of them.
  EXPECT_LT(r.cache.origin_flushes(), r.destager.counters().ops);

  DestageSettings no_flush = s;
  no_flush.flush_origin = false;
  Rig n(no_flush);
  for (std::uint64_t l = 0; l < 4; ++l) n.cache.Dirty(n.destager, l);
  n.destager.Drain(nullptr, [](Status) {});
  n.engine.Run();
  EXPECT_EQ(n.cache.DirtyLines(), 0u);
  EXPECT_EQ(n.cache.origin_flushes(), 0u);
}

TEST(DestagerTest, AdjacentLinesGoOutAsOneOriginWrite) {
  DestageSettings s = OneLineOps();
  s.max_bytes = 16 * kLine;
  Rig r(s, 100, "lba");
  for (std::uint64_t l : {7, 4, 5, 6, 20}) r.cache.Dirty(r.destager, l);
  r.destager.Drain(nullptr, [](Status) {});
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 0u);
  EXPECT_EQ(r.destager.counters().ops, 2u);  // 4..7 and 20
  EXPECT_EQ(r.destager.counters().bytes, 5 * kLine);
}

TEST(DestagerTest, WaitingWritersDestageBelowTheHighWatermark) {
  Rig r(OneLineOps());
  for (std::uint64_t l = 0; l < 5; ++l) r.cache.Dirty(r.destager, l);
  r.cache.writers_waiting = true;
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 0u);
}

TEST(DestagerTest, IdleDestageWaitsForAgeAndQuiet) {
  DestageSettings s = OneLineOps();
  s.idle_age = 1000 * kMicro;
  s.idle_quiet = 3000 * kMicro;
  Rig r(s);
  r.cache.Dirty(r.destager, 0);
  const Nanos dirtied = r.engine.Now();
  r.destager.NoteForeground(dirtied);
  r.destager.MaybeDestage();
  r.engine.Run();
  EXPECT_FALSE(r.cache.IsDirty(0));
  // Old enough after idle_age, but the quiet time is the later bound.
  EXPECT_GE(r.cache.cleaned_at(0), dirtied + s.idle_quiet);
}

TEST(DestagerTest, BandwidthCapPacesOperations) {
  DestageSettings s = OneLineOps();
  s.bandwidth = 4 * 1024 * 1024;  // bytes/s
  Rig r(s);
  constexpr std::uint64_t kLines = 20;
  for (std::uint64_t l = 0; l < kLines; ++l) r.cache.Dirty(r.destager, l);
  const Nanos start = r.engine.Now();
  r.destager.Drain(nullptr, [](Status) {});
  r.engine.Run();
  EXPECT_EQ(r.cache.DirtyLines(), 0u);
  // One burst of max_bytes may start at once (and one more on the debt);
  // the rest is paced at the cap.
  const double paced_bytes = static_cast<double>((kLines - 2) * kLine);
  const Nanos min_ns = static_cast<Nanos>(paced_bytes * 1e9 / static_cast<double>(s.bandwidth));
  EXPECT_GE(r.cache.cleaned_at(kLines - 1) - start, min_ns);
}

}  // namespace
}  // namespace tierlab
