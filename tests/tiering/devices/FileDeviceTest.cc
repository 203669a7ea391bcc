#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/devices/FileLock.h"
#include "tiering/devices/UringQueue.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kBlock = 4096;

// A fresh directory per test under `parent`, removed at the end.
class TempDir {
 public:
  explicit TempDir(const fs::path& parent) {
    std::string tmpl = (parent / "tierlab-filedev-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  bool ok() const { return !path_.empty(); }
  fs::path File(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

void Fill(AlignedBuffer& b, std::uint8_t seed) {
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = std::byte(seed + i * 7);
}

// Every test runs on both engines (FileEngine).
class FileDeviceTest : public ::testing::TestWithParam<FileEngine> {
 protected:
  FileDeviceTest() : dir_(fs::temp_directory_path()) {}

  // Where the kernel offers no io_uring (or TIERLAB_NO_IO_URING is set), its
  // half of the suite is skipped with the reason; libaio's half still runs,
  // and FileDeviceEngineTest checks the fallback.
  void SetUp() override {
    if (GetParam() != FileEngine::kIoUring) return;
    auto ring = UringQueue::Open(-1, 4);
    if (!ring.ok()) GTEST_SKIP() << "no io_uring here: " << ring.error().message;
  }

  FileDeviceOptions Opts() const {
    FileDeviceOptions o;
    o.engine = GetParam();
    return o;
  }

  std::unique_ptr<FileDevice> Make(std::uint64_t size, std::uint32_t qd = 32) {
    FileDeviceOptions o = Opts();
    o.path = dir_.File("dev.img").string();
    o.create = true;
    o.size = size;
    o.queue_depth = qd;
    auto dev = FileDevice::Open(engine_, "dev", o);
    EXPECT_TRUE(dev.ok()) << (dev.ok() ? "" : dev.error().message);
    return dev.ok() ? std::move(dev).value() : nullptr;
  }

  // Submits one request, runs the engine to idle, returns its status.
  Status Do(BlockDevice& dev, IoOp op, std::uint64_t off, std::uint64_t len, std::byte* data,
            std::uint32_t flags = 0) {
    IoRequest r;
    r.op = op;
    r.offset = off;
    r.length = len;
    r.data = data;
    r.flags = flags;
    Status got = Status::kShutdown;
    int calls = 0;
    dev.Submit(r, [&](Status s) {
      got = s;
      ++calls;
    });
    EXPECT_EQ(calls, 0) << "completed inside Submit";
    engine_.Run();
    EXPECT_EQ(calls, 1);
    return got;
  }

  TempDir dir_;
  RealEngine engine_;
};

TEST_P(FileDeviceTest, CreatesASparseFileOfTheRequestedSizeThatReadsZeros) {
  ASSERT_TRUE(dir_.ok());
  auto dev = Make(64 << 20);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->Size(), 64u << 20);
  EXPECT_EQ(dev->BlockSize(), kBlock);
  EXPECT_TRUE(dev->RequiresData());
  EXPECT_EQ(dev->Kind(), "file");
  EXPECT_FALSE(dev->is_block_device());
  struct stat st;
  ASSERT_EQ(stat(dev->path().c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 64u << 20);
  EXPECT_LT(static_cast<std::uint64_t>(st.st_blocks) * 512, 1u << 20);  // sparse
  AlignedBuffer b(kBlock);
  Fill(b, 1);
  ASSERT_EQ(Do(*dev, IoOp::kRead, 10 * kBlock, kBlock, b.data()), Status::kOk);
  for (std::size_t i = 0; i < kBlock; ++i) ASSERT_EQ(b.data()[i], std::byte{0}) << i;
}

TEST_P(FileDeviceTest, WriteThenReadRoundTripsAndLandsInTheFile) {
  auto dev = Make(1 << 20);
  ASSERT_NE(dev, nullptr);
  AlignedBuffer w(3 * kBlock), r(3 * kBlock);
  Fill(w, 42);
  ASSERT_EQ(Do(*dev, IoOp::kWrite, 5 * kBlock, w.size(), w.data()), Status::kOk);
  ASSERT_EQ(Do(*dev, IoOp::kRead, 5 * kBlock, r.size(), r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), w.size()), 0);
  // Independently of the device: the bytes are in the file at that offset.
  std::vector<std::byte> direct(w.size());
  int fd = open(dev->path().c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pread(fd, direct.data(), direct.size(), 5 * kBlock),
            static_cast<ssize_t>(direct.size()));
  close(fd);
  EXPECT_EQ(std::memcmp(w.data(), direct.data(), w.size()), 0);
  const DeviceStats s = dev->stats();
  EXPECT_EQ(s.write_ops, 1u);
  EXPECT_EQ(s.read_ops, 1u);
  EXPECT_EQ(s.errors, 0u);
  EXPECT_EQ(dev->in_flight(), 0u);
}

TEST_P(FileDeviceTest, RequestsBeyondTheQueueDepthWaitAndAllComplete) {
  constexpr int kQd = 4, kN = 64;
  auto dev = Make(kN * kBlock, kQd);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->queue_depth(), static_cast<std::uint32_t>(kQd));
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < kN; ++i) {
    bufs.emplace_back(kBlock);
    Fill(bufs.back(), static_cast<std::uint8_t>(i));
  }
  std::vector<int> order;
  int ok = 0;
  for (int i = 0; i < kN; ++i) {
    IoRequest r{IoOp::kWrite, 0, static_cast<std::uint64_t>(i) * kBlock, kBlock, bufs[i].data()};
    dev->Submit(r, [&, i](Status s) {
      ok += s == Status::kOk;
      order.push_back(i);
    });
  }
  EXPECT_EQ(dev->waiting(), static_cast<std::size_t>(kN - kQd));
  EXPECT_EQ(dev->in_flight(), static_cast<std::uint32_t>(kN));
  engine_.Run();
  EXPECT_EQ(ok, kN);
  EXPECT_EQ(order.size(), static_cast<std::size_t>(kN));
  EXPECT_EQ(dev->waiting(), 0u);
  // Every block holds its own pattern.
  AlignedBuffer r(kBlock);
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(Do(*dev, IoOp::kRead, static_cast<std::uint64_t>(i) * kBlock, kBlock, r.data()),
              Status::kOk);
    ASSERT_EQ(std::memcmp(r.data(), bufs[i].data(), kBlock), 0) << "block " << i;
  }
}

