// Persistent cache metadata (CacheJournal.h) on real files: data checksums
// recorded with every write-back write, recovered through the journal and a
// final checkpoint, and compared against the cache device's data — with a
// fault target under the cache device losing and tearing writes.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cachedev/CacheJournal.h"
#include "cachedev/CacheTarget.h"
#include "tiering/AlignedBuffer.h"
#include "tiering/FaultTarget.h"
#include "tiering/FileDevice.h"
#include "tiering/RealEngine.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kLine = 16 * 1024;  // four 4 KiB checksum sectors per line
constexpr std::uint64_t kLines = 32;        // cache capacity
constexpr std::uint64_t kOrigin = 4 << 20;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tierlab-journal-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// Distinct content per (line, version), never all zeros.
void Fill(std::byte* p, std::uint64_t len, std::uint64_t line, std::uint64_t version) {
  for (std::uint64_t i = 0; i < len; ++i) {
    p[i] = static_cast<std::byte>((line * 131 + version * 17 + i * 7 + (i >> 9)) | 1);
  }
}

class CacheJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    geo_ = MetadataGeometry::For(kLine, kLines);
    cache_path_ = dir_.File("cache.img");
    origin_path_ = dir_.File("origin.img");
    for (const auto& [p, size] : {std::pair{cache_path_, geo_.reserve + kLines * kLine},
                                  std::pair{origin_path_, kOrigin}}) {
      FileDeviceOptions o;
      o.path = p;
      o.create = true;
      o.size = size;
      ASSERT_TRUE(FileDevice::Open(engine_, "mk", o).ok());
    }
    sb_.uuid = NewUuid();
    sb_.geo = geo_;
    sb_.origin_bytes = kOrigin;
    sb_.layout_json = "{}";
    ASSERT_TRUE(WriteSuperblock(cache_path_, sb_).ok());
    for (std::uint64_t gen = 0; gen < 2; ++gen) {
      ASSERT_TRUE(WriteCheckpoint(cache_path_, sb_, gen, 1, {}, {}).ok());
    }
  }

  // Recovers the metadata, builds cache target (over a fault target) and
  // journal, as OpenVolume does.
  void Open() {
    auto m = RecoverMetadata(cache_path_, kOrigin / kLine);
    ASSERT_TRUE(m.ok()) << m.error().message;
    ASSERT_TRUE(m->report.problems.empty()) << m->report.problems.front();
    ++m->generation;
    ASSERT_TRUE(
        WriteCheckpoint(cache_path_, m->sb, m->generation, m->next_seq, m->dirty, m->crc).ok());
    FileDeviceOptions o;
    o.path = cache_path_;
    auto cache_file = FileDevice::Open(engine_, "cache", o);
    o.path = origin_path_;
    auto origin = FileDevice::Open(engine_, "origin", o);
    ASSERT_TRUE(cache_file.ok() && origin.ok());
    auto fault = std::make_unique<FaultTarget>(engine_, "fault", std::move(cache_file).value());
    fault_ = fault.get();
    std::vector<std::unique_ptr<BlockDevice>> caches;
    caches.push_back(std::move(fault));
    CacheConfig cfg;
    cfg.line_size = kLine;
    cfg.write_mode = WriteMode::kWriteBack;
    cfg.capacity_lines = kLines;
    cfg.metadata_reserve = geo_.reserve;
    cfg.high_watermark = 100;  // no destage: every written line stays dirty
    cfg.low_watermark = 90;
    cfg.with_data = true;
    auto t =
        CacheTarget::Create(engine_, "cache", std::move(origin).value(), std::move(caches), cfg);
    ASSERT_TRUE(t.ok()) << t.error().message;
    target_ = std::move(t).value();
    auto j = CacheJournal::Attach(*target_, std::move(m).value());
    ASSERT_TRUE(j.ok()) << j.error().message;
    journal_ = std::move(j).value();
  }

  // Final checkpoint and teardown, as OpenedVolume::Close does (after a flush).
  void Close() {
    ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
    const auto state = journal_->FinalState();
    const auto crcs = journal_->FinalCrcs();
    const std::uint64_t gen = journal_->generation() + 1, seq = journal_->next_seq();
    journal_.reset();
    target_.reset();
    ASSERT_TRUE(WriteCheckpoint(cache_path_, sb_, gen, seq, state, crcs, /*clean=*/true).ok());
  }

  // Drops everything without a final checkpoint (a crash after the last flush).
  void Crash() {
    journal_.reset();
    target_.reset();
  }

  Status Do(IoOp op, std::uint64_t off, std::uint64_t len, std::byte* data) {
    IoRequest r;
    r.op = op;
    r.offset = off;
    r.length = len;
    r.data = data;
    Status got = Status::kShutdown;
    target_->Submit(r, [&](Status s) { got = s; });
    engine_.Run();
    return got;
  }

  Status WriteLine(std::uint64_t line, std::uint64_t version, std::uint64_t off = 0,
                   std::uint64_t len = kLine) {
    AlignedBuffer b(len);
    Fill(b.data(), len, line, version);
    return Do(IoOp::kWrite, line * kLine + off, len, b.data());
  }

  DataCheckReport Verify() {
    auto m = RecoverMetadata(cache_path_, kOrigin / kLine);
    EXPECT_TRUE(m.ok());
    if (!m.ok()) return {};
    auto r = VerifyDirtyData(*m, {cache_path_});
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::move(r).value() : DataCheckReport{};
  }

  // Fault rule on the data of cache slot `slot` (slots are taken in order).
  FaultRule SlotRule(std::uint64_t slot, FaultAction action) const {
    FaultRule f;
    f.op_mask = FaultRule::Ops({IoOp::kWrite});
    f.start = geo_.reserve + slot * kLine;
    f.end = f.start + kLine;
    f.action = action;
    f.max_triggers = 1;
    return f;
  }

  TempDir dir_;
  RealEngine engine_;
  MetadataGeometry geo_;
  Superblock sb_;
  std::string cache_path_, origin_path_;
  FaultTarget* fault_ = nullptr;
  std::unique_ptr<CacheTarget> target_;
  std::unique_ptr<CacheJournal> journal_;
};

