// FileDevice::QueryAllocation on sparse files (lseek SEEK_DATA/SEEK_HOLE):
// ranges never written and ranges punched by a discard are holes, written
// ones data, in O_DIRECT (libaio) and in mapped tmpfs mode; and a hole is
// never reported where a completed write put data.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/support/SyncIo.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/devices/FileDevice.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kBlock = 4096;
constexpr std::uint64_t kSize = 64ull << 20;

class FileDeviceAllocationTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const fs::path parent =
        std::string(GetParam()) == "tmp" ? fs::temp_directory_path() : fs::path("/dev/shm");
    if (!fs::is_directory(parent)) GTEST_SKIP() << parent << " missing";
    std::string tmpl = (parent / "tierlab-alloc-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    FileDeviceOptions o;
    o.path = (dir_ / "dev.img").string();
    o.create = true;
    o.size = kSize;
    auto d = FileDevice::Open(engine_, "dev", o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    dev_ = std::move(d).value();
  }
  void TearDown() override {
    dev_.reset();
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  Status Do(IoOp op, std::uint64_t off, std::uint64_t len, std::byte* data = nullptr) {
    return testing::SubmitAndRun(engine_, *dev_, op, off, len, data);
  }
  void Write(std::uint64_t off, std::uint64_t len) {
    AlignedBuffer b(len);
    std::memset(b.data(), 0x5a, len);
    ASSERT_EQ(Do(IoOp::kWrite, off, len, b.data()), Status::kOk);
  }
  // One bool per block of the device: hole?
  std::vector<bool> Holes(std::size_t max_extents = 1u << 20) {
    std::vector<bool> v;
    for (std::uint64_t off = 0; off < kSize;) {
      AllocationMap m;
      EXPECT_EQ(dev_->QueryAllocation(off, kSize - off, max_extents, &m), Status::kOk);
      for (const AllocationExtent& e : m) v.insert(v.end(), e.length / kBlock, e.hole);
      off += CoveredBytes(m);
    }
    return v;
  }

  RealEngine engine_;
  fs::path dir_;
  std::unique_ptr<FileDevice> dev_;
};

TEST_P(FileDeviceAllocationTest, WrittenRangesAreDataTheRestHoles) {
  // A fresh file: all hole (on tmpfs too, where the mapped file is
  // allocated in full, fallocate, but pages never written read as holes).
  std::vector<bool> holes = Holes();
  ASSERT_EQ(holes.size(), kSize / kBlock);
  EXPECT_EQ(holes, std::vector<bool>(kSize / kBlock, true));
  // Random writes; filesystems allocate in their own block size (4 KiB on
  // ext4, xfs, tmpfs), so every block written is data and, with 1 MiB gaps
  // kept, most others holes.
  std::mt19937_64 rng(5);
  std::vector<bool> written(kSize / kBlock, false);
  for (int i = 0; i < 20; ++i) {
    const std::uint64_t b = rng() % (kSize / kBlock - 64);
    const std::uint64_t n = 1 + rng() % 16;
    Write(b * kBlock, n * kBlock);
    for (std::uint64_t k = b; k < b + n; ++k) written[k] = true;
  }
  holes = Holes();
  std::size_t data_blocks = 0;
  for (std::size_t k = 0; k < written.size(); ++k) {
    if (written[k]) {
      ASSERT_FALSE(holes[k]) << "written block " << k << " reported as a hole";
    }
    data_blocks += !holes[k];
  }
  // Filesystems may allocate beyond what was written (ext4 and xfs round up
  // small writes at most to a few blocks), never less.
  EXPECT_LT(data_blocks, written.size() / 4);
  EXPECT_EQ(Holes(1), holes);  // one extent at a time: the same map
  // A discard punches a hole (a mapped file is zeroed in place instead, so
  // it stays data: FileDevice.h).
  Write(8 << 20, 1 << 20);
  ASSERT_FALSE(Holes()[(8 << 20) / kBlock]);
  ASSERT_EQ(Do(IoOp::kDiscard, 8 << 20, 1 << 20), Status::kOk);
  holes = Holes();
  for (std::uint64_t k = (8 << 20) / kBlock; k < (9 << 20) / kBlock; ++k) {
    EXPECT_EQ(holes[k], !dev_->mapped()) << "block " << k << " after the discard";
  }
}

INSTANTIATE_TEST_SUITE_P(Dirs, FileDeviceAllocationTest, ::testing::Values("tmp", "shm"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tierlab
