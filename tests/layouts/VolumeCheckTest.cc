// `tierlab check [--repair]` as a library call (layouts/VolumeCheck.h), on
// real volumes in a temp directory: created, written through the cache
// target on a RealEngine, closed or crashed, then damaged below the cache
// (a lost write, a damaged journal block of a completed commit, a destroyed
// superblock, a missing or short device) and checked and repaired.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cachedev/MetadataFile.h"
#include "cachedev/SlotPlacement.h"
#include "layouts/Layout.h"
#include "layouts/VolumeCheck.h"
#include "layouts/VolumeStore.h"
#include "tests/layouts/WriteBackTestLayout.h"
#include "tests/support/SyncIo.h"
#include "tests/support/TempDir.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/RealEngine.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;
using testing::SubmitAndRun;
using testing::TempDir;
using testing::WriteBackTestLayout;

constexpr std::uint64_t kLine = 4096;

// Bytes of line `line` written in version `version`: never all zeros.
void Fill(std::byte* p, std::uint32_t line, int version) {
  for (std::uint64_t i = 0; i < kLine; ++i) {
    p[i] = static_cast<std::byte>((line * 131 + version * 17 + i * 7) | 1);
  }
}

class VolumeCheckTest : public ::testing::Test {
 protected:
  void SetUp() override { Create(1, "vol"); }

  void Create(int cache_devices, const std::string& name) {
    auto info = CreateVolume(WriteBackTestLayout("vc", cache_devices), name, dir_.Path(name));
    ASSERT_TRUE(info.ok()) << info.error().message;
    info_ = std::move(info).value();
  }

  // Opens the volume and writes each batch of lines (one 4 KiB write per
  // line), each batch followed by a flush: one journal commit per batch.
  // Then a clean close, or a crash (no final checkpoint).
  void Write(const std::vector<std::vector<std::uint32_t>>& batches, bool close) {
    RealEngine engine;
    auto v = OpenVolume(engine, info_, "test");
    ASSERT_TRUE(v.ok()) << v.error().message;
    AlignedBuffer buf(kLine);
    for (const auto& batch : batches) {
      for (std::uint32_t line : batch) {
        Fill(buf.data(), line, 1);
        ASSERT_EQ(SubmitAndRun(engine, (*v)->top(), IoOp::kWrite, line * kLine, kLine, buf.data()),
                  Status::kOk);
      }
      ASSERT_EQ(SubmitAndRun(engine, (*v)->top(), IoOp::kFlush, 0, 0), Status::kOk);
    }
    if (close) {
      ASSERT_EQ((*v)->Close(), Status::kOk);
    }
  }

  // The device and byte offset of the slot that holds `line` dirty.
  std::pair<std::string, std::uint64_t> SlotOf(std::uint32_t line) {
    auto m = ReadVolumeMetadata(info_);
    EXPECT_TRUE(m.ok()) << m.error().message;
    const auto it = std::find(m->dirty.begin(), m->dirty.end(), line);
    EXPECT_NE(it, m->dirty.end()) << "line " << line << " is not dirty";
    const std::uint64_t s = static_cast<std::uint64_t>(it - m->dirty.begin());
    const SlotPlacement place(static_cast<std::uint32_t>(info_.cache_paths.size()),
                              m->sb.placement_run);
    const auto slot = static_cast<std::uint32_t>(s);
    return {info_.cache_paths[place.Device(slot)],
            m->sb.geo.reserve + std::uint64_t{place.Index(slot)} * m->sb.geo.line_size};
  }

  static void Overwrite(const std::string& path, std::uint64_t offset, std::size_t len,
                        std::uint8_t byte) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0) << path;
    const std::vector<std::uint8_t> bytes(len, byte);
    ASSERT_EQ(::pwrite(fd, bytes.data(), len, static_cast<off_t>(offset)),
              static_cast<ssize_t>(len));
    ::close(fd);
  }

  // Flips 8 bytes inside the second record of the newest journal block whose
  // first record names `line`; returns false if there is none.
  bool DamageJournalBlockOf(std::uint32_t line) {
    auto sb = ReadSuperblock(info_.cache_paths[0]);
    if (!sb.ok()) return false;
    const int fd = ::open(info_.cache_paths[0].c_str(), O_RDWR);
    if (fd < 0) return false;
    std::vector<std::byte> block(MetadataGeometry::kBlock);
    std::uint64_t at = 0, gen = 0;
    for (std::uint64_t pos = 0; pos < sb->geo.journal_blocks(); ++pos) {
      const std::uint64_t off = sb->geo.journal_offset + pos * MetadataGeometry::kBlock;
      if (::pread(fd, block.data(), block.size(), static_cast<off_t>(off)) !=
          static_cast<ssize_t>(block.size())) {
        break;
      }
      const BlockView b = DecodeBlock(block.data(), sb->uuid);
      if (b.ours && b.count > 1 && BlockRecord(block.data(), 0).line == line &&
          b.generation >= gen) {
        at = off;
        gen = b.generation;
      }
    }
    bool ok = false;
    if (at != 0) {
      std::uint8_t bytes[8];
      const off_t where = static_cast<off_t>(at + 64 + 16);
      ok = ::pread(fd, bytes, sizeof bytes, where) == sizeof bytes;
      for (auto& c : bytes) c ^= 0xFF;
      ok = ok && ::pwrite(fd, bytes, sizeof bytes, where) == sizeof bytes;
    }
    ::close(fd);
    return ok;
  }

  static bool AnyContains(const std::vector<std::string>& v, const std::string& what) {
    return std::any_of(v.begin(), v.end(),
                       [&](const std::string& s) { return s.find(what) != std::string::npos; });
  }

  TempDir dir_{"tierlab-check"};
  VolumeInfo info_;
};

