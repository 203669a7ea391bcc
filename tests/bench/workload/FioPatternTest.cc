// fio's pattern syntax: the inputs and bytes below are the examples fio
// documents for its pattern parser (lib/pattern.c), plus tierlab's errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/workload/FioPattern.h"

namespace tierlab {
namespace {

std::vector<int> Bytes(std::string_view text) {
  auto p = ParseFioPattern(text, /*allow_offsets=*/true);
  EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.error().message);
  std::vector<int> out;
  if (p.ok()) {
    for (std::byte b : p->bytes) out.push_back(static_cast<int>(b));
  }
  return out;
}

TEST(FioPatternTest, ReadsFiosDocumentedExamples) {
  EXPECT_EQ(Bytes("\"abcd\""), (std::vector<int>{0x61, 0x62, 0x63, 0x64}));
  EXPECT_EQ(Bytes("-1024"), (std::vector<int>{0x00, 0xfc, 0xff, 0xff}));
  EXPECT_EQ(Bytes("66"), (std::vector<int>{0x42}));
  EXPECT_EQ(Bytes("0xFF0X1"), (std::vector<int>{0xff, 0x01}));
  EXPECT_EQ(Bytes("%o"), std::vector<int>(8, 0));
  EXPECT_EQ(Bytes("\"123\"0xFFeeCC"), (std::vector<int>{0x31, 0x32, 0x33, 0xff, 0xee, 0xcc}));
  std::vector<int> seven = {0xf6, 0xff, 0xff, 0xff, 0xab, 0x31};
  seven.resize(14, 0);
  seven.push_back(0x32);
  EXPECT_EQ(Bytes("-100xab\"1\"%o\"2\""), seven);
  EXPECT_EQ(Bytes("0xfefefefefefefefefefefefefefefefefefefefefe"), std::vector<int>(21, 0xfe));
  EXPECT_EQ(Bytes("0xaa555aa5"), (std::vector<int>{0xaa, 0x55, 0x5a, 0xa5}));
  EXPECT_EQ(Bytes("0xabc"), (std::vector<int>{0x0a, 0xbc}));  // an odd digit alone first
  EXPECT_EQ(Bytes("0"), (std::vector<int>{0}));
  EXPECT_EQ(Bytes("256"), (std::vector<int>{0x00, 0x01}));
}

TEST(FioPatternTest, OffsetsGoWhereEachPercentOWas) {
  auto p = ParseFioPattern("%o0xdeadbeef%o", true);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->offset_slots, (std::vector<std::uint32_t>{0, 12}));
  EXPECT_EQ(p->bytes.size(), 20u);
}

TEST(FioPatternTest, RefusesWhatItCannotReadNamingTheElement) {
  for (std::string_view bad :
       {"", "\"open", "\"\"", "%d", "'file'", "0x", "zz", "4294967296", "0x0x1", "1 2"}) {
    auto p = ParseFioPattern(bad, true);
    EXPECT_FALSE(p.ok()) << bad;
  }
  auto no_offsets = ParseFioPattern("%o", false);
  ASSERT_FALSE(no_offsets.ok());
  EXPECT_NE(no_offsets.error().message.find("verify_pattern only"), std::string::npos);
  EXPECT_FALSE(ParseFioPattern("0x" + std::string(1026, 'a'), true).ok());  // 513 bytes
}

TEST(FioPatternTest, AnElementWithControlBytesIsNamedOnOneLine) {
  auto p = ParseFioPattern("\"a\nb", true);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "pattern element '\"a?b': a string without its closing quote");
}

TEST(FioPatternTest, ABufferRepeatsTheCopyWithTheWritesOffsetFromItsFirstByte) {
  auto p = ParseFioPattern("\"ab\"%o", true);
  ASSERT_TRUE(p.ok());
  std::vector<std::byte> buf(25);
  FillFromPattern(*p, 0x0102, 0, buf.data(), buf.size());
  EXPECT_EQ(buf[0], std::byte{'a'});
  EXPECT_EQ(buf[2], std::byte{0x02});  // the offset, little-endian
  EXPECT_EQ(buf[3], std::byte{0x01});
  EXPECT_EQ(buf[10], std::byte{'a'});  // the second copy
  EXPECT_EQ(buf[12], std::byte{0x02});
  // A piece from the middle of the write is the same bytes.
  std::vector<std::byte> tail(7);
  FillFromPattern(*p, 0x0102, 18, tail.data(), tail.size());
  EXPECT_TRUE(std::equal(tail.begin(), tail.end(), buf.begin() + 18));
}

}  // namespace
}  // namespace tierlab
