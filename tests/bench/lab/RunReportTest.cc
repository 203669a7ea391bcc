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

namespace tierlab {
namespace {

// The run's table shows each figure ± its interval where the JSON has one,
// and the CSV the half-widths in columns of their own.
TEST(RunReportTest, TablesShowConfidenceIntervals) {
  nlohmann::json op = {{"total_ios", 100},
                       {"iops", 1217.3},
                       {"bw_bytes", 4.99e6},
                       {"iops_ci95", {{"lo", 1205.45}, {"hi", 1229.15}, {"n", 20}}},
                       {"bw_bytes_ci95", nullptr},
                       {"lat_ns",
                        {{"mean", 104732000.0},
                         {"max", 706513000},
                         {"mean_ci95", {{"lo", 103659000.0}, {"hi", 105805000.0}, {"n", 20}}},
                         {"percentile", nlohmann::json::object()}}}};
  nlohmann::json none = {{"total_ios", 0}, {"lat_ns", {{"percentile", nlohmann::json::object()}}}};
  const nlohmann::json run = {{"layout", {{"name", "l"}}},
                              {"profile", {{"name", "p"}}},
                              {"tiers", nlohmann::json::array()},
                              {"jobs", {{{"read", op}, {"write", none}, {"complete", op}}}}};
  const std::string table = FormatRun(run, TableFormat::kTable);
  EXPECT_NE(table.find("1217 ± 12"), std::string::npos) << table;
  EXPECT_NE(table.find("104.732 ± 1.073"), std::string::npos) << table;
  EXPECT_NE(table.find("   5.0  "), std::string::npos) << table;  // no interval: the value
  EXPECT_NE(table.find("±: 95% confidence interval"), std::string::npos);
  const std::string csv = FormatRun(run, TableFormat::kCsv);
  EXPECT_NE(csv.find("IOPS ci95,MB/s ci95,mean ms ci95\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("read,1217,5.0,104.732,0.000,0.000,0.000,0.000,706.513,12,,1.073\n"),
            std::string::npos)
      << csv;
}

}  // namespace
}  // namespace tierlab