TEST_F(VolumeCheckTest, CleanVolumeChecksEveryDirtyLine) {
  Write({{1, 2, 3}}, /*close=*/true);
  const VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_TRUE(r.ok());
  EXPECT_FALSE(r.failure);
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  EXPECT_FALSE(r.in_use.locked);
  ASSERT_TRUE(r.metadata);
  EXPECT_TRUE(r.metadata->clean);
  EXPECT_EQ(r.metadata->report.dirty_lines, 3u);
  ASSERT_TRUE(r.data);
  EXPECT_EQ(r.data->lines, 3u);
  EXPECT_EQ(r.data->sectors_checked, 3u);
  EXPECT_TRUE(r.data->bad.empty());
  EXPECT_FALSE(r.repaired);
}

TEST_F(VolumeCheckTest, LostWriteIsAProblemAndRepairDropsThatLineOnly) {
  Write({{5, 6, 7}}, /*close=*/true);
  const auto [dev, off] = SlotOf(6);
  Overwrite(dev, off, kLine, 0);  // the write never reached the cache device

  const VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_FALSE(r.ok());
  ASSERT_TRUE(r.data);
  ASSERT_EQ(r.data->bad.size(), 1u);
  EXPECT_EQ(r.data->bad[0].line, 6u);
  EXPECT_TRUE(AnyContains(r.problems, "line 6 (volume offset 24576, "));
  EXPECT_TRUE(AnyContains(r.problems, "lost or torn write on the cache device"));
  EXPECT_FALSE(r.repaired);

  const VolumeCheckReport fix = CheckVolume(info_, true);
  EXPECT_FALSE(fix.ok()) << "a repair that loses a line still fails";
  EXPECT_TRUE(fix.repaired);
  EXPECT_TRUE(fix.repair_verified);
  EXPECT_TRUE(fix.salvaged);
  ASSERT_EQ(fix.lost.size(), 1u);
  EXPECT_EQ(fix.lost[0].line, 6u);
  EXPECT_EQ(fix.lost[0].first_byte, 6 * kLine);
  EXPECT_EQ(fix.lost[0].last_byte, 7 * kLine - 1);
  EXPECT_EQ(fix.lost[0].why, LostLine::Why::kChecksumFailed);
  EXPECT_EQ(fix.lost_lines, 1u);
  EXPECT_EQ(fix.dropped, 1u);

  const VolumeCheckReport again = CheckVolume(info_, false);
  EXPECT_TRUE(again.ok()) << (again.problems.empty() ? "" : again.problems.front());
  ASSERT_TRUE(again.data);
  EXPECT_EQ(again.data->lines, 2u);
  ASSERT_TRUE(again.metadata);
  EXPECT_EQ(again.metadata->generation, fix.repair_generation);
}

