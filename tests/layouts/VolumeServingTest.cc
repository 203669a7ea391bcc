// The drain and shutdown sequence of a served stack (layouts/VolumeServing.h)
// on real files through a RealEngine: `tierlab flush` on a served volume
// (drain, then a commit a crash sees), and the stop after the last client
// (requests in flight finish, dirty lines reach the origin, the stack is
// flushed, and a failed destage still flushes and is reported).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "layouts/VolumeServing.h"
#include "layouts/VolumeStore.h"
#include "tests/layouts/WriteBackTestLayout.h"
#include "tests/support/SyncIo.h"
#include "tests/support/TempDir.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;
using testing::SubmitAndRun;
using testing::TempDir;
using testing::WriteBackTestLayout;

constexpr std::uint64_t kLine = 4096;

void Fill(std::byte* p, std::uint64_t line) {
  for (std::uint64_t i = 0; i < kLine; ++i) p[i] = static_cast<std::byte>((line * 29 + i) | 1);
}

// True if the file at `path` holds line `line`'s pattern at its offset.
bool FileHoldsLine(const std::string& path, std::uint64_t line) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  std::vector<std::byte> got(kLine), want(kLine);
  Fill(want.data(), line);
  const bool read = ::pread(fd, got.data(), kLine, static_cast<off_t>(line * kLine)) ==
                    static_cast<ssize_t>(kLine);
  ::close(fd);
  return read && got == want;
}

void RunUntil(RealEngine& e, const bool& done) {
  for (int i = 0; i < 1000 && !done; ++i) e.RunUntil(e.Now() + 10 * kMilli);
}

TEST(VolumeServingTest, DrainAndCommitCleansEveryLineAndACrashSeesIt) {
  TempDir dir{"tierlab-serving"};
  auto info = CreateVolume(WriteBackTestLayout("vs"), "vs", dir.Path("vol"));
  ASSERT_TRUE(info.ok()) << info.error().message;
  {
    RealEngine engine;
    auto v = OpenVolume(engine, *info, "serve");
    ASSERT_TRUE(v.ok()) << v.error().message;
    AlignedBuffer buf(kLine);
    for (std::uint64_t line : {3, 4, 5, 9}) {
      Fill(buf.data(), line);
      ASSERT_EQ(SubmitAndRun(engine, (*v)->top(), IoOp::kWrite, line * kLine, kLine, buf.data()),
                Status::kOk);
    }
    ASSERT_EQ(SubmitAndRun(engine, (*v)->top(), IoOp::kFlush, 0, 0), Status::kOk);
    CacheTarget& cache = *(*v)->cache();
    ASSERT_EQ(cache.cache_stats().dirty_lines, 4u);

    std::vector<std::uint64_t> progress;
    bool done = false;
    Status st = Status::kShutdown;
    DrainAndCommit((*v)->top(), cache, [&](std::uint64_t bytes) { progress.push_back(bytes); },
                   [&](Status s) {
                     st = s;
                     done = true;
                   });
    RunUntil(engine, done);
    ASSERT_TRUE(done);
    EXPECT_EQ(st, Status::kOk);
    EXPECT_EQ(cache.cache_stats().dirty_lines, 0u);
    ASSERT_FALSE(progress.empty());
    EXPECT_EQ(progress.back(), 0u);
    EXPECT_LE(progress.front(), 4 * kLine);
    EXPECT_EQ((*v)->journal()->durable_dirty(), 0u);
    // No Close: a crash right after the drain.
  }
  // The clean state was committed: nothing is dirty after recovery, and the
  // origin holds the data.
  auto m = ReadVolumeMetadata(*info);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->report.dirty_lines, 0u);
  for (std::uint64_t line : {3, 4, 5, 9}) {
    EXPECT_TRUE(FileHoldsLine(info->all_paths.back(), line)) << "line " << line;
  }
}

class StopServingTest : public ::testing::Test {
 protected:
  // A plain layout on files in the temp dir, as `tierlab serve LAYOUT` has.
  void Build() {
    BuildOptions bo;
    bo.temp_dir = dir_.Path("");
    bo.keep_files = true;
    auto v = BuildVolume(engine_, WriteBackTestLayout("vs"), bo);
    ASSERT_TRUE(v.ok()) << v.error().message;
    volume_ = std::move(v).value();
    origin_path_ = dir_.Path("vs-capacity0.img");
    ASSERT_TRUE(fs::exists(origin_path_));
  }

  // Submits one write per line and returns without running the engine: the
  // writes are in flight when the stop begins.
  void SubmitWrites(BlockDevice& top, const std::vector<std::uint64_t>& lines) {
    for (std::uint64_t line : lines) {
      bufs_.emplace_back(kLine);
      Fill(bufs_.back().data(), line);
      IoRequest r;
      r.op = IoOp::kWrite;
      r.offset = line * kLine;
      r.length = kLine;
      r.data = bufs_.back().data();
      top.Submit(r, [this](Status st) {
        ++completed_;
        if (st != Status::kOk) ++failed_;
      });
    }
  }

