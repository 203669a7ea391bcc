// The JSON reader every user file goes through: bounded depth, duplicate
// keys, binary bytes, directories, and short descriptions of bad values.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

std::string Nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

TEST(JsonParseTest, DepthIsBoundedWhereverTheDeepValueIs) {
  EXPECT_TRUE(ParseJsonText(Nested(kMaxJsonDepth), "x.json").ok());
  for (std::size_t depth : {kMaxJsonDepth + 1, std::size_t{100000}}) {
    auto j = ParseJsonText("{\"cache\": " + Nested(depth) + "}", "x.json");
    ASSERT_FALSE(j.ok()) << depth;
    EXPECT_EQ(j.error().kind, ErrorKind::kInput);
    EXPECT_EQ(j.error().message.rfind("x.json: cache[0]", 0), 0u) << j.error().message;
    EXPECT_NE(j.error().message.find("nested deeper than 64 levels"), std::string::npos)
        << j.error().message;
    EXPECT_LT(j.error().message.size(), 200u);
  }
  // Objects count as levels too.
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(100000, '}');
  auto j = ParseJsonText(deep, "y.json");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("nested deeper than"), std::string::npos);
}

TEST(JsonParseTest, DuplicateKeyNamesTheFieldAndBothValues) {
  auto j = ParseJsonText(R"({"cache": {"tier": "cache", "tier": "hdd"}})", "l.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().message, "l.json: cache.tier: duplicate key: first \"cache\", then \"hdd\"");
  auto deep = ParseJsonText(R"({"tiers": [{"name": "a"}, {"count": 1, "count": {"x": [1, 2]}}]})",
                            "l.json");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message,
            "l.json: tiers[1].count: duplicate key: first 1, then an object {\"x\": [1, 2]}");
  // Axis paths are keys with dots: quoted.
  auto axes = ParseJsonText(R"({"axes": {"cache.read": [true], "cache.read": [false]}})", "m.json");
  ASSERT_FALSE(axes.ok());
  EXPECT_EQ(axes.error().message.rfind("m.json: axes.\"cache.read\": duplicate key", 0), 0u)
      << axes.error().message;
  // A duplicate inside a duplicate's value (ConfigJsonFuzz found it
  // reading freed memory): the inner one is named.
  auto nested = ParseJsonText(R"({"a": 1, "a": {"b": [1], "c": {"d": 1, "d": [2]}}})", "l.json");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(nested.error().message, "l.json: a.c.d: duplicate key: first 1, then an array [2]");
  auto twice = ParseJsonText(R"({"a": 1, "a": {"b": 1, "b": {"e": 1, "e": 2}}})", "l.json");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "l.json: a.b.e: duplicate key: first 1, then 2");
  // The same key in two objects is fine.
  EXPECT_TRUE(ParseJsonText(R"({"a": {"k": 1}, "b": {"k": 2}, "k": 3})", "ok.json").ok());
}

