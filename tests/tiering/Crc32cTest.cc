#include "tiering/Crc32c.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tierlab {
namespace {

TEST(Crc32cTest, MatchesTheStandardCheckValue) {
  // The CRC-32C check value (RFC 3720 / the CRC catalogue): "123456789".
  EXPECT_EQ(Crc32c(0, "123456789", 9), 0xE3069283u);
  EXPECT_EQ(Crc32c(0, "", 0), 0u);
}

TEST(Crc32cTest, ThirtyTwoZeroBytesMatchRfc3720) {
  const std::vector<unsigned char> zeros(32, 0);
  EXPECT_EQ(Crc32c(0, zeros.data(), zeros.size()), 0x8A9136AAu);
  const std::vector<unsigned char> ones(32, 0xFF);
  EXPECT_EQ(Crc32c(0, ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32cTest, ChainingEqualsOnePassAtEveryAlignment) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += static_cast<char>(i * 131 + 7);
  const std::uint32_t whole = Crc32c(0, s.data(), s.size());
  for (std::size_t cut : {0, 1, 3, 7, 8, 9, 500, 999, 1000}) {
    const std::uint32_t a = Crc32c(0, s.data(), cut);
    EXPECT_EQ(Crc32c(a, s.data() + cut, s.size() - cut), whole) << cut;
  }
}

TEST(Crc32cTest, DetectsASingleBitFlip) {
  std::vector<unsigned char> b(4096, 0x5A);
  const std::uint32_t before = Crc32c(0, b.data(), b.size());
  b[2049] ^= 0x10;
  EXPECT_NE(Crc32c(0, b.data(), b.size()), before);
}

}  // namespace
}  // namespace tierlab
