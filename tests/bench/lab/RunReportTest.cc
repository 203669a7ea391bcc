// RunReport's documents: several sections make one document with fio's
// jobs[] over all of them.

#include <gtest/gtest.h>

#include "bench/lab/RunReport.h"

namespace tierlab {
namespace {

nlohmann::json OneRun(const std::string& job, const std::string& device) {
  return {{"tierlab_version", "x"},
          {"mode", "sim"},
          {"seed", 1},
          {"layout", {{"name", "l"}}},
          {"profile", {{"name", job}}},
          {"jobs", nlohmann::json::array({{{"jobname", job}}})},
          {"devices", nlohmann::json::array({{{"name", device}}})}};
}

TEST(RunReportTest, SectionsMakeOneDocumentWithEveryJob) {
  const nlohmann::json g = {{"bs", "4k"}};
  const nlohmann::json doc = CombineRuns({OneRun("a", "d1"), OneRun("b", "d2")}, g);
  ASSERT_EQ(doc["jobs"].size(), 2u);
  EXPECT_EQ(doc["jobs"][0]["jobname"], "a");
  EXPECT_EQ(doc["jobs"][1]["jobname"], "b");
  ASSERT_EQ(doc["sections"].size(), 2u);
  EXPECT_EQ(doc["sections"][1]["devices"][0]["name"], "d2");
  EXPECT_EQ(doc["sections"][0]["profile"]["name"], "a");
  EXPECT_EQ(doc["global options"], g);
  EXPECT_EQ(doc["layout"]["name"], "l");
  EXPECT_FALSE(doc.contains("devices"));  // per section only

  const nlohmann::json one = CombineRuns({OneRun("a", "d1")}, nlohmann::json::object());
  EXPECT_EQ(one["jobs"].size(), 1u);
  EXPECT_EQ(one["devices"][0]["name"], "d1");
  EXPECT_TRUE(one["global options"].is_object());
}

TEST(RunReportTest, JobOptionsAreTheProfilesAsStrings) {
  Profile p;
  p.iodepth = 16;
  p.bs = 8192;
  const nlohmann::json o = FioJobOptions(p);
  EXPECT_EQ(o["iodepth"], "16");
  EXPECT_EQ(o["bs"], "8k");
  EXPECT_FALSE(o.contains("name"));
}

}  // namespace
}  // namespace tierlab
