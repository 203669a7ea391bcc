// A node's CPU: a first-come first-served queue over its cores, each
// request costing per_io plus per_kib per KiB started.

#include <gtest/gtest.h>

#include "tiering/core/IoRequest.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {
namespace {

TEST(NodeCpuTest, RequestsTakeTheCoreFreeFirstAndWaitWhenAllAreBusy) {
  NodeCpu cpu("n0.cpu", NodeCpuSpec{2, 10 * kMicro, 0});
  EXPECT_EQ(cpu.Run(0, 4096), 10 * kMicro);
  EXPECT_EQ(cpu.Run(0, 4096), 10 * kMicro);
  EXPECT_EQ(cpu.Run(0, 4096), 20 * kMicro);  // both cores busy until 10 us
  EXPECT_EQ(cpu.Run(15 * kMicro, 4096), 25 * kMicro);
  EXPECT_EQ(cpu.Run(40 * kMicro, 4096), 50 * kMicro);  // idle cores: no wait
  EXPECT_EQ(cpu.busy(), 5 * 10 * kMicro);
  EXPECT_EQ(cpu.requests(), 5u);
  EXPECT_DOUBLE_EQ(cpu.Utilisation(cpu.busy(), 50 * kMicro), 0.5);
}

TEST(NodeCpuTest, PerKibCountsEveryKibStarted) {
  NodeCpu cpu("n0.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro});
  EXPECT_EQ(cpu.Run(0, 0), 2 * kMicro);
  EXPECT_EQ(cpu.Run(100 * kMicro, 512), 100 * kMicro + 3 * kMicro);
  EXPECT_EQ(cpu.Run(200 * kMicro, 65536), 200 * kMicro + 2 * kMicro + 64 * kMicro);
  EXPECT_EQ(cpu.Run(300 * kMicro, 65537), 300 * kMicro + 2 * kMicro + 65 * kMicro);
}

TEST(NodeCpuTest, AWriteCostsItsOwnFiguresWhereTheyAreSet) {
  NodeCpu same("n0.cpu", NodeCpuSpec{1, 2 * kMicro, 0});
  EXPECT_EQ(same.Run(0, 4096, /*write=*/true), 2 * kMicro);
  NodeCpu split("n1.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro, 5 * kMicro});
  EXPECT_EQ(split.Run(0, 4096, /*write=*/true), 5 * kMicro + 4 * kMicro);
  EXPECT_EQ(split.Run(0, 4096), 9 * kMicro + 2 * kMicro + 4 * kMicro);  // waits for the write
  EXPECT_EQ(split.busy(), 9 * kMicro + 6 * kMicro);
  NodeCpu per_kib("n2.cpu", NodeCpuSpec{1, 2 * kMicro, 1 * kMicro, 0, 3 * kMicro});
  EXPECT_EQ(per_kib.Run(0, 8192, /*write=*/true), 2 * kMicro + 24 * kMicro);
  EXPECT_EQ(per_kib.Run(100 * kMicro, 8192), 100 * kMicro + 2 * kMicro + 8 * kMicro);
}

TEST(NodeCpuTest, NoCoresOrNoCostTakesNoTime) {
  NodeCpu off("n0.cpu", NodeCpuSpec{0, 10 * kMicro, 0});
  EXPECT_EQ(off.Run(7 * kMicro, 4096), 7 * kMicro);
  NodeCpu free("n1.cpu", NodeCpuSpec{4, 0, 0});
  EXPECT_EQ(free.Run(7 * kMicro, 4096), 7 * kMicro);
  EXPECT_EQ(free.busy(), 0);
  EXPECT_EQ(off.requests(), 1u);
}

}  // namespace
}  // namespace tierlab
