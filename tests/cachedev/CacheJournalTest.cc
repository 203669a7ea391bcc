// Persistent cache metadata (CacheJournal.h) on real files: data checksums
// recorded with every write-back write, recovered through the journal and a
// final checkpoint, and compared against the cache device's data — with a
// fault target under the cache device losing and tearing writes. Then
// damaged metadata: a journal block of a completed commit, a torn last
// commit, superblocks and checkpoints whose checksum matches and whose
// content does not make sense, short files.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cachedev/CacheJournal.h"
#include "cachedev/CacheTarget.h"
#include "cachedev/LineTable.h"
#include "cachedev/MetadataFile.h"
#include "tests/cachedev/CacheTestUtil.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/Crc32c.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kLine = 16 * 1024;  // four 4 KiB checksum sectors per line
constexpr std::uint64_t kLines = 32;        // cache capacity
constexpr std::uint64_t kOrigin = 4 << 20;

using cachetest::TempDir;

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
    cache_path_ = dir_.Path("cache.img");
    origin_path_ = dir_.Path("origin.img");
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
    cfg.write = WriteMode::kWriteBack;
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

  // Raw access to the cache file, below tierlab (damage from outside).
  std::vector<std::byte> ReadRaw(std::uint64_t off, std::uint64_t len) const {
    std::vector<std::byte> b(len);
    const int fd = ::open(cache_path_.c_str(), O_RDONLY);
    EXPECT_EQ(::pread(fd, b.data(), len, static_cast<off_t>(off)), static_cast<ssize_t>(len));
    ::close(fd);
    return b;
  }
  void WriteRaw(std::uint64_t off, const std::vector<std::byte>& b) const {
    const int fd = ::open(cache_path_.c_str(), O_WRONLY);
    EXPECT_EQ(::pwrite(fd, b.data(), b.size(), static_cast<off_t>(off)),
              static_cast<ssize_t>(b.size()));
    ::close(fd);
  }
  // Flips `n` bytes of journal block `seq`, inside its records.
  void FlipJournalBlock(std::uint64_t seq, std::uint64_t n = 8) const {
    const std::uint64_t off =
        geo_.journal_offset + (seq % geo_.journal_blocks()) * MetadataGeometry::kBlock + 64 + 16;
    std::vector<std::byte> b = ReadRaw(off, n);
    for (auto& x : b) x = ~x;
    WriteRaw(off, b);
  }
  // Writes lines [first, last) whole, then a flush: one commit.
  void WriteAndFlush(std::uint64_t first, std::uint64_t last, std::uint64_t version = 1) {
    for (std::uint64_t l = first; l < last; ++l) ASSERT_EQ(WriteLine(l, version), Status::kOk);
    ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  }
  // Lines 0-7, 8-15 and 16-23 in three commits of one journal block each
  // (seq 1, 2, 3: 8 lines of 4 sectors, 32 records), then a crash.
  void ThreeCommitsThenCrash() {
    ASSERT_NO_FATAL_FAILURE(Open());
    for (std::uint64_t first = 0; first < 24; first += 8) {
      ASSERT_NO_FATAL_FAILURE(WriteAndFlush(first, first + 8));
    }
    Crash();
  }
  RecoveredMetadata Recover() {
    auto m = RecoverMetadata(cache_path_, kOrigin / kLine);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? std::move(m).value() : RecoveredMetadata{};
  }
  std::vector<std::uint32_t> DirtyLines(const RecoveredMetadata& m) const {
    std::vector<std::uint32_t> v;
    for (std::uint32_t l : m.dirty) {
      if (l != kNotDirty) v.push_back(l);
    }
    std::sort(v.begin(), v.end());
    return v;
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

// Two write hits of one line in flight together (they no longer wait for each
// other): either may be the one the device keeps, so neither's checksums are
// recorded and the line's sectors are unknown, not bad; reads of it pass, and
// the next write on its own makes them known again.
TEST_F(CacheJournalTest, WriteHitsOfALineInFlightTogetherLeaveItsSectorsUnknown) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_EQ(WriteLine(2, 1), Status::kOk);
  AlignedBuffer v2(kLine), v3(kLine);
  Fill(v2.data(), kLine, 2, 2);
  Fill(v3.data(), kLine, 2, 3);
  Status s2 = Status::kShutdown, s3 = Status::kShutdown;
  for (auto [buf, st] : {std::pair{&v2, &s2}, std::pair{&v3, &s3}}) {
    IoRequest r;
    r.op = IoOp::kWrite;
    r.offset = 2 * kLine;
    r.length = kLine;
    r.data = buf->data();
    target_->Submit(r, [done = st](Status s) { *done = s; });  // clang < 16 captures no binding
  }
  engine_.Run();
  ASSERT_EQ(s2, Status::kOk);
  ASSERT_EQ(s3, Status::kOk);
  EXPECT_EQ(target_->cache_stats().lock_waits, 0u);
  AlignedBuffer got(kLine);
  ASSERT_EQ(Do(IoOp::kRead, 2 * kLine, kLine, got.data()), Status::kOk);
  EXPECT_TRUE(std::memcmp(got.data(), v2.data(), kLine) == 0 ||
              std::memcmp(got.data(), v3.data(), kLine) == 0);
  ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  Crash();
  DataCheckReport r = Verify();
  EXPECT_EQ(r.lines, 1u);
  EXPECT_TRUE(r.bad.empty());
  EXPECT_EQ(r.sectors_unknown, 4u);

  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_EQ(WriteLine(2, 4), Status::kOk);
  ASSERT_NO_FATAL_FAILURE(Close());
  r = Verify();
  EXPECT_TRUE(r.bad.empty());
  EXPECT_EQ(r.sectors_unknown, 0u);
  EXPECT_EQ(r.sectors_checked, 4u);
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

std::vector<std::uint32_t> Range(std::uint32_t first, std::uint32_t last) {
  std::vector<std::uint32_t> v;
  for (std::uint32_t l = first; l < last; ++l) v.push_back(l);
  return v;
}

bool Has(const std::vector<std::string>& v, const std::string& part) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& s) { return s.find(part) != std::string::npos; });
}

