#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tiering/core/Crc32c.h"

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

// Bit at a time, straight from the definition.
std::uint32_t ReferenceCrc32c(const unsigned char* p, std::size_t len) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < len; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

// Long buffers take the striped path where the CPU has the crc32 instruction:
// every length around the stripe boundaries, at every alignment.
TEST(Crc32cTest, LongBuffersMatchTheBitwiseReference) {
  std::vector<unsigned char> b(3 * 4096 + 64);
  for (std::size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  for (std::size_t len : {4079, 4080, 4081, 4087, 4088, 4095, 4096, 8160, 8161, 12288}) {
    for (std::size_t off = 0; off < 4; ++off) {
      EXPECT_EQ(Crc32c(0, b.data() + off, len), ReferenceCrc32c(b.data() + off, len))
          << "len " << len << " offset " << off;
    }
  }
  const std::uint32_t first = Crc32c(0, b.data(), 5000);
  EXPECT_EQ(Crc32c(first, b.data() + 5000, 7000), ReferenceCrc32c(b.data(), 12000));
}

TEST(Crc32cTest, DetectsASingleBitFlip) {
  std::vector<unsigned char> b(4096, 0x5A);
  const std::uint32_t before = Crc32c(0, b.data(), b.size());
  b[2049] ^= 0x10;
  EXPECT_NE(Crc32c(0, b.data(), b.size()), before);
}

}  // namespace
}  // namespace tierlab
