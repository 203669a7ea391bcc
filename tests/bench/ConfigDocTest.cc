// docs/CONFIG.md against the field tables: every key of every schema is in
// the document with the type, default, unit and meaning the code has, and
// the document lists no key the code does not read. A key added to a table
// without its line in CONFIG.md fails here; the message prints the table as
// it should read, ready to paste.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/Profile.h"
#include "layouts/FieldTable.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"

namespace tierlab {
namespace {

std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// The Markdown table docs/CONFIG.md must hold for `docs`.
std::vector<std::string> Render(const std::vector<FieldDoc>& docs) {
  std::vector<std::string> lines = {"| key | type | default | unit | meaning |",
                                    "|---|---|---|---|---|"};
  for (const auto& d : docs) {
    lines.push_back("| `" + d.key + "` | " + Cell(d.type) + " | " + Cell(d.fallback) + " | " +
                    Cell(d.unit) + " | " + Cell(d.meaning) + " |");
  }
  return lines;
}

// The table lines after `marker`.
std::vector<std::string> TableAfterMarker(const std::string& doc, const std::string& marker) {
  std::vector<std::string> lines;
  const std::size_t at = doc.find(marker);
  if (at == std::string::npos) return lines;
  std::istringstream in(doc.substr(at + marker.size()));
  std::string line;
  std::getline(in, line);  // rest of the marker line
  while (std::getline(in, line) && line.empty()) {
  }
  do {
    if (line.empty() || line[0] != '|') break;
    lines.push_back(line);
  } while (std::getline(in, line));
  return lines;
}

// The table lines after the marker `<!-- fields: NAME -->`.
std::vector<std::string> TableAfter(const std::string& doc, const std::string& name) {
  return TableAfterMarker(doc, "<!-- fields: " + name + " -->");
}

std::string ReadFile(const std::string& relative) {
  std::ifstream in(std::string(TIERLAB_SOURCE_DIR) + "/" + relative);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Schema {
  const char* name;
  std::vector<FieldDoc> docs;
};

std::vector<Schema> Schemas() {
  return {
      {"layout", DocumentFields(LayoutFields())},
      {"tiers", DocumentFields(TierFields())},
      {"model", DocumentFields(ModelFields())},
      {"log", DocumentFields(TierLogFields())},
      {"log.nvram", DocumentFields(TierLogNvramFields())},
      {"cache", DocumentFields(CacheFields())},
      {"tiering", DocumentFields(TieringFields())},
      {"pins", DocumentFields(TierPinFields())},
      {"block_cache", DocumentFields(BlockCacheFields())},
      {"reduction", DocumentFields(ReductionFields())},
      {"cpu", DocumentFields(HostCpuFields())},
      {"cluster", DocumentFields(ClusterFields())},
      {"cluster.network", DocumentFields(ClusterNetworkFields())},
      {"cluster.clients", DocumentFields(ClusterClientsFields())},
      {"cluster.protection", DocumentFields(ClusterProtectionFields())},
      {"cluster.placement", DocumentFields(ClusterPlacementFields())},
      {"cluster.cpu", DocumentFields(ClusterCpuFields())},
      {"cluster.failures[]", DocumentFields(ClusterFailureFields())},
      {"cluster.repair", DocumentFields(ClusterRepairFields())},
      {"profile", ProfileFieldDocs()},
      {"matrix", DocumentFields(MatrixFields())},
  };
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(ConfigDocTest, EveryKeyOfEverySchemaIsDocumentedAsTheCodeHasIt) {
  const std::string doc = ReadFile("docs/CONFIG.md");
  ASSERT_FALSE(doc.empty()) << "docs/CONFIG.md is missing";
  for (const Schema& s : Schemas()) {
    const std::vector<std::string> want = Render(s.docs);
    EXPECT_EQ(Joined(TableAfter(doc, s.name)), Joined(want))
        << "docs/CONFIG.md, the table after <!-- fields: " << s.name << " -->, should read:\n\n"
        << Joined(want);
  }
}

// The list of builtins and groups after `<!-- builtins -->` is the
// registry's (BuiltinProfiles.h), in its order.
TEST(ConfigDocTest, EveryBuiltinProfileAndGroupIsListed) {
  const std::string doc = ReadFile("docs/CONFIG.md");
  std::vector<std::string> want = {"| name | what it is |", "|---|---|"};
  for (const auto& b : BuiltinProfileList()) {
    want.push_back("| `" + std::string(b.name) + "` | " + Cell(std::string(b.description)) + " |");
  }
  for (const auto& g : BuiltinGroupList()) {
    want.push_back("| `" + std::string(g.name) + "` | group: " + Cell(std::string(g.description)) +
                   " |");
  }
  EXPECT_EQ(Joined(TableAfterMarker(doc, "<!-- builtins -->")), Joined(want))
      << "docs/CONFIG.md, the table after <!-- builtins -->, should read:\n\n"
      << Joined(want);
}

TEST(ConfigDocTest, TheComparisonSeesAMissingKey) {
  // The check above is only worth something if a key missing from the
  // document makes the tables differ.
  std::vector<FieldDoc> docs = DocumentFields(CacheFields());
  const std::vector<std::string> full = Render(docs);
  docs.pop_back();
  EXPECT_NE(Render(docs), full);
  EXPECT_EQ(Render(DocumentFields(CacheFields())).size(), CacheFields().size() + 2);
}

TEST(ConfigDocTest, DefaultsAreTheParsersDefaults) {
  // The documented default is what a spec read from an empty object holds.
  auto empty = ParseCacheJson(nlohmann::json::object(), "x.json", "cache");
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  CacheSpec c = *empty;
  c.tier.clear();  // the one key whose default is a rule ("the first tier")
  EXPECT_EQ(CacheSpecToJson(c), WriteFields(CacheFields(), CacheSpec{}));
  auto t = ParseTieringJson(nlohmann::json::object(), "x.json");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(TieringToJson(*t), TieringToJson(TieringSpec{}));
  auto b = ParseBlockCacheJson(nlohmann::json::object(), "x.json");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(BlockCacheToJson(*b), BlockCacheToJson(BlockCacheSpec{}));
}

TEST(ConfigDocTest, ReadmeLinksEveryDoc) {
  const std::string readme = ReadFile("README.md");
  ASSERT_FALSE(readme.empty());
  int docs = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(TIERLAB_SOURCE_DIR) + "/docs")) {
    if (e.path().extension() != ".md") continue;
    ++docs;
    const std::string link = "(docs/" + e.path().filename().string() + ")";
    EXPECT_NE(readme.find(link), std::string::npos) << "README.md does not link " << link;
  }
  EXPECT_GT(docs, 0);
}

}  // namespace
}  // namespace tierlab