// A turn's requests go out together, or in batches of submit_batch.
TEST_P(FileDeviceTest, RequestsSubmittedInOneTurnGoOutInOneCallOrInBatches) {
  for (const std::uint32_t batch : {0u, 8u, 5u}) {
    FileDeviceOptions o = Opts();
    o.path = dir_.File("batch" + std::to_string(batch) + ".img").string();
    o.create = true;
    o.size = 1 << 20;
    o.submit_batch = batch;
    auto dev = FileDevice::Open(engine_, "dev", o);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    EXPECT_EQ((*dev)->submit_batch(), batch);
    std::vector<AlignedBuffer> bufs;
    for (int i = 0; i < 32; ++i) bufs.emplace_back(kBlock);
    int ok = 0;
    for (int i = 0; i < 32; ++i) {
      IoRequest r{IoOp::kRead, 0, static_cast<std::uint64_t>(i) * kBlock, kBlock, bufs[i].data()};
      (*dev)->Submit(r, [&](Status s) { ok += s == Status::kOk; });
    }
    engine_.Run();
    EXPECT_EQ(ok, 32) << "batch " << batch;
    // 32 in one call; 4 of 8; 6 of 5 and a last one of 2.
    const std::uint64_t calls = batch == 0 ? 1 : (32 + batch - 1) / batch;
    EXPECT_EQ((*dev)->submit_calls(), calls) << "batch " << batch;
  }
}

// Unset, the batch is the whole turn where the kernel completes requests in
// the call (buffered I/O here) and kDefaultSubmitBatch for direct I/O.
TEST_P(FileDeviceTest, TheDefaultBatchFollowsHowTheKernelCompletes) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("buffered.img").string();
  o.create = true;
  o.size = 1 << 20;
  o.direct = false;
  auto buffered = FileDevice::Open(engine_, "b", o);
  ASSERT_TRUE(buffered.ok()) << buffered.error().message;
  EXPECT_EQ((*buffered)->submit_batch(), 0u);
  auto direct = Make(1 << 20);
  ASSERT_NE(direct, nullptr);
  // (A temp dir on tmpfs is a memory filesystem: mapped, and batch 0.)
  EXPECT_EQ(direct->submit_batch(),
            direct->buffered() || direct->mapped() ? 0u : kDefaultSubmitBatch);
}

