#include <gtest/gtest.h>

#include <random>
#include <set>

#include "policies/DirtyAgeQueue.h"
#include "policies/SortedLineSet.h"

namespace tierlab {
namespace {

std::uint64_t RefLowerBound(const std::set<std::uint64_t>& ref, std::uint64_t x) {
  const auto it = ref.lower_bound(x);
  return it == ref.end() ? SortedLineSet::kNone : *it;
}

TEST(SortedLineSetTest, InsertEraseContainsAndLowerBoundAcrossLeaves) {
  SortedLineSet s;
  EXPECT_TRUE(s.Empty());
  EXPECT_EQ(s.First(), SortedLineSet::kNone);
  EXPECT_TRUE(s.Insert(5));
  EXPECT_FALSE(s.Insert(5));
  EXPECT_TRUE(s.Insert(4095));  // last line of leaf 0
  EXPECT_TRUE(s.Insert(4096));  // first line of leaf 1
  EXPECT_TRUE(s.Insert(SortedLineSet::kMaxLine));
  EXPECT_EQ(s.Size(), 4u);
  EXPECT_TRUE(s.Contains(4095));
  EXPECT_FALSE(s.Contains(4094));
  EXPECT_EQ(s.LowerBound(0), 5u);
  EXPECT_EQ(s.LowerBound(6), 4095u);
  EXPECT_EQ(s.LowerBound(4096), 4096u);
  EXPECT_EQ(s.LowerBound(4097), SortedLineSet::kMaxLine);
  EXPECT_EQ(s.LowerBound(SortedLineSet::kMaxLine + 1), SortedLineSet::kNone);
  EXPECT_TRUE(s.Erase(4096));
  EXPECT_FALSE(s.Erase(4096));
  EXPECT_FALSE(s.Erase(123456789));  // never present, leaf absent
  EXPECT_EQ(s.LowerBound(4096), SortedLineSet::kMaxLine);
  EXPECT_TRUE(s.Erase(SortedLineSet::kMaxLine));
  EXPECT_EQ(s.LowerBound(4096), SortedLineSet::kNone);
  EXPECT_EQ(s.Size(), 2u);
}

TEST(SortedLineSetTest, MatchesStdSetUnderRandomChurn) {
  SortedLineSet s;
  std::set<std::uint64_t> ref;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    // Clustered and sparse lines: several leaves, some far apart, refilled
    // after emptying (recycled leaves must come back clean).
    const std::uint64_t base = (rng() % 4) * 1000003ull;
    const std::uint64_t line = base + rng() % 9000;
    const int op = static_cast<int>(rng() % 3);
    if (op == 0) {
      ASSERT_EQ(s.Insert(line), ref.insert(line).second);
    } else if (op == 1) {
      ASSERT_EQ(s.Erase(line), ref.erase(line) == 1);
    } else {
      ASSERT_EQ(s.LowerBound(line), RefLowerBound(ref, line));
      ASSERT_EQ(s.Contains(line), ref.count(line) == 1);
    }
    ASSERT_EQ(s.Size(), ref.size());
  }
  // Walk everything in order.
  std::uint64_t x = s.First();
  for (std::uint64_t want : ref) {
    ASSERT_EQ(x, want);
    x = s.LowerBound(x + 1);
  }
  EXPECT_EQ(x, SortedLineSet::kNone);
}

TEST(SortedLineSetTest, EmptiedLeavesAreRecycledSoMemoryStaysBounded) {
  SortedLineSet s;
  for (std::uint64_t l = 0; l < 64 * 4096; l += 4096) s.Insert(l);
  const std::size_t full = s.MemoryBytes();
  for (int round = 0; round < 10; ++round) {
    for (std::uint64_t l = 0; l < 64 * 4096; l += 4096) ASSERT_TRUE(s.Erase(l));
    EXPECT_TRUE(s.Empty());
    for (std::uint64_t l = 1; l < 64 * 4096; l += 4096) ASSERT_TRUE(s.Insert(l));
    for (std::uint64_t l = 1; l < 64 * 4096; l += 4096) ASSERT_TRUE(s.Erase(l));
    for (std::uint64_t l = 0; l < 64 * 4096; l += 4096) ASSERT_TRUE(s.Insert(l));
  }
  EXPECT_EQ(s.MemoryBytes(), full);
  EXPECT_EQ(s.LowerBound(1), 4096u);
}

TEST(DirtyAgeQueueTest, GrowsPastItsFirstTableAndKeepsSequenceChecks) {
  DirtyAgeQueue q;
  for (std::uint64_t l = 0; l < 10000; ++l) ASSERT_TRUE(q.Add(l * 7, static_cast<std::int64_t>(l)));
  EXPECT_EQ(q.Size(), 10000u);
  EXPECT_FALSE(q.Add(7, 99999));  // present: age kept
  for (std::uint64_t l = 0; l < 10000; l += 2) ASSERT_TRUE(q.Remove(l * 7));
  EXPECT_FALSE(q.Remove(0));
  EXPECT_EQ(q.FrontLine(), 7u);
  EXPECT_EQ(q.FrontNs(), 1);
  ASSERT_TRUE(q.Remove(7));
  ASSERT_TRUE(q.Add(7, 20000));  // re-added: young now, its old entry is stale
  EXPECT_EQ(q.FrontLine(), 21u);
  std::uint64_t last = 0;
  while (!q.Empty()) {
    last = q.FrontLine();
    q.PopFront();
  }
  EXPECT_EQ(last, 7u);
  EXPECT_EQ(q.QueueEntries(), 0u);
}

}  // namespace
}  // namespace tierlab