// Three commits, a crash, and 8 bytes of the middle block flipped: replay
// must not stop there as at a torn tail, since a later commit's block is
// valid.
TEST_F(CacheJournalTest, DamagedBlockOfACompletedCommitIsAProblemNotTheEnd) {
  ASSERT_NO_FATAL_FAILURE(ThreeCommitsThenCrash());
  RecoveredMetadata intact = Recover();
  ASSERT_EQ(intact.report.journal_blocks, 3u);  // seq 1, 2, 3
  ASSERT_EQ(DirtyLines(intact), Range(0, 24));
  ASSERT_TRUE(intact.report.problems.empty());

  FlipJournalBlock(2);
  RecoveredMetadata m = Recover();
  ASSERT_EQ(m.report.problems.size(), 1u);
  EXPECT_NE(m.report.problems[0].find("journal block 2 "), std::string::npos)
      << m.report.problems[0];
  EXPECT_NE(m.report.problems[0].find("not a torn tail"), std::string::npos);
  EXPECT_EQ(m.report.journal_damaged_blocks, 1u);
  EXPECT_FALSE(m.clean);
  // The later commit is applied; the damaged block's lines are at risk.
  EXPECT_EQ(DirtyLines(m),
            (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}));
  EXPECT_EQ(m.lines_at_risk, Range(8, 16));
  // Slots named only before the damage are unproven: their data must match.
  for (std::uint64_t s = 0; s < m.dirty.size(); ++s) {
    if (m.dirty[s] == kNotDirty) continue;
    EXPECT_EQ(DataMustMatch(m, s), m.dirty[s] < 8) << "slot " << s;
  }
  auto r = VerifyDirtyData(m, {cache_path_});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->bad.empty());  // their data is what the journal says
}

// A slot that a damaged block freed and that was then reused: the state from
// before the damage names the old line there; the data proves otherwise.
TEST_F(CacheJournalTest, UnprovenSlotWhoseDataChangedIsBad) {
  ASSERT_NO_FATAL_FAILURE(ThreeCommitsThenCrash());
  FlipJournalBlock(2);
  RecoveredMetadata m = Recover();
  ASSERT_EQ(m.report.journal_damaged_blocks, 1u);
  // Slot 3 (line 3, named before the damage) gets other data on the device.
  std::vector<std::byte> other(kLine);
  Fill(other.data(), kLine, 99, 9);
  WriteRaw(geo_.reserve + 3 * kLine, other);
  auto r = VerifyDirtyData(m, {cache_path_}, /*adopt=*/true);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->bad.size(), 1u);
  EXPECT_EQ(r->bad[0].slot, 3u);
  EXPECT_EQ(r->adopted, 0u);  // never adopted where the data must match
}