TEST_P(FileDeviceTest, FlushAndFuaWritesCompleteOk) {
  auto dev = Make(1 << 20);
  ASSERT_NE(dev, nullptr);
  AlignedBuffer w(kBlock), r(kBlock);
  Fill(w, 9);
  EXPECT_EQ(Do(*dev, IoOp::kWrite, 0, kBlock, w.data(), kIoFua), Status::kOk);
  EXPECT_EQ(Do(*dev, IoOp::kFlush, 0, 0, nullptr), Status::kOk);
  ASSERT_EQ(Do(*dev, IoOp::kRead, 0, kBlock, r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), kBlock), 0);
  EXPECT_EQ(dev->stats().flush_ops, 1u);

  // A flush among in-flight writes completes too.
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < 8; ++i) bufs.emplace_back(kBlock);
  int ok = 0;
  for (int i = 0; i < 8; ++i) {
    dev->Submit(
        IoRequest{IoOp::kWrite, 0, static_cast<std::uint64_t>(i) * kBlock, kBlock, bufs[i].data()},
        [&](Status s) { ok += s == Status::kOk; });
    if (i == 4) dev->Submit(IoRequest{IoOp::kFlush}, [&](Status s) { ok += s == Status::kOk; });
  }
  engine_.Run();
  EXPECT_EQ(ok, 9);
}

TEST_P(FileDeviceTest, DiscardedRangeReadsBackZerosAndNeighboursKeepTheirData) {
  auto dev = Make(1 << 20);
  ASSERT_NE(dev, nullptr);
  AlignedBuffer w(4 * kBlock), r(4 * kBlock);
  Fill(w, 3);
  ASSERT_EQ(Do(*dev, IoOp::kWrite, 0, w.size(), w.data()), Status::kOk);
  const Status st = Do(*dev, IoOp::kDiscard, kBlock, 2 * kBlock, nullptr);
  if (st == Status::kNotSupported) GTEST_SKIP() << "filesystem refuses hole punching";
  ASSERT_EQ(st, Status::kOk);
  ASSERT_EQ(Do(*dev, IoOp::kRead, 0, r.size(), r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(r.data(), w.data(), kBlock), 0);
  for (std::size_t i = kBlock; i < 3 * kBlock; ++i) ASSERT_EQ(r.data()[i], std::byte{0}) << i;
  EXPECT_EQ(std::memcmp(r.data() + 3 * kBlock, w.data() + 3 * kBlock, kBlock), 0);
  EXPECT_EQ(dev->stats().discard_bytes, 2 * kBlock);
}

TEST_P(FileDeviceTest, MisalignedOffsetLengthOrBufferCompleteWithEinval) {
  auto dev = Make(1 << 20);
  ASSERT_NE(dev, nullptr);
  AlignedBuffer b(2 * kBlock);
  Fill(b, 5);
  EXPECT_EQ(Do(*dev, IoOp::kWrite, 512, kBlock, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kWrite, 0, 100, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kWrite, 0, kBlock, b.data() + 1), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kRead, 0, kBlock, b.data() + 512), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kRead, 0, kBlock, nullptr), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kDiscard, 100, kBlock, nullptr), Status::kInvalid);
  EXPECT_EQ(dev->stats().errors, 6u);
  // Nothing was written: block 0 still reads zeros.
  AlignedBuffer r(kBlock);
  Fill(r, 1);
  ASSERT_EQ(Do(*dev, IoOp::kRead, 0, kBlock, r.data()), Status::kOk);
  for (std::size_t i = 0; i < kBlock; ++i) ASSERT_EQ(r.data()[i], std::byte{0});
}

