// The label read before a device is used (SuperblockLabel.h) against what
// WriteSuperblock writes: the two must agree on the magic and the UUID.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cachedev/MetadataFile.h"
#include "cachedev/SuperblockLabel.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

class SuperblockLabelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tierlab-label-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = (dir_ / "cache.img").string();
    std::ofstream(path_).close();
    fs::resize_file(path_, 4 << 20);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Superblock Sb() const {
    Superblock sb;
    sb.uuid = NewUuid();
    sb.geo = MetadataGeometry::For(4096, 256);
    sb.layout_json = "{}";
    return sb;
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(SuperblockLabelTest, WrittenSuperblockReadsBackAsItsVolumesLabel) {
  auto none = ReadSuperblockLabel(path_);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(none->has_value());
  const Superblock sb = Sb();
  ASSERT_TRUE(WriteSuperblock(path_, sb).ok());
  auto label = ReadSuperblockLabel(path_);
  ASSERT_TRUE(label.ok()) << label.error().message;
  ASSERT_TRUE(label->has_value());
  EXPECT_EQ(FormatUuid(**label), FormatUuid(sb.uuid));
}

TEST_F(SuperblockLabelTest, DamagedSuperblockStillMarksTheDevice) {
  ASSERT_TRUE(WriteSuperblock(path_, Sb()).ok());
  {
    const int fd = ::open(path_.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "\xde\xad", 2, 200), 2);  // checksum now wrong
    ::close(fd);
  }
  EXPECT_FALSE(ReadSuperblock(path_).ok());
  auto label = ReadSuperblockLabel(path_);
  ASSERT_TRUE(label.ok());
  EXPECT_TRUE(label->has_value());
}

TEST_F(SuperblockLabelTest, WipeRemovesTheLabelAndKeepsTheRest) {
  ASSERT_TRUE(WriteSuperblock(path_, Sb()).ok());
  {
    const int fd = ::open(path_.c_str(), O_WRONLY);
    ASSERT_EQ(::pwrite(fd, "data", 4, 1 << 20), 4);
    ::close(fd);
  }
  ASSERT_TRUE(WipeSuperblock(path_).ok());
  auto label = ReadSuperblockLabel(path_);
  ASSERT_TRUE(label.ok());
  EXPECT_FALSE(label->has_value());
  EXPECT_EQ(fs::file_size(path_), 4u << 20);
  char buf[4];
  const int fd = ::open(path_.c_str(), O_RDONLY);
  ASSERT_EQ(::pread(fd, buf, 4, 1 << 20), 4);
  ::close(fd);
  EXPECT_EQ(std::string(buf, 4), "data");
}

TEST_F(SuperblockLabelTest, ShortHeadsAndOtherBytesHaveNoLabel) {
  const std::byte magic[8] = {std::byte{'T'}, std::byte{'L'}, std::byte{'V'}, std::byte{'O'},
                              std::byte{'L'}, std::byte{'S'}, std::byte{'B'}, std::byte{'1'}};
  EXPECT_FALSE(SuperblockLabel(magic, sizeof magic).has_value());  // no room for a UUID
  EXPECT_FALSE(SuperblockLabel(nullptr, 0).has_value());
  fs::resize_file(path_, 10);
  auto label = ReadSuperblockLabel(path_);
  ASSERT_TRUE(label.ok());
  EXPECT_FALSE(label->has_value());
  EXPECT_FALSE(ReadSuperblockLabel((dir_ / "none").string()).ok());
}

}  // namespace
}  // namespace tierlab
