#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tiering/devices/FileLock.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

class FileLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tierlab-lock-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = (dir_ / "f").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(FileLockTest, SecondExclusiveLockOnTheFileIsRefusedUntilTheFirstGoes) {
  auto a = FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR | O_CREAT);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().kind, ErrorKind::kInUse);
  EXPECT_EQ(b.error().message, path_ + ": in use by another process (locked)");
  a->Release();
  EXPECT_TRUE(FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR).ok());
}

TEST_F(FileLockTest, SharedLocksCoexistAndKeepAnExclusiveOneOut) {
  auto a = FileLock::Acquire(path_, LockMode::kShared, O_RDONLY | O_CREAT);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto b = FileLock::Acquire(path_, LockMode::kShared, O_RDONLY);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_FALSE(FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR).ok());
}

TEST_F(FileLockTest, TestingTheLockTakesNothing) {
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  auto free = WholeFileLocked(fd, path_);
  ASSERT_TRUE(free.ok());
  EXPECT_FALSE(*free);
  // Testing did not lock: another description still gets it.
  auto a = FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR);
  ASSERT_TRUE(a.ok()) << a.error().message;
  auto held = WholeFileLocked(fd, path_);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(*held);
  ::close(fd);
}

TEST_F(FileLockTest, ClosingAnotherDescriptorOfTheFileKeepsTheLock) {
  // A POSIX record lock would be dropped here; the metadata code opens and
  // closes device paths while the device holds its lock.
  auto a = FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR | O_CREAT);
  ASSERT_TRUE(a.ok());
  const int other = ::open(path_.c_str(), O_RDONLY);
  ASSERT_GE(other, 0);
  ::close(other);
  EXPECT_FALSE(FileLock::Acquire(path_, LockMode::kExclusive, O_RDWR).ok());
}

TEST_F(FileLockTest, OpenErrorsNameThePathWithTheirExitCode) {
  auto missing = FileLock::Acquire((dir_ / "none").string(), LockMode::kShared, O_RDONLY);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kInput);
  EXPECT_NE(missing.error().message.find((dir_ / "none").string()), std::string::npos);
  auto dir = FileLock::Acquire(dir_.string(), LockMode::kExclusive, O_RDWR);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().kind, ErrorKind::kInput);
  EXPECT_NE(dir.error().message.find("Is a directory"), std::string::npos) << dir.error().message;
}

}  // namespace
}  // namespace tierlab