TEST_P(FileDeviceTest, OffsetsPastTheEndCompleteWithEinval) {
  auto dev = Make(16 * kBlock);
  ASSERT_NE(dev, nullptr);
  AlignedBuffer b(2 * kBlock);
  EXPECT_EQ(Do(*dev, IoOp::kRead, 16 * kBlock, kBlock, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kRead, 15 * kBlock, 2 * kBlock, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kWrite, 1ull << 40, kBlock, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(*dev, IoOp::kRead, 15 * kBlock, kBlock, b.data()), Status::kOk);
  struct stat st;
  ASSERT_EQ(stat(dev->path().c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 16 * kBlock);  // not extended
}

TEST_P(FileDeviceTest, ZeroLengthFileIsRefusedAtOpenNamingThePath) {
  const std::string path = dir_.File("empty.img").string();
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  close(fd);
  FileDeviceOptions o = Opts();
  o.path = path;
  auto dev = FileDevice::Open(engine_, "empty", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find(path), std::string::npos) << dev.error().message;
  EXPECT_NE(dev.error().message.find("smaller than one block"), std::string::npos);
  // Shorter than a block: same refusal.
  ASSERT_EQ(truncate(path.c_str(), 1000), 0);
  EXPECT_FALSE(FileDevice::Open(engine_, "tiny", o).ok());
}

TEST_P(FileDeviceTest, MissingPathIsAnErrorNamingThePath) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("no-such-dir/missing.img").string();
  auto dev = FileDevice::Open(engine_, "missing", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find(o.path), std::string::npos) << dev.error().message;
  EXPECT_NE(dev.error().message.find("No such file"), std::string::npos) << dev.error().message;
  EXPECT_EQ(dev.error().kind, ErrorKind::kInput);
  o.path = dir_.File("missing.img").string();  // create=false: not created
  EXPECT_FALSE(FileDevice::Open(engine_, "missing", o).ok());
  EXPECT_FALSE(fs::exists(o.path));
}

TEST_P(FileDeviceTest, BadOptionsAndNonFilesAreRefused) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("x.img").string();
  o.create = true;
  o.size = 1 << 20;
  o.queue_depth = 0;
  EXPECT_FALSE(FileDevice::Open(engine_, "x", o).ok());
  o.queue_depth = 8;
  o.read_only = true;
  EXPECT_FALSE(FileDevice::Open(engine_, "x", o).ok());
  FileDeviceOptions d = Opts();
  d.path = fs::temp_directory_path().string();  // a directory
  auto dev = FileDevice::Open(engine_, "dir", d);
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find(d.path), std::string::npos);
}

TEST_P(FileDeviceTest, FileOfAnOpenDeviceIsRefusedToASecondOneUntilItCloses) {
  auto first = Make(1 << 20);
  ASSERT_NE(first, nullptr);
  FileDeviceOptions o = Opts();
  o.path = dir_.File("dev.img").string();
  o.lock_wait_ms = 0;  // the holder is alive: no point waiting for it
  auto second = FileDevice::Open(engine_, "second", o);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ErrorKind::kInUse);
  EXPECT_EQ(second.error().message, o.path + ": in use by another process (locked)");
  o.read_only = true;  // a reader is kept out of a written file too
  EXPECT_FALSE(FileDevice::Open(engine_, "reader", o).ok());
  first.reset();
  EXPECT_TRUE(FileDevice::Open(engine_, "reader", o).ok());
}

TEST_P(FileDeviceTest, DeviceShorterThanItsMinimumIsRefusedAndNotGrown) {
  { ASSERT_NE(Make(1 << 20), nullptr); }
  FileDeviceOptions o = Opts();
  o.path = dir_.File("dev.img").string();
  o.min_size = 2 << 20;
  auto dev = FileDevice::Open(engine_, "short", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().kind, ErrorKind::kInconsistent);
  EXPECT_NE(dev.error().message.find(o.path + ": 1048576 bytes, shorter than the 2097152"),
            std::string::npos)
      << dev.error().message;
  EXPECT_EQ(fs::file_size(o.path), 1u << 20);
  o.min_size = 1 << 20;
  EXPECT_TRUE(FileDevice::Open(engine_, "exact", o).ok());
}

TEST_P(FileDeviceTest, HeadCheckSeesTheFirstBytesBeforeTheFileIsExtended) {
  const std::string path = dir_.File("head.img").string();
  {
    const int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "TLVOLSB1", 8), 8);
    ASSERT_EQ(ftruncate(fd, kBlock), 0);
    close(fd);
  }
  FileDeviceOptions o = Opts();
  o.path = path;
  o.create = true;
  o.size = 1 << 20;
  std::string seen;
  o.check_head = [&](const std::byte* head, std::size_t n) -> Expected<void> {
    seen.assign(reinterpret_cast<const char*>(head), n);
    return MakeError("refused", ErrorKind::kInUse);
  };
  auto dev = FileDevice::Open(engine_, "head", o);
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message, "refused");
  ASSERT_EQ(seen.size(), kBlock);
  EXPECT_EQ(seen.substr(0, 8), "TLVOLSB1");
  EXPECT_EQ(fs::file_size(path), kBlock);  // refused before the extension
  o.check_head = [](const std::byte*, std::size_t) -> Expected<void> { return {}; };
  ASSERT_TRUE(FileDevice::Open(engine_, "head", o).ok());
  EXPECT_EQ(fs::file_size(path), 1u << 20);
}

