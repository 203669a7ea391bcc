#include <gtest/gtest.h>

#include <set>

#include "tiering/core/SparseBitmap.h"

namespace tierlab {
namespace {

TEST(SparseBitmapTest, HoldsWhatWasSetAcrossPages) {
  SparseBitmap b;
  EXPECT_FALSE(b.Test(0));
  EXPECT_EQ(b.NextSet(0), SparseBitmap::kNone);
  const std::set<std::uint64_t> set = {0, 63, 64, 65535, 65536, 200'000, 5'000'000'000};
  for (std::uint64_t i : set) b.Set(i);
  for (std::uint64_t i : set) EXPECT_TRUE(b.Test(i)) << i;
  EXPECT_FALSE(b.Test(1));
  EXPECT_FALSE(b.Test(65537));
  EXPECT_FALSE(b.Test(5'000'000'001));
  // NextSet walks them in order from any point, skipping empty pages.
  std::uint64_t at = b.NextSet(0);
  for (std::uint64_t want : set) {
    EXPECT_EQ(at, want);
    at = b.NextSet(at + 1);
  }
  EXPECT_EQ(at, SparseBitmap::kNone);
  EXPECT_EQ(b.NextSet(62), 63u);
  EXPECT_EQ(b.NextSet(66), 65535u);
  EXPECT_EQ(b.NextSet(200'001), 5'000'000'000u);
}

}  // namespace
}  // namespace tierlab
