// fio's bw/iops/lat logs: file names, line format, per-I/O and averaged
// values as fio 3.33 writes them.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bench/lab/FioLogs.h"

namespace tierlab {
namespace {

class FioLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = (std::filesystem::temp_directory_path() / "fiologs-XXXXXX").string();
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    dir_ = t;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::string> Lines(const std::string& file) const {
    std::ifstream in(dir_ + "/" + file);
    EXPECT_TRUE(in.good()) << file;
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

  std::string dir_;
};

TEST_F(FioLogsTest, NoLogOptionsNoLogs) {
  Profile p;
  auto l = FioLogs::Open(p, 1);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, nullptr);
}

// Per I/O: fio's bandwidth is bytes * 10^6 / clat ns (fio logged 1219 for
// 4 KiB in 3359468 ns), latencies in ns, IOPS 1; the job's index names the
// files; no NAME: the job's name.
TEST_F(FioLogsTest, PerIoEntries) {
  Profile p;
  p.name = dir_ + "/job";
  p.write_bw_log = dir_ + "/a";
  p.write_iops_log = "";
  p.write_lat_log = dir_ + "/a";
  auto l = FioLogs::Open(p, 3);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_NE(*l, nullptr);
  (*l)->Add(IoOp::kRead, 3 * kMilli + 400, 4096, 8192, 3469423, 3359468);
  (*l)->Add(IoOp::kWrite, 5 * kMilli, 8192, 0, 2000, 1000);
  (*l)->Add(IoOp::kFlush, 6 * kMilli, 0, 0, 10, 10);  // fio logs no flush
  ASSERT_TRUE((*l)->Finish().ok());
  EXPECT_EQ(Lines("a_bw.3.log"),
            (std::vector<std::string>{"3, 1219, 0, 4096, 0", "5, 8192000, 1, 8192, 0"}));
  EXPECT_EQ(Lines("job_iops.3.log"),
            (std::vector<std::string>{"3, 1, 0, 4096, 0", "5, 1, 1, 8192, 0"}));
  EXPECT_EQ(Lines("a_lat.3.log"),
            (std::vector<std::string>{"3, 3469423, 0, 4096, 0", "5, 2000, 1, 8192, 0"}));
  EXPECT_EQ(Lines("a_clat.3.log"),
            (std::vector<std::string>{"3, 3359468, 0, 4096, 0", "5, 1000, 1, 8192, 0"}));
  EXPECT_EQ(Lines("a_slat.3.log"),
            (std::vector<std::string>{"3, 0, 0, 4096, 0", "5, 0, 1, 8192, 0"}));
  EXPECT_EQ((*l)->files().size(), 5u);
}

TEST_F(FioLogsTest, LogOffsetAddsTheOffsetColumn) {
  Profile p;
  p.write_lat_log = dir_ + "/o";
  p.log_offset = true;
  auto l = FioLogs::Open(p, 1);
  ASSERT_TRUE(l.ok());
  (*l)->Add(IoOp::kRead, 20 * kMilli, 4096, 7069696, 242823, 178233);
  ASSERT_TRUE((*l)->Finish().ok());
  EXPECT_EQ(Lines("o_lat.1.log"), (std::vector<std::string>{"20, 242823, 0, 4096, 7069696, 0"}));
}

// log_avg_msec: an entry per direction with completions per interval, at
// its end; bandwidth KiB/s and IOPS over the interval, the mean latency
// rounded; an interval without completions has no entry.
TEST_F(FioLogsTest, AveragedEntries) {
  Profile p;
  p.write_bw_log = p.write_iops_log = p.write_lat_log = dir_ + "/v";
  p.log_avg_msec = 250;
  auto l = FioLogs::Open(p, 1);
  ASSERT_TRUE(l.ok());
  FioLogs& g = **l;
  g.Add(IoOp::kRead, 10 * kMilli, 4096, 0, 1000, 1000);
  g.Add(IoOp::kRead, 100 * kMilli, 4096, 0, 2001, 2001);
  g.Add(IoOp::kWrite, 249 * kMilli, 65536, 0, 7000, 5000);
  // 250..500 ms: nothing. 500..750 ms: one read.
  g.Add(IoOp::kRead, 600 * kMilli, 4096, 0, 9000, 9000);
  ASSERT_TRUE(g.Finish().ok());
  EXPECT_EQ(Lines("v_bw.1.log"), (std::vector<std::string>{"250, 32, 0, 0, 0", "250, 256, 1, 0, 0",
                                                           "750, 16, 0, 0, 0"}));
  EXPECT_EQ(Lines("v_iops.1.log"),
            (std::vector<std::string>{"250, 8, 0, 0, 0", "250, 4, 1, 0, 0", "750, 4, 0, 0, 0"}));
  EXPECT_EQ(
      Lines("v_lat.1.log"),
      (std::vector<std::string>{"250, 1501, 0, 0, 0", "250, 7000, 1, 0, 0", "750, 9000, 0, 0, 0"}));
  EXPECT_EQ(Lines("v_clat.1.log")[1], "250, 5000, 1, 0, 0");
}

// The priority column: 1 for an I/O of fio's RT class, 0 otherwise; with
// log_prio the priority's value in hex (class << 13 | level), as fio.
TEST_F(FioLogsTest, ThePriorityColumnIsFiosWithAndWithoutLogPrio) {
  // Two reads, RT level 0 and BE level 7, in an IOPS log: its lines.
  auto lines = [this](bool log_prio, const std::string& name) {
    Profile p;
    p.write_iops_log = dir_ + "/" + name;
    p.priorities.log_prio = log_prio;
    auto l = FioLogs::Open(p, 1);
    EXPECT_TRUE(l.ok());
    (*l)->Add(IoOp::kRead, 0, 4096, 0, 1000, 1000, IoprioValue(1, 0));
    (*l)->Add(IoOp::kRead, 0, 4096, 0, 1000, 1000, IoprioValue(2, 7));
    EXPECT_TRUE((*l)->Finish().ok());
    return Lines(name + "_iops.1.log");
  };
  EXPECT_EQ(lines(false, "rt"), (std::vector<std::string>{"0, 1, 0, 4096, 1", "0, 1, 0, 4096, 0"}));
  EXPECT_EQ(lines(true, "value"),
            (std::vector<std::string>{"0, 1, 0, 4096, 0x2000", "0, 1, 0, 4096, 0x4007"}));
}

TEST_F(FioLogsTest, AFileThatCannotBeCreatedIsAnIoError) {
  Profile p;
  p.write_bw_log = dir_ + "/no/such/dir/x";
  auto l = FioLogs::Open(p, 1);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().kind, ErrorKind::kIo);
  EXPECT_NE(l.error().message.find("x_bw.1.log"), std::string::npos) << l.error().message;
}

}  // namespace
}  // namespace tierlab
