#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "policies/FifoDestageOrder.h"
#include "policies/LbaDestageOrder.h"

namespace tierlab {
namespace {

std::vector<std::uint64_t> Take(DestageOrder& d, std::size_t n) {
  std::vector<std::uint64_t> out;
  d.Next(n, &out);
  return out;
}

using V = std::vector<std::uint64_t>;

TEST(FifoDestageOrderTest, OldestFirstAndRewriteKeepsAge) {
  FifoDestageOrder d;
  d.MarkDirty(50, 100);
  d.MarkDirty(10, 200);
  d.MarkDirty(30, 300);
  d.MarkDirty(50, 400);  // rewrite: still the oldest
  EXPECT_EQ(d.Size(), 3u);
  EXPECT_EQ(d.OldestDirtyNs(), 100);
  EXPECT_EQ(Take(d, 2), (V{50}));  // one run per call: 10 is not adjacent
  EXPECT_EQ(d.OldestDirtyNs(), 200);
  EXPECT_EQ(Take(d, 2), (V{10}));
  EXPECT_EQ(d.OldestDirtyNs(), 300);
  EXPECT_EQ(Take(d, 5), (V{30}));
  EXPECT_EQ(d.OldestDirtyNs(), -1);
  EXPECT_TRUE(Take(d, 5).empty());
}

TEST(FifoDestageOrderTest, RemoveUpdatesOldestAndReDirtyIsYoung) {
  FifoDestageOrder d;
  for (std::uint64_t i = 0; i < 5; ++i) d.MarkDirty(i, 10 * static_cast<std::int64_t>(i));
  d.Remove(0);
  d.Remove(2);
  d.Remove(99);  // not tracked: no-op
  EXPECT_EQ(d.OldestDirtyNs(), 10);
  d.Remove(1);
  EXPECT_EQ(d.OldestDirtyNs(), 30);
  d.MarkDirty(0, 100);  // dirty again after being cleaned: now the youngest
  EXPECT_EQ(Take(d, 10), (V{3, 4}));  // adjacent and in age order: one run
  EXPECT_EQ(Take(d, 10), (V{0}));
}

TEST(FifoDestageOrderTest, RunsFollowAgeOrderAndStopAtAGapOrTheLimit) {
  FifoDestageOrder d;
  // A sequential stream 100..104, then 7, then 105 written later.
  for (std::uint64_t i = 0; i < 5; ++i) d.MarkDirty(100 + i, static_cast<std::int64_t>(i));
  d.MarkDirty(7, 10);
  d.MarkDirty(105, 20);
  EXPECT_EQ(Take(d, 3), (V{100, 101, 102}));  // the limit
  EXPECT_EQ(Take(d, 8), (V{103, 104}));       // 7 is next by age: the run ends
  EXPECT_EQ(Take(d, 8), (V{7}));
  EXPECT_EQ(Take(d, 8), (V{105}));
  EXPECT_EQ(d.Size(), 0u);
}

TEST(FifoDestageOrderTest, ChurnKeepsOldestExact) {
  FifoDestageOrder d;
  std::map<std::uint64_t, std::int64_t> ref;  // line -> dirty since
  std::mt19937_64 rng(4);
  for (std::int64_t t = 0; t < 50000; ++t) {
    const std::uint64_t line = rng() % 300;
    if (rng() % 3 == 0) {
      d.Remove(line);
      ref.erase(line);
    } else {
      d.MarkDirty(line, t);
      ref.emplace(line, t);
    }
    std::int64_t oldest = -1;
    for (const auto& [l, ns] : ref) oldest = oldest < 0 ? ns : std::min(oldest, ns);
    ASSERT_EQ(d.OldestDirtyNs(), oldest);
    ASSERT_EQ(d.Size(), ref.size());
  }
}

TEST(LbaDestageOrderTest, RunsAreAscendingAdjacentAndSweepUpward) {
  LbaDestageOrder d;
  std::int64_t t = 0;
  for (std::uint64_t l : {7, 3, 4, 5, 20, 21, 9, 8}) d.MarkDirty(l, t++);
  EXPECT_EQ(Take(d, 16), (V{3, 4, 5}));  // gap at 6 ends the run
  EXPECT_EQ(Take(d, 2), (V{7, 8}));      // max_lines cuts the run
  EXPECT_EQ(Take(d, 16), (V{9}));
  d.MarkDirty(1, t++);  // behind the cursor: served after the wrap
  EXPECT_EQ(Take(d, 16), (V{20, 21}));
  EXPECT_EQ(Take(d, 16), (V{1}));
  EXPECT_EQ(d.Size(), 0u);
  EXPECT_EQ(d.OldestDirtyNs(), -1);
}

TEST(LbaDestageOrderTest, OldestDirtyStaysCorrectAcrossRemovalsAndRuns) {
  LbaDestageOrder d;
  d.MarkDirty(100, 5);
  d.MarkDirty(1, 6);
  d.MarkDirty(2, 7);
  d.MarkDirty(50, 8);
  EXPECT_EQ(d.OldestDirtyNs(), 5);
  EXPECT_EQ(Take(d, 8), (V{1, 2}));
  EXPECT_EQ(d.OldestDirtyNs(), 5);
  d.Remove(100);
  EXPECT_EQ(d.OldestDirtyNs(), 8);
  d.MarkDirty(50, 99);  // already dirty: age kept
  EXPECT_EQ(d.OldestDirtyNs(), 8);
  EXPECT_EQ(d.Size(), 1u);
}

TEST(LbaDestageOrderTest, WrapAroundServesEveryLineOnceInSweeps) {
  LbaDestageOrder d;
  std::mt19937_64 rng(2);
  std::set<std::uint64_t> dirty;
  for (int i = 0; i < 400; ++i) {
    const std::uint64_t l = rng() % 1000;
    d.MarkDirty(l, i);
    dirty.insert(l);
  }
  std::uint64_t prev = 0;
  int wraps = 0;
  bool first = true;
  while (d.Size() > 0) {
    const V run = Take(d, 4);
    ASSERT_FALSE(run.empty());
    for (std::size_t i = 1; i < run.size(); ++i) ASSERT_EQ(run[i], run[i - 1] + 1);
    if (!first && run.front() <= prev) ++wraps;
    first = false;
    prev = run.back();
    for (std::uint64_t l : run) ASSERT_EQ(dirty.erase(l), 1u) << "line handed out twice";
    if (d.Size() > 0 && wraps == 0 && rng() % 5 == 0) {
      const std::uint64_t l = rng() % 1000;  // new dirt arrives mid-sweep
      d.MarkDirty(l, 1000);
      dirty.insert(l);
    }
  }
  EXPECT_LE(wraps, 1);  // all lines dirtied before the sweep went in one pass, plus the late ones
}

}  // namespace
}  // namespace tierlab
