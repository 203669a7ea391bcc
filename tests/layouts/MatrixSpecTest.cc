// The matrix schema: field validation with file-and-field errors, the axis
// path prefix rule, and writing a value at a JSON path.

#include <gtest/gtest.h>

#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

nlohmann::json Minimal() {
  return {{"layouts", {"nvme2+hdd4"}}, {"profiles", {"4k-randread"}}};
}

TEST(MatrixSpecTest, DefaultsAndAxesInKeyOrder) {
  nlohmann::json j = Minimal();
  j["axes"] = {{"iodepth", {1, 32}}, {"cache.read", {true, false}}};
  auto m = ParseMatrixJson(j, "m.json");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name, "m");
  EXPECT_EQ(m->mode, "sim");
  EXPECT_EQ(m->repeats, 1u);
  EXPECT_EQ(m->seed, 1u);
  ASSERT_EQ(m->axes.size(), 2u);
  EXPECT_EQ(m->axes[0].path, "cache.read");  // sorted keys: the order is the file's content
  EXPECT_EQ(m->axes[0].where.target, AxisTarget::kLayout);
  EXPECT_EQ(m->axes[1].where.target, AxisTarget::kProfile);
  EXPECT_EQ(m->axes[1].values.size(), 2u);
}

TEST(MatrixSpecTest, AxisPathPrefixRule) {
  EXPECT_EQ(ClassifyAxisPath("cache.read").target, AxisTarget::kLayout);
  EXPECT_EQ(ClassifyAxisPath("tiers[0].count").target, AxisTarget::kLayout);
  EXPECT_EQ(ClassifyAxisPath("block_cache.size").target, AxisTarget::kLayout);
  EXPECT_EQ(ClassifyAxisPath("tiering.extent_size").target, AxisTarget::kLayout);
  const AxisPath size = ClassifyAxisPath("layout.size");
  EXPECT_EQ(size.target, AxisTarget::kLayout);
  EXPECT_EQ(size.field, "size");
  EXPECT_EQ(ClassifyAxisPath("size").target, AxisTarget::kProfile);
  EXPECT_EQ(ClassifyAxisPath("bs").target, AxisTarget::kProfile);
}

TEST(MatrixSpecTest, EmptyAxisNamesFileAndAxis) {
  nlohmann::json j = Minimal();
  j["axes"] = {{"bs", nlohmann::json::array()}};
  auto m = ParseMatrixJson(j, "m.json");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ErrorKind::kInput);
  EXPECT_EQ(m.error().message.rfind("m.json: axes.\"bs\": must be a non-empty array", 0), 0u)
      << m.error().message;
}

TEST(MatrixSpecTest, BadFieldsAreOneLineErrors) {
  struct Case {
    nlohmann::json patch;
    std::string expected_prefix;
  };
  const std::vector<Case> cases = {
      {{{"layouts", nlohmann::json::array()}}, "m.json: layouts: must be a non-empty array"},
      {{{"layouts", nullptr}}, "m.json: layouts: missing"},
      {{{"profiles", {1}}}, "m.json: profiles[0]: must be a name, a file or an object"},
      {{{"mode", "fast"}}, "m.json: mode: "},
      {{{"repeats", 0}}, "m.json: repeats: "},
      {{{"axes", {{"bs", {"4k", "4k"}}}}}, "m.json: axes.\"bs\"[1]: duplicate value"},
      {{{"axes", {{"layout", {"a"}}}}}, "m.json: axes.\"layout\": reserved"},
      {{{"exclude", {{{"repeat", 1}}}}}, "m.json: exclude[0].repeat: filters cannot select"},
      {{{"colour", "red"}}, "m.json: colour: unknown"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = Minimal();
    j.merge_patch(c.patch);
    auto m = ParseMatrixJson(j, "m.json");
    ASSERT_FALSE(m.ok()) << c.patch.dump();
    EXPECT_EQ(m.error().kind, ErrorKind::kInput);
    EXPECT_EQ(m.error().message.rfind(c.expected_prefix, 0), 0u)
        << "got: " << m.error().message << "\nwant prefix: " << c.expected_prefix;
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos);
  }
}

TEST(MatrixSpecTest, SetJsonPathWritesNestedFieldsAndIndexes) {
  nlohmann::json doc = {{"tiers", {{{"count", 2}}, {{"count", 4}}}}};
  ASSERT_TRUE(SetJsonPath(doc, "tiers[1].count", 8).ok());
  EXPECT_EQ(doc["tiers"][1]["count"], 8);
  ASSERT_TRUE(SetJsonPath(doc, "cache.read", false).ok());  // creates "cache"
  EXPECT_EQ(doc["cache"]["read"], false);
  EXPECT_EQ(GetJsonPath(doc, "tiers[1].count"), 8);
  EXPECT_TRUE(GetJsonPath(doc, "tiers[5].count").is_null());

  auto out_of_range = SetJsonPath(doc, "tiers[2].count", 1);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().message.find("out of range (tiers has 2 entries)"),
            std::string::npos)
      << out_of_range.error().message;
  EXPECT_FALSE(SetJsonPath(doc, "tiers[x].count", 1).ok());
  EXPECT_FALSE(SetJsonPath(doc, "cache..read", 1).ok());
  EXPECT_FALSE(SetJsonPath(doc, "cache.read.x", 1).ok());  // inside a boolean
}

}  // namespace
}  // namespace tierlab
