// docs/FIO-COMPAT.md against the parser: the options it lists as supported
// (same meaning or with a difference) are the profile's option table, the
// ignored ones are the parser's ignore list, and each option it lists as
// rejected is refused by the job-file parser. An option added to the code
// without its line in the document, or a stale line, fails here.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "bench/workload/FioJobFile.h"
#include "bench/workload/Profile.h"

namespace tierlab {
namespace {

std::string ReadDoc() {
  std::ifstream in(std::string(TIERLAB_SOURCE_DIR) + "/docs/FIO-COMPAT.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The `names` in the first column of the table after `<!-- fio: KIND -->`.
std::set<std::string> OptionsIn(const std::string& doc, const std::string& kind) {
  std::set<std::string> out;
  const std::string marker = "<!-- fio: " + kind + " -->";
  const std::size_t at = doc.find(marker);
  if (at == std::string::npos) return out;
  std::istringstream in(doc.substr(at + marker.size()));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);  // header
  std::getline(in, line);  // separator
  while (std::getline(in, line) && !line.empty() && line[0] == '|') {
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    for (std::size_t b = first.find('`'); b != std::string::npos; b = first.find('`', b + 1)) {
      const std::size_t e = first.find('`', b + 1);
      if (e == std::string::npos) break;
      out.insert(first.substr(b + 1, e - b - 1));
      b = e;
    }
  }
  return out;
}

std::string Listed(const std::set<std::string>& s) {
  std::string out;
  for (const auto& n : s) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::set<std::string> Minus(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::set<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

TEST(FioCompatDocTest, SupportedAndIgnoredOptionsAreTheParsers) {
  const std::string doc = ReadDoc();
  ASSERT_FALSE(doc.empty()) << "docs/FIO-COMPAT.md not found";
  std::set<std::string> supported = OptionsIn(doc, "same");
  const std::set<std::string> different = OptionsIn(doc, "different");
  for (const auto& d : different) {
    EXPECT_EQ(supported.count(d), 0u) << d << " is listed as both same and different";
  }
  supported.insert(different.begin(), different.end());
  std::set<std::string> code;
  for (auto n : SupportedOptionNames()) code.insert(std::string(n));
  EXPECT_EQ(Minus(code, supported), std::set<std::string>{})
      << "supported by the parser, missing from the doc: " << Listed(Minus(code, supported));
  EXPECT_EQ(Minus(supported, code), std::set<std::string>{})
      << "in the doc, not supported by the parser: " << Listed(Minus(supported, code));

  const std::set<std::string> ignored = OptionsIn(doc, "ignored");
  std::set<std::string> code_ignored;
  for (auto n : IgnoredOptionNames()) code_ignored.insert(std::string(n));
  EXPECT_EQ(Minus(code_ignored, ignored), std::set<std::string>{})
      << "ignored by the parser, missing from the doc: " << Listed(Minus(code_ignored, ignored));
  EXPECT_EQ(Minus(ignored, code_ignored), std::set<std::string>{})
      << "in the doc as ignored, not ignored by the parser: "
      << Listed(Minus(ignored, code_ignored));
}

TEST(FioCompatDocTest, RejectedOptionsAreRefused) {
  const std::set<std::string> rejected = OptionsIn(ReadDoc(), "rejected");
  ASSERT_GT(rejected.size(), 20u);
  for (const auto& name : rejected) {
    auto r = ParseFioJobFile("[j]\n" + name + "=1\n", "r.fio", false);
    ASSERT_FALSE(r.ok()) << name << " is listed as rejected but parses";
    EXPECT_EQ(r.error().message.rfind("r.fio:2: unknown option '" + name + "'", 0), 0u)
        << r.error().message;
  }
}

// The comparison itself sees a missing line (so the test above can fail).
TEST(FioCompatDocTest, TheComparisonSeesAMissingOption) {
  const std::string doc = "<!-- fio: same -->\n| option | note |\n|---|---|\n| `a`, `b` | x |\n";
  EXPECT_EQ(OptionsIn(doc, "same"), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(OptionsIn(doc, "ignored"), std::set<std::string>{});
}

}  // namespace
}  // namespace tierlab