TEST_F(VolumeCheckTest, DamagedJournalBlockOfACompletedCommitLosesOnlyItsLines) {
  Write({{10, 11, 12}, {20, 21, 22}, {30, 31, 32}}, /*close=*/false);  // a crash
  ASSERT_TRUE(CheckVolume(info_, false).ok());
  ASSERT_TRUE(DamageJournalBlockOf(20));

  const VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_FALSE(r.ok());
  ASSERT_TRUE(r.metadata);
  EXPECT_FALSE(r.metadata->clean);
  EXPECT_EQ(r.metadata->report.journal_damaged_blocks, 1u);
  EXPECT_TRUE(AnyContains(r.problems, "a committed block is damaged, not a torn tail"));

  const VolumeCheckReport fix = CheckVolume(info_, true);
  EXPECT_FALSE(fix.ok());
  EXPECT_TRUE(fix.repaired);
  EXPECT_TRUE(fix.salvaged);
  std::vector<std::uint32_t> lost;
  for (const LostLine& l : fix.lost) {
    EXPECT_EQ(l.why, LostLine::Why::kDamagedJournal) << l.line;
    lost.push_back(l.line);
  }
  std::sort(lost.begin(), lost.end());
  // The damaged block's lines whose record still reads: the flipped bytes
  // make the second record's line unreadable.
  EXPECT_TRUE(std::binary_search(lost.begin(), lost.end(), 20u));
  for (std::uint32_t l : lost) EXPECT_TRUE(l >= 20 && l <= 22) << l;
  EXPECT_EQ(fix.lost_lines, lost.size());

  const VolumeCheckReport again = CheckVolume(info_, false);
  EXPECT_TRUE(again.ok()) << (again.problems.empty() ? "" : again.problems.front());
  ASSERT_TRUE(again.metadata);
  // The commits before and after the damaged one are kept.
  for (std::uint32_t l : {10u, 11u, 12u, 30u, 31u, 32u}) {
    EXPECT_NE(std::find(again.metadata->dirty.begin(), again.metadata->dirty.end(), l),
              again.metadata->dirty.end())
        << "line " << l;
  }
}

TEST_F(VolumeCheckTest, MissingAndShortDevicesAreProblems) {
  Write({{1}}, /*close=*/true);
  const std::string origin = info_.all_paths.back();
  fs::resize_file(origin, fs::file_size(origin) / 2);
  VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(AnyContains(r.problems, origin + ": 33554432 bytes, expected 67108864 (truncated?)"));

  fs::remove(origin);
  r = CheckVolume(info_, false);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(AnyContains(r.problems, origin + ": missing"));
}

TEST_F(VolumeCheckTest, RepairRestoresTheSuperblockFromTheSecondCacheDevice) {
  Create(2, "vol2");
  Write({{1, 2}}, /*close=*/true);
  Overwrite(info_.cache_paths[0], 0, 4096, 0);

  const VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.metadata);
  EXPECT_TRUE(AnyContains(r.problems, "bad magic"));
  EXPECT_TRUE(r.superblock_restored_from.empty());

  const VolumeCheckReport fix = CheckVolume(info_, true);
  EXPECT_TRUE(fix.ok()) << (fix.problems.empty() ? "" : fix.problems.front());
  EXPECT_EQ(fix.superblock_restored_from, info_.cache_paths[1]);
  ASSERT_TRUE(fix.metadata);
  EXPECT_EQ(fix.metadata->report.dirty_lines, 2u);
  EXPECT_TRUE(CheckVolume(info_, false).ok());
}

TEST_F(VolumeCheckTest, VolumeInUseIsCheckedButNotRepaired) {
  Write({{1}}, /*close=*/true);
  RealEngine engine;
  auto v = OpenVolume(engine, info_, "serve");
  ASSERT_TRUE(v.ok()) << v.error().message;

  const VolumeCheckReport r = CheckVolume(info_, false);
  EXPECT_TRUE(r.in_use.locked);
  EXPECT_EQ(r.in_use.pid, static_cast<int>(::getpid()));
  EXPECT_EQ(r.in_use.command, "serve");
  EXPECT_FALSE(r.failure);

  const VolumeCheckReport fix = CheckVolume(info_, true);
  ASSERT_TRUE(fix.failure);
  EXPECT_FALSE(fix.ok());
  EXPECT_NE(fix.failure->message.find("; stop it first"), std::string::npos)
      << fix.failure->message;
  EXPECT_FALSE(fix.repaired);
}

TEST_F(VolumeCheckTest, ACopyIsCheckedAsACopyAndNotRepaired) {
  Write({{1}}, /*close=*/true);
  const std::string copy = info_.dir + "-copy";
  fs::copy(info_.dir, copy, fs::copy_options::recursive);
  auto ci = ReadVolumeInfo(copy);
  ASSERT_TRUE(ci.ok()) << ci.error().message;
  ASSERT_EQ(ci->place, VolumePlace::kCopy);

  const VolumeCheckReport r = CheckVolume(*ci, false);
  EXPECT_EQ(r.copy_of, info_.dir);
  EXPECT_TRUE(r.ok());
  const VolumeCheckReport fix = CheckVolume(*ci, true);
  ASSERT_TRUE(fix.failure);
  EXPECT_FALSE(fix.repaired);
  std::error_code ec;
  fs::remove_all(copy, ec);
}

}  // namespace
}  // namespace tierlab