TEST_P(FileDeviceTest, ReadOnlyDeviceRefusesWritesAndDiscardsButReads) {
  { ASSERT_NE(Make(1 << 20), nullptr); }
  FileDeviceOptions o = Opts();
  o.path = dir_.File("dev.img").string();
  o.read_only = true;
  auto dev = FileDevice::Open(engine_, "ro", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_TRUE((*dev)->read_only());
  AlignedBuffer b(kBlock);
  EXPECT_EQ(Do(**dev, IoOp::kWrite, 0, kBlock, b.data()), Status::kInvalid);
  EXPECT_EQ(Do(**dev, IoOp::kDiscard, 0, kBlock, nullptr), Status::kInvalid);
  EXPECT_EQ(Do(**dev, IoOp::kRead, 0, kBlock, b.data()), Status::kOk);
}

TEST_P(FileDeviceTest, BufferedModeOnRequestStillMovesData) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("buffered.img").string();
  o.create = true;
  o.size = 1 << 20;
  o.direct = false;
  auto dev = FileDevice::Open(engine_, "buf", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_TRUE((*dev)->buffered());
  AlignedBuffer w(kBlock), r(kBlock);
  Fill(w, 77);
  ASSERT_EQ(Do(**dev, IoOp::kWrite, kBlock, kBlock, w.data()), Status::kOk);
  ASSERT_EQ(Do(**dev, IoOp::kRead, kBlock, kBlock, r.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), kBlock), 0);
}

TEST_P(FileDeviceTest, BufferedDeviceLearnsToCompleteInlineAndStillDeliversEverything) {
  // Buffered libaio reads and writes complete inside io_submit, so after the
  // first turn the device drops the eventfd; every later request must still
  // complete, including those that wait for a queue slot. (io_uring has no
  // such mode: the ring's descriptor wakes the loop; the rest holds.)
  const bool libaio = GetParam() == FileEngine::kLibaio;
  FileDeviceOptions o = Opts();
  o.path = dir_.File("inline.img").string();
  o.create = true;
  o.size = 1 << 20;
  o.direct = false;
  o.queue_depth = 4;
  auto dev = FileDevice::Open(engine_, "inl", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_FALSE((*dev)->completes_inline());
  AlignedBuffer w(kBlock);
  Fill(w, 5);
  ASSERT_EQ(Do(**dev, IoOp::kWrite, 0, kBlock, w.data()), Status::kOk);
  EXPECT_EQ((*dev)->completes_inline(), libaio);
  constexpr int kN = 40;
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < kN; ++i) {
    bufs.emplace_back(kBlock);
    Fill(bufs.back(), static_cast<std::uint8_t>(i));
  }
  int ok = 0;
  for (int i = 0; i < kN; ++i) {
    (*dev)->Submit(IoRequest{IoOp::kWrite, 0, i * kBlock, kBlock, bufs[i].data()},
                   [&](Status s) { ok += s == Status::kOk; });
  }
  engine_.Run();
  EXPECT_EQ(ok, kN);
  ok = 0;
  std::vector<AlignedBuffer> back;
  for (int i = 0; i < kN; ++i) back.emplace_back(kBlock);
  for (int i = 0; i < kN; ++i) {
    (*dev)->Submit(IoRequest{IoOp::kRead, 0, i * kBlock, kBlock, back[i].data()},
                   [&](Status s) { ok += s == Status::kOk; });
  }
  engine_.Run();
  EXPECT_EQ(ok, kN);
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(std::memcmp(bufs[i].data(), back[i].data(), kBlock), 0) << "block " << i;
  }
  // A flush still goes to a kernel worker with the eventfd, and completes.
  EXPECT_EQ(Do(**dev, IoOp::kFlush, 0, 0, nullptr), Status::kOk);
}