TEST_F(CacheJournalTest, GeometryHasOneChecksumPerSector) {
  EXPECT_EQ(geo_.sector_bytes, 4096u);
  EXPECT_EQ(geo_.sectors_per_line(), 4u);
  EXPECT_GE(geo_.checkpoint_bytes, 4096 + kLines * 4 * 5);
  EXPECT_EQ(MetadataGeometry::kRecordsPerBlock, 252u);
}

TEST_F(CacheJournalTest, IntactDataVerifiesThroughJournalAndCheckpoint) {
  ASSERT_NO_FATAL_FAILURE(Open());
  for (std::uint64_t l = 0; l < 8; ++l) ASSERT_EQ(WriteLine(l, 1), Status::kOk);
  ASSERT_EQ(WriteLine(3, 2), Status::kOk);              // a dirty line rewritten
  ASSERT_EQ(WriteLine(5, 2, 4096, 8192), Status::kOk);  // two whole sectors of it
  // Part of one sector (where the devices take writes below 4 KiB).
  const std::uint64_t bs = target_->BlockSize();
  const bool partial = bs < 4096;
  if (partial) {
    ASSERT_EQ(WriteLine(6, 2, bs, bs), Status::kOk);
  }
  ASSERT_EQ(WriteLine(20, 1, 8192, 4096), Status::kOk);  // a new line, read-filled
  ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  Crash();  // recovery replays the journal

  DataCheckReport r = Verify();
  EXPECT_EQ(r.lines, 9u);
  EXPECT_TRUE(r.bad.empty()) << "slot " << r.bad.front().slot;
  EXPECT_EQ(r.sectors_unknown, partial ? 1u : 0u);  // line 6's partly written sector
  EXPECT_EQ(r.sectors_checked + r.sectors_unknown, 9 * 4u);

  // The same after a reopen and a clean close (state from the checkpoint).
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_EQ(WriteLine(7, 3), Status::kOk);
  ASSERT_NO_FATAL_FAILURE(Close());
  r = Verify();
  EXPECT_EQ(r.lines, 9u);
  EXPECT_TRUE(r.bad.empty());
}

