#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "layouts/AtomicFile.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tierlab-atomic-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = (dir_ / "volume.json").string();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(AtomicFileTest, ReplacesTheFileAndLeavesNoTemporary) {
  ASSERT_TRUE(WriteFileAtomically(path_, "old\n").ok());
  ASSERT_TRUE(WriteFileAtomically(path_, "new\n", /*durable=*/false).ok());
  EXPECT_EQ(Slurp(path_), "new\n");
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
}

// A write the kernel refuses part-way (EFBIG past RLIMIT_FSIZE: the same
// path through write(2) as ENOSPC on a full filesystem, without one).
TEST_F(AtomicFileTest, FailedWriteKeepsTheOldFileAndNamesTheTemporary) {
  ASSERT_TRUE(WriteFileAtomically(path_, "{\"good\": true}\n").ok());
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct sigaction ign {
  }, prev{};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ign, &prev);
  struct rlimit small = old;
  small.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto r = WriteFileAtomically(path_, std::string(8192, 'x'));
  setrlimit(RLIMIT_FSIZE, &old);
  sigaction(SIGXFSZ, &prev, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kIo);
  EXPECT_EQ(r.error().message, path_ + ".tmp: write: File too large");
  EXPECT_EQ(Slurp(path_), "{\"good\": true}\n");
  EXPECT_FALSE(fs::exists(path_ + ".tmp"));
}

TEST_F(AtomicFileTest, MissingDirectoryIsAnErrorNamingTheFile) {
  const std::string p = (dir_ / "none" / "serve.json").string();
  auto r = WriteFileAtomically(p, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ".tmp: create: No such file or directory");
}

}  // namespace
}  // namespace tierlab