// A holder that lets go within the wait (as a killed process's io_uring
// requests do once the kernel finishes them) does not make the file "in use".
TEST_P(FileDeviceTest, ALockReleasedWithinTheWaitIsTaken) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("held.img").string();
  o.create = true;
  o.size = 1 << 20;
  const int holder = open(o.path.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(holder, 0);
  ASSERT_TRUE(LockWholeFile(holder, o.path, LockMode::kExclusive).ok());
  o.lock_wait_ms = 0;
  EXPECT_FALSE(FileDevice::Open(engine_, "now", o).ok());
  o.lock_wait_ms = 10000;
  std::thread closer([holder] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    close(holder);  // the lock goes with the description
  });
  auto later = FileDevice::Open(engine_, "later", o);
  closer.join();
  EXPECT_TRUE(later.ok()) << later.error().message;
}

TEST_P(FileDeviceTest, TheEngineIsTheOneAskedFor) {
  auto dev = Make(1 << 20);
  ASSERT_NE(dev, nullptr);
  EXPECT_EQ(dev->engine(), GetParam());
}

// Flushes and (with io_uring) discards run in the kernel's workers: reads
// submitted beside them all complete, in any order, in the same run.
TEST_P(FileDeviceTest, FlushesAndDiscardsAmongReadsAllComplete) {
  auto dev = Make(1 << 20, 8);
  ASSERT_NE(dev, nullptr);
  std::vector<AlignedBuffer> bufs;
  for (int i = 0; i < 32; ++i) bufs.emplace_back(kBlock);
  int ok = 0, flushes = 0, discards = 0;
  for (int i = 0; i < 32; ++i) {
    dev->Submit(IoRequest{IoOp::kRead, 0, i * kBlock, kBlock, bufs[i].data()},
                [&](Status s) { ok += s == Status::kOk; });
    if (i % 8 == 0) {
      dev->Submit(IoRequest{IoOp::kFlush}, [&](Status s) { flushes += s == Status::kOk; });
      dev->Submit(IoRequest{IoOp::kDiscard, 0, (128 + i) * kBlock, kBlock, nullptr},
                  [&](Status s) { discards += s == Status::kOk || s == Status::kNotSupported; });
    }
  }
  engine_.Run();
  EXPECT_EQ(ok, 32);
  EXPECT_EQ(flushes, 4);
  EXPECT_EQ(discards, 4);
  EXPECT_EQ(dev->in_flight(), 0u);
}

// The verification harness on the file itself: random reads, writes,
// flushes and discards of 4k-64k, 16 in flight, every read checked, with a
// queue of 8 so some requests wait for a slot, and batches of 3.
TEST_P(FileDeviceTest, PassesTheVerificationHarness) {
  FileDeviceOptions o = Opts();
  o.path = dir_.File("verify.img").string();
  o.create = true;
  o.size = 8 << 20;
  o.queue_depth = 8;
  o.submit_batch = 3;
  auto dev = FileDevice::Open(engine_, "verify", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  testing::VerifyOptions v;
  v.ops = 3000;
  v.seed = 19;
  v.max_in_flight = 16;
  v.flush_share = 0.04;  // and 6 % discards
  const testing::VerifyResult r = testing::RunVerify(engine_, **dev, v);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.reads, 1000u);
  EXPECT_GT(r.writes, 1000u);
  EXPECT_GT(r.flushes, 50u);
  EXPECT_GT(r.discards, 50u);
}

INSTANTIATE_TEST_SUITE_P(Engines, FileDeviceTest,
                         ::testing::Values(FileEngine::kIoUring, FileEngine::kLibaio),
                         [](const ::testing::TestParamInfo<FileEngine>& i) {
                           return std::string(ToString(i.param));
                         });