TEST_F(CacheJournalTest, LostAndTornWritesBelowTheCacheAreDetected) {
  ASSERT_NO_FATAL_FAILURE(Open());
  fault_->SetRules({SlotRule(2, FaultAction::kLoseWrite), SlotRule(5, FaultAction::kTearWrite)});
  for (std::uint64_t l = 0; l < 8; ++l) ASSERT_EQ(WriteLine(100 + l, 1), Status::kOk);
  // Each write reached its own slot: the faults hit lines 102 and 105.
  ASSERT_EQ(fault_->rules()[0].triggered, 1u);
  ASSERT_EQ(fault_->rules()[1].triggered, 1u);
  ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);

  // Live: reading a damaged line fails instead of returning the stale data;
  // intact lines read back.
  AlignedBuffer got(kLine), want(kLine);
  for (std::uint64_t l = 100; l < 108; ++l) {
    const Status st = Do(IoOp::kRead, l * kLine, kLine, got.data());
    if (l == 102 || l == 105) {
      EXPECT_EQ(st, Status::kIoError) << "line " << l;
    } else {
      ASSERT_EQ(st, Status::kOk) << "line " << l;
      Fill(want.data(), kLine, l, 1);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), kLine), 0) << "line " << l;
    }
  }
  // The sector of line 105 that was written reads fine on its own.
  EXPECT_EQ(Do(IoOp::kRead, 105 * kLine, 4096, got.data()), Status::kOk);
  EXPECT_GE(journal_->data_errors(), 2u);
  // Destage does not copy the damaged lines to the origin: it fails, and
  // they stay dirty.
  Status drained = Status::kShutdown;
  target_->Drain(nullptr, [&](Status st) { drained = st; });
  engine_.Run();
  EXPECT_EQ(drained, Status::kIoError);
  EXPECT_TRUE(target_->IsDirty(102));
  EXPECT_TRUE(target_->IsDirty(105));
  ASSERT_NO_FATAL_FAILURE(Close());

  // Offline, after a clean close: both found, exactly.
  DataCheckReport r = Verify();
  ASSERT_EQ(r.bad.size(), 2u);
  EXPECT_EQ(r.bad[0].line, 102u);
  EXPECT_EQ(r.bad[0].slot, 2u);
  EXPECT_EQ(r.bad[0].bad_sectors, 4u);  // nothing was written
  EXPECT_EQ(r.bad[0].sector, 0u);
  EXPECT_EQ(r.bad[1].line, 105u);
  EXPECT_EQ(r.bad[1].bad_sectors, 2u);  // the second half is missing
  EXPECT_EQ(r.bad[1].sector, 2u);

  // Dropping the bad lines (check --repair) leaves a map that verifies.
  auto m = RecoverMetadata(cache_path_, kOrigin / kLine);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->clean);
  const std::uint64_t dirty_before = r.lines;
  for (const BadLine& b : r.bad) DropDirtyLine(*m, b.slot);
  ASSERT_TRUE(
      WriteCheckpoint(cache_path_, m->sb, m->generation + 1, m->next_seq, m->dirty, m->crc).ok());
  r = Verify();
  EXPECT_EQ(r.lines, dirty_before - 2);
  EXPECT_TRUE(r.bad.empty());
}

TEST_F(CacheJournalTest, AfterACrashAMismatchIsAdoptedNotFatal) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_EQ(WriteLine(1, 1), Status::kOk);
  ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  // Acknowledged after the last flush, overwriting the committed data in
  // place; then the process dies before the next commit.
  ASSERT_EQ(WriteLine(1, 2), Status::kOk);
  Crash();
  auto m = RecoverMetadata(cache_path_, kOrigin / kLine);
  ASSERT_TRUE(m.ok());
  EXPECT_FALSE(m->clean);
  auto r = VerifyDirtyData(*m, {cache_path_}, /*adopt=*/true);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bad.size(), 1u);
  EXPECT_EQ(r->adopted, 4u);
  // The adopted checksums describe the data now there.
  auto again = VerifyDirtyData(*m, {cache_path_});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->bad.empty());
}

TEST_F(CacheJournalTest, DataChangedBehindTheCacheIsDetectedAfterACleanClose) {
  ASSERT_NO_FATAL_FAILURE(Open());
  for (std::uint64_t l = 0; l < 4; ++l) ASSERT_EQ(WriteLine(l, 1), Status::kOk);
  ASSERT_NO_FATAL_FAILURE(Close());
  ASSERT_TRUE(Verify().bad.empty());
  // One byte of slot 1's third sector changes on the device.
  {
    FileDeviceOptions o;
    o.path = cache_path_;
    auto dev = FileDevice::Open(engine_, "raw", o);
    ASSERT_TRUE(dev.ok());
    AlignedBuffer b(4096);
    IoRequest r;
    r.op = IoOp::kRead;
    r.offset = geo_.reserve + kLine + 2 * 4096;
    r.length = 4096;
    r.data = b.data();
    Status st = Status::kShutdown;
    (*dev)->Submit(r, [&](Status s) { st = s; });
    engine_.Run();
    ASSERT_EQ(st, Status::kOk);
    b.data()[77] ^= std::byte{1};
    r.op = IoOp::kWrite;
    (*dev)->Submit(r, [&](Status s) { st = s; });
    engine_.Run();
    ASSERT_EQ(st, Status::kOk);
  }
  DataCheckReport r = Verify();
  ASSERT_EQ(r.bad.size(), 1u);
  EXPECT_EQ(r.bad[0].slot, 1u);
  EXPECT_EQ(r.bad[0].sector, 2u);
  EXPECT_EQ(r.bad[0].bad_sectors, 1u);
}

}  // namespace
}  // namespace tierlab
