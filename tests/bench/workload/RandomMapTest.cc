#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bench/workload/Random.h"
#include "bench/workload/RandomMap.h"

namespace tierlab {
namespace {

// The first unmarked block after `block` in a plain vector, wrapping.
std::uint64_t NextFreeOf(const std::vector<bool>& bits, std::uint64_t block) {
  const std::uint64_t n = bits.size();
  for (std::uint64_t i = 1; i <= n; ++i) {
    const std::uint64_t b = (block + i) % n;
    if (!bits[b]) return b;
  }
  return RandomMap::kNone;
}

TEST(RandomMapTest, MarkRunStopsBeforeACoveredBlockAndAtTheEnd) {
  RandomMap m(100);
  EXPECT_EQ(m.MarkRun(10, 5), 5u);
  EXPECT_TRUE(m.Marked(10) && m.Marked(14));
  EXPECT_FALSE(m.Marked(15));
  EXPECT_EQ(m.MarkRun(7, 8), 3u);  // 7, 8, 9: 10 was covered
  EXPECT_EQ(m.MarkRun(10, 2), 0u);
  EXPECT_EQ(m.MarkRun(97, 10), 3u);  // the map ends at 99
  EXPECT_EQ(m.MarkRun(100, 1), 0u);
  EXPECT_EQ(m.marked(), 11u);
}

TEST(RandomMapTest, NextFreeWrapsAndFindsNoneWhenFull) {
  RandomMap m(130);
  EXPECT_EQ(m.NextFree(5), 6u);  // nothing marked: no memory yet
  EXPECT_EQ(m.NextFree(129), 0u);
  EXPECT_EQ(m.MarkRun(0, 130), 130u);
  EXPECT_TRUE(m.Full());
  EXPECT_EQ(m.NextFree(3), RandomMap::kNone);
  m.Clear();
  EXPECT_EQ(m.marked(), 0u);
  EXPECT_FALSE(m.Marked(3));
  EXPECT_EQ(m.MarkRun(0, 129), 129u);
  EXPECT_EQ(m.NextFree(0), 129u);
  EXPECT_EQ(m.NextFree(129), 129u);  // the last free block, found by wrapping
}

// Random marks against a plain vector of bits, at sizes around the word and
// level boundaries (64, 4096 and 262,144 blocks are one, two and three
// levels), until every map is full.
TEST(RandomMapTest, AgreesWithAPlainBitVectorUntilFull) {
  for (std::uint64_t n : {1ULL, 63ULL, 64ULL, 65ULL, 4095ULL, 4097ULL, 262147ULL}) {
    SCOPED_TRACE(n);
    RandomMap m(n);
    Xoshiro256 rng;
    rng.Seed(n);
    // Twice: the second pass after Clear, as a time based job's.
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) m.Clear();
      std::vector<bool> bits(n, false);
      std::uint64_t marked = 0;
      std::uint64_t steps = 0;
      while (marked < n) {
        ASSERT_LT(++steps, 20 * n + 100);
        const std::uint64_t b = rng.Below(n);
        const std::uint64_t want = NextFreeOf(bits, b);
        ASSERT_EQ(m.NextFree(b), want) << b;
        ASSERT_EQ(m.Marked(b), bits[b]);
        // Mark a run from the free block found, as the generator does.
        const std::uint64_t count = 1 + rng.Below(4);
        std::uint64_t expect = 0;
        while (expect < count && want + expect < n && !bits[want + expect]) {
          bits[want + expect] = true;
          ++expect;
        }
        ASSERT_EQ(m.MarkRun(want, count), expect);
        marked += expect;
        ASSERT_EQ(m.marked(), marked);
      }
      EXPECT_TRUE(m.Full());
      EXPECT_EQ(m.NextFree(0), RandomMap::kNone);
    }
  }
}

TEST(RandomMapTest, BytesAreABitPerBlockAndTheSummaries) {
  EXPECT_EQ(RandomMap::BytesFor(64), 8u);
  EXPECT_EQ(RandomMap::BytesFor(65), 16u + 8u);
  // 2 Mi blocks: 256 KiB of bits, 4 KiB, 64 and 8 bytes of summaries.
  EXPECT_EQ(RandomMap::BytesFor(1ULL << 21), (256u << 10) + 4096u + 64u + 8u);
}

}  // namespace
}  // namespace tierlab