// The last commit is two blocks; the first of them damaged, the second
// valid: a torn last commit and damage look the same, and nothing after it
// tells which. Not replayed, as a torn commit; a note, not a problem.
TEST_F(CacheJournalTest, IncompleteLastCommitIsANote) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WriteAndFlush(0, 4));  // seq 1
  // 64 records, then 6 x 32 of two-sector rewrites (in place): 256 records
  // in one commit, seq 2 and 3.
  for (std::uint64_t l = 4; l < 20; ++l) ASSERT_EQ(WriteLine(l, 1), Status::kOk);
  for (std::uint64_t v = 2; v <= 7; ++v) {
    for (std::uint64_t l = 4; l < 20; ++l) ASSERT_EQ(WriteLine(l, v, 4096, 8192), Status::kOk);
  }
  ASSERT_EQ(Do(IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  Crash();
  ASSERT_EQ(Recover().report.journal_blocks, 3u);
  FlipJournalBlock(2);
  RecoveredMetadata m = Recover();
  EXPECT_TRUE(m.report.problems.empty()) << m.report.problems.front();
  EXPECT_TRUE(Has(m.report.notes, "journal block 2: checksum mismatch")) << m.report.notes.size();
  EXPECT_TRUE(Has(m.report.notes, "the last commit"));
  EXPECT_EQ(DirtyLines(m), Range(0, 4));
  EXPECT_TRUE(m.unproven.empty());
}

// The newest checkpoint damaged while journal blocks written after it exist:
// it was complete, so falling back to the older copy loses commits.
TEST_F(CacheJournalTest, DamagedNewestCheckpointWithNewerJournalIsAProblem) {
  ASSERT_NO_FATAL_FAILURE(Open());  // checkpoint generation 2, copy A
  ASSERT_NO_FATAL_FAILURE(WriteAndFlush(0, 4));
  Crash();
  std::vector<std::byte> b = ReadRaw(geo_.checkpoint_offset + MetadataGeometry::kBlock, 1);
  b[0] = ~b[0];
  WriteRaw(geo_.checkpoint_offset + MetadataGeometry::kBlock, b);
  RecoveredMetadata m = Recover();
  EXPECT_EQ(m.generation, 1u);
  EXPECT_TRUE(Has(m.report.problems, "block(s) of generation 2, newer than the checkpoint used"))
      << (m.report.problems.empty() ? "no problem" : m.report.problems.front());
  EXPECT_EQ(m.highest_generation, 2u);
  // The newer journal is applied on top of generation 1; the slots it names
  // are proven.
  EXPECT_EQ(DirtyLines(m), Range(0, 4));
  ASSERT_FALSE(m.unproven.empty());
  for (std::uint64_t s = 0; s < m.dirty.size(); ++s) {
    if (m.dirty[s] != kNotDirty) {
      EXPECT_FALSE(DataMustMatch(m, s)) << "slot " << s;
    }
  }
}

// A superblock whose checksum matches but whose fields no volume has: an
// error naming the field, never an abort or an allocation sized by it.
TEST_F(CacheJournalTest, AbsurdSuperblockFieldsAreErrorsNamingTheField) {
  struct Case {
    const char* field;
    void (*edit)(Superblock&);
  };
  const Case cases[] = {
      {"slots", [](Superblock& s) { s.geo = MetadataGeometry::For(s.geo.line_size, 1ull << 34); }},
      {"line_size", [](Superblock& s) { s.geo = MetadataGeometry::For(1ull << 40, s.geo.slots); }},
      {"line_size", [](Superblock& s) { s.geo = MetadataGeometry::For(3 << 12, s.geo.slots); }},
      {"slots",
       [](Superblock& s) {
         s.geo = MetadataGeometry::For(s.geo.line_size, 0);
         s.geo.slots = 0;
       }},
      {"origin_bytes", [](Superblock& s) { s.origin_bytes = 0; }},
      {"origin_bytes", [](Superblock& s) { s.origin_bytes = ~0ull; }},
      {"device_count", [](Superblock& s) { s.device_count = 0; }},
      {"device_index", [](Superblock& s) { s.device_index = 1; }},
      {"placement_run", [](Superblock& s) { s.placement_run = 0; }},
      {"journal_bytes", [](Superblock& s) { s.geo.journal_bytes *= 2; }},
  };
  for (const Case& c : cases) {
    Superblock sb = sb_;
    c.edit(sb);
    ASSERT_TRUE(WriteSuperblock(cache_path_, sb).ok());
    auto r = ReadSuperblock(cache_path_);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().kind, ErrorKind::kInconsistent) << c.field;
    EXPECT_NE(r.error().message.find(cache_path_ + ": superblock " + c.field + ": "),
              std::string::npos)
        << r.error().message;
    EXPECT_FALSE(RecoverMetadata(cache_path_, 0).ok()) << c.field;
  }
}

