#include <gtest/gtest.h>

#include "policies/ByteSize.h"

namespace tierlab {
namespace {

TEST(ByteSizeTest, ParsesSuffixes) {
  EXPECT_EQ(ParseByteSize("0"), 0u);
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("4k"), 4096u);
  EXPECT_EQ(ParseByteSize("4M"), 4u << 20);
  EXPECT_EQ(ParseByteSize("2g"), 2ull << 30);
  EXPECT_EQ(ParseByteSize("1t"), 1ull << 40);
}

TEST(ByteSizeTest, RejectsMalformed) {
  for (const char* bad :
       {"", "k", "-1", "4kb", "4 k", "4x", "1.5m", "99999999999999999999", "20000000000t"}) {
    EXPECT_EQ(ParseByteSize(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace tierlab
