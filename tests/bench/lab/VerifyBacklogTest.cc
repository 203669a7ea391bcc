// fio's verify_backlog: when a writing job reads back what it wrote.

#include <gtest/gtest.h>

#include <string>

#include "bench/lab/VerifyBacklog.h"

namespace tierlab {
namespace {

// Writes and read-backs of a job whose writes complete at once, until its
// writes are done (what is left, its verify phase reads): "w" a write, "r"
// a read-back.
std::string Sequence(std::uint32_t backlog, std::uint32_t batch, int writes) {
  VerifyBacklog b(backlog, batch);
  std::string out;
  std::size_t waiting = 0;
  bool last_read = false;
  while (writes > 0) {
    if (b.Wants(waiting, last_read)) {
      b.Took();
      --waiting;
      out += 'r';
      last_read = true;
    } else {
      --writes;
      ++waiting;
      out += 'w';
      last_read = false;
    }
  }
  return out;
}

TEST(VerifyBacklogTest, ReadsBackEachBacklogOfWritesInABatch) {
  EXPECT_EQ(Sequence(1, 0, 3), "wrwrw");
  EXPECT_EQ(Sequence(3, 0, 7), "wwwrrrwwwrrrw");
}

TEST(VerifyBacklogTest, ASmallerBatchLeavesSomeForTheVerifyPhase) {
  EXPECT_EQ(Sequence(4, 2, 8), "wwwwrrwwrrww");
}

TEST(VerifyBacklogTest, ALargerBatchWaitsForWritesToReadBack) {
  // Two left of the batch once the backlog is read: each next write is read
  // back at once (fio's batch stays open while nothing is waiting).
  EXPECT_EQ(Sequence(2, 4, 6), "wwrrwrwrww");
}

TEST(VerifyBacklogTest, NoBatchBeginsRightAfterARead) {
  VerifyBacklog b(2, 0);
  EXPECT_FALSE(b.Wants(2, /*last_was_read=*/true));
  EXPECT_TRUE(b.Wants(2, false));
  EXPECT_FALSE(VerifyBacklog(2, 0).Wants(0, false));
}

}  // namespace
}  // namespace tierlab