// Sensible fields, but more slots than the file holds (4 GiB of checkpoints
// for 2^28 - 2 slots): reported before anything that size is allocated.
TEST_F(CacheJournalTest, GeometryBeyondTheFileIsReportedBeforeAllocating) {
  Superblock sb = sb_;
  sb.geo = MetadataGeometry::For(kLine, LineTable::kMaxSlots);
  ASSERT_TRUE(WriteSuperblock(cache_path_, sb).ok());
  ASSERT_TRUE(ReadSuperblock(cache_path_).ok());  // within the format's limits
  auto m = RecoverMetadata(cache_path_, 0);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find(
                "reading the checkpoints: file is " + std::to_string(fs::file_size(cache_path_)) +
                " bytes, needs " +
                std::to_string(sb.geo.checkpoint_offset + 2 * sb.geo.checkpoint_bytes)),
            std::string::npos)
      << m.error().message;
  // Against the volume's devices: the metadata area does not fit device 0.
  auto fits = CheckSuperblockAgainstDevices(sb, {cache_path_}, {origin_path_});
  ASSERT_FALSE(fits.ok());
  EXPECT_NE(fits.error().message.find("the metadata area: file is"), std::string::npos)
      << fits.error().message;
}

TEST_F(CacheJournalTest, SuperblockAgainstTheDevices) {
  EXPECT_TRUE(CheckSuperblockAgainstDevices(sb_, {cache_path_}, {origin_path_}).ok());
  Superblock two = sb_;
  two.device_count = 2;
  auto r = CheckSuperblockAgainstDevices(two, {cache_path_}, {origin_path_});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("superblock device_count: 2, but the volume has 1"),
            std::string::npos)
      << r.error().message;
  Superblock more = sb_;
  more.geo.slots = 16 * kLines;  // more lines than the whole file holds
  r = CheckSuperblockAgainstDevices(more, {cache_path_}, {origin_path_});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("superblock slots: 512 lines"), std::string::npos)
      << r.error().message;
  Superblock big = sb_;
  big.origin_bytes = 2 * kOrigin;
  r = CheckSuperblockAgainstDevices(big, {cache_path_}, {origin_path_});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("superblock origin_bytes: "), std::string::npos);
}

// A checkpoint whose checksum matches but whose content does not make sense
// is reported and not used (not mistaken for a torn write, not trusted).
TEST_F(CacheJournalTest, AbsurdCheckpointIsAProblemNotTrusted) {
  // Generation 2^64 - 1 would win over every later checkpoint forever.
  ASSERT_TRUE(WriteCheckpoint(cache_path_, sb_, ~0ull, 1, {}, {}).ok());
  RecoveredMetadata m = Recover();
  EXPECT_EQ(m.generation, 0u);
  EXPECT_FALSE(m.report.checkpoint_ok[1]);
  EXPECT_TRUE(Has(m.report.problems, "checkpoint B: its checksum matches but generation"))
      << (m.report.problems.empty() ? "no problem" : m.report.problems.front());
  EXPECT_EQ(m.highest_generation, 0u);
  // A next journal seq of 0 (never written), in the newer copy.
  ASSERT_TRUE(WriteCheckpoint(cache_path_, sb_, 3, 0, {}, {}).ok());
  m = Recover();
  EXPECT_TRUE(Has(m.report.problems, "checkpoint B: its checksum matches but next_seq 0"));
  // Both absurd: no valid checkpoint, each copy's reason named.
  ASSERT_TRUE(WriteCheckpoint(cache_path_, sb_, 2, 0, {}, {}).ok());
  auto none = RecoverMetadata(cache_path_, 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no valid checkpoint (A: next_seq 0"), std::string::npos)
      << none.error().message;
}

// A file too short for a region says so, for each region (pread returns 0
// at the end of a file and leaves errno alone: "Success" before).
TEST_F(CacheJournalTest, ShortFilesNameTheirSize) {
  const std::uint64_t cp_end = geo_.checkpoint_offset + 2 * geo_.checkpoint_bytes;
  const std::uint64_t j_end = geo_.journal_offset + geo_.journal_bytes;
  const struct {
    std::uint64_t size;
    std::string want;
  } cases[] = {
      // Shorter and shorter (what is cut off is gone).
      {j_end - 8192, "reading the journal: file is " + std::to_string(j_end - 8192) +
                         " bytes, needs " + std::to_string(j_end)},
      {cp_end - 4096, "reading the checkpoints: file is " + std::to_string(cp_end - 4096) +
                          " bytes, needs " + std::to_string(cp_end)},
      {32768, "reading the superblock: file is 32768 bytes, needs 65536"},
  };
  for (const auto& c : cases) {
    fs::resize_file(cache_path_, c.size);
    auto m = RecoverMetadata(cache_path_, 0);
    ASSERT_FALSE(m.ok()) << c.want;
    EXPECT_EQ(m.error().message, cache_path_ + ": " + c.want);
    EXPECT_EQ(m.error().kind, ErrorKind::kInconsistent);
  }
}

}  // namespace
}  // namespace tierlab