// `auto` takes io_uring where the kernel offers it; with io_uring off (the
// environment switch stands in for a kernel without it) it falls back to
// libaio and says so in one line, once per process; asked for by name, an
// unavailable io_uring is an error naming the file.
TEST(FileDeviceEngineTest, AutoFallsBackToLibaioWithOneLineWhenIoUringIsOff) {
  TempDir dir(fs::temp_directory_path());
  ASSERT_TRUE(dir.ok());
  RealEngine engine;
  FileDeviceOptions o;
  o.path = dir.File("a.img").string();
  o.create = true;
  o.size = 1 << 20;
  {
    auto dev = FileDevice::Open(engine, "a", o);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    if ((*dev)->engine() != FileEngine::kIoUring) GTEST_SKIP() << "this kernel offers no io_uring";
  }
  ASSERT_EQ(setenv("TIERLAB_NO_IO_URING", "1", 1), 0);
  ::testing::internal::CaptureStderr();
  auto first = FileDevice::Open(engine, "a", o);
  FileDeviceOptions o2 = o;
  o2.path = dir.File("b.img").string();
  auto second = FileDevice::Open(engine, "b", o2);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ((*first)->engine(), FileEngine::kLibaio);
  EXPECT_EQ((*second)->engine(), FileEngine::kLibaio);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_NE(err.find(o.path), std::string::npos) << err;
  EXPECT_NE(err.find("TIERLAB_NO_IO_URING"), std::string::npos) << err;
  EXPECT_NE(err.find("using libaio"), std::string::npos) << err;
  // The fallback still moves data.
  AlignedBuffer w(kBlock), r(kBlock);
  Fill(w, 8);
  Status ws = Status::kShutdown, rs = Status::kShutdown;
  (*first)->Submit(IoRequest{IoOp::kWrite, 0, 0, kBlock, w.data()}, [&](Status s) { ws = s; });
  engine.Run();
  (*first)->Submit(IoRequest{IoOp::kRead, 0, 0, kBlock, r.data()}, [&](Status s) { rs = s; });
  engine.Run();
  EXPECT_EQ(ws, Status::kOk);
  EXPECT_EQ(rs, Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), kBlock), 0);
  first->reset();

  o.engine = FileEngine::kIoUring;
  auto named = FileDevice::Open(engine, "a", o);
  unsetenv("TIERLAB_NO_IO_URING");
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.error().message.find(o.path), 0u) << named.error().message;
  EXPECT_NE(named.error().message.find("engine io_uring"), std::string::npos)
      << named.error().message;
}

// Tests on /dev/shm (tmpfs), where FileDevice maps files; skipped where
// /dev/shm is missing or not writable.
class FileDeviceShmTest : public ::testing::Test {
 protected:
  FileDeviceShmTest() : dir_("/dev/shm") {}
  void SetUp() override {
    if (!dir_.ok()) GTEST_SKIP() << "/dev/shm is missing or not writable";
  }
  FileDeviceOptions Options(const std::string& file, std::uint64_t size) const {
    FileDeviceOptions o;
    o.path = dir_.File(file).string();
    o.create = true;
    o.size = size;
    return o;
  }

  TempDir dir_;
  RealEngine engine_;
};

TEST_F(FileDeviceShmTest, RoundTripOnDevShm) {
  FileDeviceOptions o = Options("shm.img", 4 << 20);
  auto dev = FileDevice::Open(engine_, "shm", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  AlignedBuffer w(8 * kBlock), r(8 * kBlock);
  Fill(w, 11);
  Status ws = Status::kShutdown, rs = Status::kShutdown;
  (*dev)->Submit(IoRequest{IoOp::kWrite, 0, 64 * kBlock, w.size(), w.data()},
                 [&](Status s) { ws = s; });
  engine_.Run();
  (*dev)->Submit(IoRequest{IoOp::kRead, 0, 64 * kBlock, r.size(), r.data()},
                 [&](Status s) { rs = s; });
  engine_.Run();
  EXPECT_EQ(ws, Status::kOk);
  EXPECT_EQ(rs, Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), w.size()), 0);
}

TEST_F(FileDeviceShmTest, MemoryFileIsMappedAndCoherentWithTheFileBothWays) {
  FileDeviceOptions o = Options("mapped.img", 1 << 20);
  auto dev = FileDevice::Open(engine_, "shm", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  ASSERT_TRUE((*dev)->mapped());
  AlignedBuffer w(2 * kBlock), r(2 * kBlock);
  Fill(w, 23);
  Status ws = Status::kShutdown;
  int calls = 0;
  (*dev)->Submit(IoRequest{IoOp::kWrite, kIoFua, 3 * kBlock, w.size(), w.data()}, [&](Status s) {
    ws = s;
    ++calls;
  });
  EXPECT_EQ(calls, 0) << "completed inside Submit";
  engine_.Run();
  ASSERT_EQ(calls, 1);
  EXPECT_EQ(ws, Status::kOk);
  // The write is in the file, as pread sees it.
  const int fd = open(o.path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  std::vector<std::byte> seen(w.size());
  ASSERT_EQ(pread(fd, seen.data(), seen.size(), 3 * kBlock), static_cast<ssize_t>(seen.size()));
  EXPECT_EQ(std::memcmp(seen.data(), w.data(), w.size()), 0);
  // A pwrite to the file is what the device reads back.
  Fill(w, 99);
  ASSERT_EQ(pwrite(fd, w.data(), w.size(), 8 * kBlock), static_cast<ssize_t>(w.size()));
  close(fd);
  Status rs = Status::kShutdown;
  (*dev)->Submit(IoRequest{IoOp::kRead, 0, 8 * kBlock, r.size(), r.data()},
                 [&](Status s) { rs = s; });
  engine_.Run();
  EXPECT_EQ(rs, Status::kOk);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), w.size()), 0);
  // Flush and out-of-range requests keep their usual answers.
  Status fl = Status::kShutdown, past = Status::kShutdown;
  (*dev)->Submit(IoRequest{IoOp::kFlush}, [&](Status s) { fl = s; });
  (*dev)->Submit(IoRequest{IoOp::kRead, 0, 1 << 20, kBlock, r.data()}, [&](Status s) { past = s; });
  engine_.Run();
  EXPECT_EQ(fl, Status::kOk);
  EXPECT_EQ(past, Status::kInvalid);
}