// Every message naming a field would carry the key: a newline in it split
// a matrix's axis error in two (ConfigJsonFuzz), an escape would reach the
// terminal. Such a key is refused where it is read, shown JSON-escaped.
TEST(JsonParseTest, AKeyWithAControlCharacterIsRefusedInOneLine) {
  auto axis = ParseJsonText(R"({"axes": {"layout.block\ncache": [null]}})", "m.json");
  ASSERT_FALSE(axis.ok());
  EXPECT_EQ(axis.error().message,
            R"(m.json: axes."layout.block\ncache": a key holds a control character)");
  auto escape = ParseJsonText(R"({"tiers": [{"name": "a"}, {"\u001b[31m": 1}]})", "l.json");
  ASSERT_FALSE(escape.ok());
  EXPECT_EQ(escape.error().message,
            R"(l.json: tiers[1]."\u001b[31m": a key holds a control character)");
  // Values may hold them (the fields that take text quote it in errors).
  EXPECT_TRUE(ParseJsonText(R"({"description": "two\nlines"})", "ok.json").ok());
}

TEST(JsonParseTest, ValuesCommentsAndSyntaxErrors) {
  auto j = ParseJsonText("// a comment\n{\"a\": [1, 2.5, \"s\", null, true], /* b */ \"b\": {}}",
                         "c.json");
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ(*j, nlohmann::json::parse(R"({"a": [1, 2.5, "s", null, true], "b": {}})"));
  EXPECT_TRUE(ParseJsonText("18446744073709551615", "u.json")->is_number_unsigned());
  auto bad = ParseJsonText("{\"a\": 1,\n \"b\": }", "s.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message.rfind("s.json: invalid JSON at line 2, column ", 0), 0u)
      << bad.error().message;
  EXPECT_FALSE(ParseJsonText("", "e.json").ok());
  EXPECT_FALSE(ParseJsonText("{} {}", "two.json").ok());
}

TEST(JsonParseTest, BinaryBytesAreReportedAsSuch) {
  auto j = ParseJsonText(std::string("{\"a\":\n 1,\0 \"b\": 2}", 18), "bin.json");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.error().message,
            "bin.json:2: binary data (byte 0x00 at column 4); a JSON file is text");
  EXPECT_FALSE(CheckTextBytes("a\x01z", "f", "x").ok());
  EXPECT_FALSE(CheckTextBytes("a\x7fz", "f", "x").ok());
  EXPECT_TRUE(CheckTextBytes("tab\tcr\r\nff\f \xc3\xa9", "f", "x").ok());
}

TEST(JsonParseTest, DescriptionsAreShortWhateverTheValue) {
  EXPECT_EQ(DescribeJson(5), "5");
  EXPECT_EQ(DescribeJson("4k"), "\"4k\"");
  EXPECT_EQ(DescribeJson(nullptr), "null");
  EXPECT_EQ(DescribeJson(nlohmann::json::parse("[1, 2]")), "an array [1, 2]");
  const std::string d = DescribeJson(std::string(1 << 20, 'a'));
  EXPECT_EQ(d.rfind("a string of 1048576 chars \"aaa", 0), 0u) << d;
  EXPECT_LT(d.size(), 100u);
  nlohmann::json big = nlohmann::json::object();
  for (int i = 0; i < 10000; ++i) big["key" + std::to_string(i)] = std::string(100, 'v');
  const std::string o = DescribeJson(big);
  EXPECT_EQ(o.rfind("an object of 10000 keys {\"key0\": \"vvv", 0), 0u) << o;
  EXPECT_LT(o.size(), 100u);
  // Deeper than any parse allows, built in memory: still bounded.
  nlohmann::json deep = 1;
  for (int i = 0; i < 1000; ++i) deep = nlohmann::json::array({deep});
  EXPECT_LT(DescribeJson(deep).size(), 100u);
  // A cut through a UTF-8 character does not throw.
  EXPECT_NO_THROW(DescribeJson(std::string(60, 'a') + std::string(40, '\xc3') + "\xa9"));
}

TEST(JsonParseTest, FieldErrorsShowTheTypeAndAPrefixNotTheValue) {
  const nlohmann::json j = {{"name", nlohmann::json::array({std::string(100000, 'n')})}};
  JsonFields f(j, "l.json", "");
  (void)f.String("name", "");
  ASSERT_FALSE(f.ok());
  EXPECT_LT(f.error().message.size(), 160u) << f.error().message;
  EXPECT_EQ(
      f.error().message.rfind("l.json: name: must be a string, got an array of 1 values [", 0), 0u)
      << f.error().message;
}

TEST(JsonParseTest, LargestUnsignedIsNotPrintedAsMinusOne) {
  const auto j = nlohmann::json::parse(R"({"count": 18446744073709551615})");
  JsonFields f(j, "l.json", "tiers[0]");
  (void)f.Int("count", 1, 1, 1024);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message, "l.json: tiers[0].count: must be 1..1024, got 18446744073709551615");
}

class JsonFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/jsonparse-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string p = dir_ + "/" + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string dir_;
};

TEST_F(JsonFileTest, DirectoriesAndMissingFilesAreNamedWithExitCode2) {
  std::filesystem::create_directory(dir_ + "/d.json");
  auto d = ReadJsonFile(dir_ + "/d.json");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().kind, ErrorKind::kInput);
  EXPECT_EQ(d.error().message, dir_ + "/d.json: is a directory, not a file");
  auto m = ReadJsonFile(dir_ + "/missing.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ErrorKind::kInput);
  EXPECT_EQ(m.error().message, dir_ + "/missing.json: cannot open: no such file");
  // Layouts and matrices, by file name or by a name that is a directory.
  std::filesystem::create_directory(dir_ + "/plain");
  auto l = LoadLayout(dir_ + "/plain");
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("plain: is a directory"), std::string::npos)
      << l.error().message;
  auto mx = LoadMatrixFile(dir_ + "/d.json");
  ASSERT_FALSE(mx.ok());
  EXPECT_EQ(mx.error().kind, ErrorKind::kInput);
}

TEST_F(JsonFileTest, DuplicateKeyInALayoutFileIsAnErrorNotTheLastWins) {
  const std::string p = Write("dup.json", R"({"name": "d",
    "tiers": [{"name": "cache", "preset": "nvme-pm1725"}, {"name": "hdd", "preset": "hdd-7200"}],
    "cache": {"tier": "cache", "tier": "hdd"}})");
  auto l = LoadLayout(p);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message, p + ": cache.tier: duplicate key: first \"cache\", then \"hdd\"");
}

}  // namespace
}  // namespace tierlab
