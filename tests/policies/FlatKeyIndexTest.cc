#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "policies/FlatKeyIndex.h"

namespace tierlab {
namespace {

TEST(FlatKeyIndexTest, MatchesStdMapUnderChurn) {
  FlatKeyIndex index(500);
  std::unordered_map<LineKey, std::uint32_t> ref;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    const LineKey k = rng() % 1500;
    if (rng() % 2 == 0) {
      const bool fits = ref.count(k) != 0 || ref.size() < 500;
      EXPECT_EQ(index.Insert(k, i), fits);
      if (fits) ref[k] = i;
    } else {
      EXPECT_EQ(index.Erase(k), ref.erase(k) == 1);
    }
    ASSERT_EQ(index.Size(), ref.size());
  }
  for (LineKey k = 0; k < 1500; ++k) {
    const auto it = ref.find(k);
    EXPECT_EQ(index.Find(k), it == ref.end() ? FlatKeyIndex::kAbsent : it->second);
  }
}

TEST(FlatKeyIndexTest, FullMapRefusesNewKeysButUpdatesOld) {
  FlatKeyIndex index(2);
  EXPECT_TRUE(index.Insert(1, 10));
  EXPECT_TRUE(index.Insert(2, 20));
  EXPECT_FALSE(index.Insert(3, 30));
  EXPECT_TRUE(index.Insert(1, 11));
  EXPECT_EQ(index.Find(1), 11u);
  index.Clear();
  EXPECT_FALSE(index.Contains(1));
  EXPECT_EQ(index.Size(), 0u);
}

}  // namespace
}  // namespace tierlab
