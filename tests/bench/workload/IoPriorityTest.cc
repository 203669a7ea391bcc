// fio's I/O priorities: values, the job's own, and cmdprio's per-I/O picks.

#include <gtest/gtest.h>

#include <vector>

#include "bench/workload/IoPriority.h"

namespace tierlab {
namespace {

TEST(IoPriorityTest, ValuesAreFiosClassHintAndLevel) {
  EXPECT_EQ(IoprioValue(1, 0), 0x2000u);
  EXPECT_EQ(IoprioValue(2, 7), 0x4007u);
  EXPECT_EQ(IoprioValue(0, 4), 0x4004u);  // no class: BE, as fio's ioprio_value
  EXPECT_EQ(IoprioValue(2, 0, 3), 0x4018u);
  EXPECT_TRUE(IoprioIsRt(0x2003));
  EXPECT_FALSE(IoprioIsRt(0x6000));
  IoPriorities none;
  EXPECT_EQ(none.job(), 0u);  // without prio and prioclass
  IoPriorities idle;
  idle.prioclass = 3;
  EXPECT_EQ(idle.job(), 0x6000u);
}

TEST(IoPriorityTest, CmdprioPercentageTakesThatShareOfTheDraws) {
  IoPriorities p;
  p.prioclass = 2;
  p.prio = 4;
  p.cmdprio_percentage[0] = 20;  // reads only; class defaults to RT
  EXPECT_EQ(p.Pick(0, 4096, 19), 0x2000u);
  EXPECT_EQ(p.Pick(0, 4096, 20), 0x4004u);
  EXPECT_EQ(p.Pick(1, 4096, 0), 0x4004u);
  EXPECT_EQ(p.Values(0), (std::vector<std::uint32_t>{0x4004, 0x2000}));
  EXPECT_EQ(p.Values(1), (std::vector<std::uint32_t>{0x4004}));
  EXPECT_TRUE(p.per_io());
}

TEST(IoPriorityTest, CmdprioBssplitPicksByTheIosSize) {
  // cmdprio-bssplit.fio's advanced form: 64k reads 25 % class 1 level 1,
  // 75 % class 3 level 2; 1m reads and every write keep the job's.
  IoPriorities p;
  ASSERT_TRUE(ParseCmdPrioBssplit("64k/25/1/1:64k/75/3/2:1024k/0,1024k/0", 1024, p).ok());
  EXPECT_EQ(p.cmdprio_bssplit[0].size(), 2u);
  EXPECT_TRUE(p.cmdprio_bssplit[1].empty());
  EXPECT_EQ(p.Pick(0, 65536, 24), IoprioValue(1, 1));
  EXPECT_EQ(p.Pick(0, 65536, 25), IoprioValue(3, 2));
  EXPECT_EQ(p.Pick(0, 1 << 20, 0), 0u);
  EXPECT_EQ(p.Pick(1, 1 << 20, 0), 0u);
  // The simple form takes cmdprio_class and cmdprio; one split is every direction's.
  IoPriorities s;
  s.cmdprio_class[1] = 3;
  s.cmdprio[1] = 6;
  ASSERT_TRUE(ParseCmdPrioBssplit("4k/50", 1024, s).ok());
  EXPECT_EQ(s.Pick(1, 4096, 49), IoprioValue(3, 6));
  EXPECT_EQ(s.Pick(0, 4096, 49), IoprioValue(1, 0));
  // The text reads back to the same entries.
  IoPriorities back;
  ASSERT_TRUE(ParseCmdPrioBssplit(CmdPrioBssplitText(p), 1024, back).ok());
  EXPECT_EQ(back.cmdprio_bssplit[0], p.cmdprio_bssplit[0]);
  EXPECT_EQ(back.cmdprio_bssplit[1], p.cmdprio_bssplit[1]);
}

TEST(IoPriorityTest, HintsAndClampsAsFio) {
  IoPriorities p;
  ASSERT_TRUE(ParseCmdPrioBssplit("1M/10/2/0/1:1M/30/9/9/2", 1024, p).ok());
  EXPECT_EQ(p.cmdprio_bssplit[0][0].ioprio, IoprioValue(2, 0, 1));
  EXPECT_EQ(p.cmdprio_bssplit[0][1].ioprio, IoprioValue(3, 7, 2));  // class 9 -> 3, level 9 -> 7
  EXPECT_FALSE(ParseCmdPrioBssplit("4k/10/1", 1024, p).ok());
  EXPECT_FALSE(ParseCmdPrioBssplit("4k/x", 1024, p).ok());
  EXPECT_FALSE(ParseCmdPrioBssplit("4k/10,4k/10,4k/10,4k/10", 1024, p).ok());
}

}  // namespace
}  // namespace tierlab