  TempDir dir_{"tierlab-serving"};
  RealEngine engine_;
  Volume volume_;
  std::string origin_path_;
  std::vector<AlignedBuffer> bufs_;
  int completed_ = 0;
  int failed_ = 0;
};

TEST_F(StopServingTest, WaitsForRequestsInFlightThenDrainsToTheOrigin) {
  Build();
  const std::vector<std::uint64_t> lines = {0, 1, 2, 100, 101};
  SubmitWrites(volume_.top(), lines);
  ASSERT_GT(volume_.top().in_flight(), 0u);

  const StopResult r = StopServing(engine_, volume_.top(), volume_.cache(), /*drain=*/true);
  EXPECT_EQ(completed_, 5);
  EXPECT_EQ(failed_, 0);
  EXPECT_EQ(r.destage, Status::kOk);
  EXPECT_EQ(r.flush, Status::kOk);
  EXPECT_EQ(volume_.top().in_flight(), 0u);
  EXPECT_EQ(volume_.cache()->cache_stats().dirty_lines, 0u);
  EXPECT_EQ(volume_.cache()->cache_stats().destage_ops, 2u) << "two coalesced runs";
  volume_ = Volume();  // closes the files
  for (std::uint64_t line : lines) EXPECT_TRUE(FileHoldsLine(origin_path_, line)) << line;
}

TEST_F(StopServingTest, WithoutDrainTheDirtyLinesStayInTheCache) {
  Build();
  SubmitWrites(volume_.top(), {7, 8});
  const StopResult r = StopServing(engine_, volume_.top(), volume_.cache(), /*drain=*/false);
  EXPECT_EQ(completed_, 2);
  EXPECT_EQ(r.destage, Status::kOk);
  EXPECT_EQ(r.flush, Status::kOk);
  EXPECT_EQ(volume_.cache()->cache_stats().dirty_lines, 2u);
  EXPECT_EQ(volume_.cache()->cache_stats().destage_ops, 0u);
  volume_ = Volume();
  EXPECT_FALSE(FileHoldsLine(origin_path_, 7));
}

TEST_F(StopServingTest, AFailedDestageIsReportedAndTheStackIsStillFlushed) {
  // Each file under a fault target: origin writes fail (destage), cache
  // device flushes fail (the final flush, which goes there in write-back).
  FileDeviceOptions o;
  o.create = true;
  o.path = dir_.Path("cache.img");
  o.size = 1 << 20;
  auto cache_file = FileDevice::Open(engine_, "cache", o);
  o.path = dir_.Path("origin.img");
  o.size = 4 << 20;
  auto origin_file = FileDevice::Open(engine_, "origin", o);
  ASSERT_TRUE(cache_file.ok() && origin_file.ok());
  auto origin = std::make_unique<FaultTarget>(engine_, "origin", std::move(origin_file).value());
  auto cache_dev = std::make_unique<FaultTarget>(engine_, "cdev", std::move(cache_file).value());
  FaultTarget* origin_fault = origin.get();
  FaultTarget* cache_fault = cache_dev.get();
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::move(cache_dev));
  CacheConfig cfg;
  cfg.line_size = kLine;
  cfg.write = WriteMode::kWriteBack;
  cfg.high_watermark = 100;
  cfg.low_watermark = 90;
  cfg.with_data = true;
  auto t = CacheTarget::Create(engine_, "cache", std::move(origin), std::move(caches), cfg);
  ASSERT_TRUE(t.ok()) << t.error().message;
  SubmitWrites(**t, {1, 2});
  FaultRule writes;
  writes.op_mask = FaultRule::Ops({IoOp::kWrite});
  origin_fault->SetRules({writes});
  FaultRule flushes;
  flushes.op_mask = FaultRule::Ops({IoOp::kFlush});
  cache_fault->SetRules({flushes});

  const StopResult r = StopServing(engine_, **t, t->get(), /*drain=*/true);
  EXPECT_EQ(completed_, 2);
  EXPECT_EQ(failed_, 0) << "the writes are absorbed by the cache";
  EXPECT_EQ(r.destage, Status::kIoError);
  EXPECT_EQ((*t)->cache_stats().dirty_lines, 2u);
  EXPECT_GT(origin_fault->rules()[0].triggered, 0u);
  EXPECT_GT((*t)->cache_stats().destage_errors, 0u);
  // The flush ran after the failed destage, and its failure is its own.
  EXPECT_EQ(r.flush, Status::kIoError);
  EXPECT_EQ(cache_fault->rules()[0].triggered, 1u);
}

}  // namespace
}  // namespace tierlab