// A store through the mapping into a hole a full tmpfs cannot back would be a
// SIGBUS: the mapped file is allocated in full when opened, and a discard
// zeroes in place instead of punching a hole.
TEST_F(FileDeviceShmTest, MappedFileIsFullyAllocatedAndDiscardKeepsItSo) {
  FileDeviceOptions o = Options("reserved.img", 1 << 20);
  auto dev = FileDevice::Open(engine_, "shm", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  ASSERT_TRUE((*dev)->mapped());
  auto allocated = [&] {
    struct stat st {};
    EXPECT_EQ(stat(o.path.c_str(), &st), 0);
    return static_cast<std::uint64_t>(st.st_blocks) * 512;
  };
  EXPECT_GE(allocated(), o.size);
  AlignedBuffer w(4 * kBlock), r(4 * kBlock);
  Fill(w, 5);
  Status ws = Status::kShutdown, ds = Status::kShutdown, rs = Status::kShutdown;
  (*dev)->Submit(IoRequest{IoOp::kWrite, 0, 0, w.size(), w.data()}, [&](Status s) { ws = s; });
  engine_.Run();
  (*dev)->Submit(IoRequest{IoOp::kDiscard, 0, kBlock, 2 * kBlock, nullptr},
                 [&](Status s) { ds = s; });
  engine_.Run();
  (*dev)->Submit(IoRequest{IoOp::kRead, 0, 0, r.size(), r.data()}, [&](Status s) { rs = s; });
  engine_.Run();
  ASSERT_EQ(ws, Status::kOk);
  ASSERT_EQ(ds, Status::kOk);
  ASSERT_EQ(rs, Status::kOk);
  EXPECT_EQ(std::memcmp(r.data(), w.data(), kBlock), 0);  // before the discard
  for (std::size_t i = kBlock; i < 3 * kBlock; ++i) ASSERT_EQ(r.data()[i], std::byte{0}) << i;
  EXPECT_EQ(std::memcmp(r.data() + 3 * kBlock, w.data() + 3 * kBlock, kBlock), 0);
  EXPECT_GE(allocated(), o.size);  // no hole
}

TEST_F(FileDeviceShmTest, MappingCanBeTurnedOffAndLibaioThenCompletesInline) {
  FileDeviceOptions o = Options("aio.img", 1 << 20);
  o.map_memory_files = false;
  o.engine = FileEngine::kLibaio;
  auto dev = FileDevice::Open(engine_, "shm", o);
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_FALSE((*dev)->mapped());
  AlignedBuffer w(kBlock), r(kBlock);
  Fill(w, 42);
  int ok = 0;
  (*dev)->Submit(IoRequest{IoOp::kWrite, 0, 0, kBlock, w.data()},
                 [&](Status s) { ok += s == Status::kOk; });
  engine_.Run();
  EXPECT_TRUE((*dev)->completes_inline());
  EXPECT_EQ((*dev)->submit_calls(), 1u);
  (*dev)->Submit(IoRequest{IoOp::kRead, 0, 0, kBlock, r.data()},
                 [&](Status s) { ok += s == Status::kOk; });
  engine_.Run();
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(std::memcmp(w.data(), r.data(), kBlock), 0);
}

}  // namespace
}  // namespace tierlab
