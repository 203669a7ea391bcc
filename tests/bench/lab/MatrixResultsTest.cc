// Results documents: the shape check report/merge/diff rely on, the file a
// matrix rewrites as it goes (same bytes as the whole document), resuming.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/lab/MatrixResults.h"
#include "bench/report/MatrixDiff.h"
#include "bench/report/Report.h"
#include "layouts/JsonParse.h"

namespace tierlab {
namespace {

const std::string kFixture = std::string(TIERLAB_SOURCE_DIR) + "/tests/data/matrix/results.json";

nlohmann::json Fixture() {
  auto j = ReadJsonFile(kFixture);
  EXPECT_TRUE(j.ok()) << j.error().message;
  return j.ok() ? *j : nlohmann::json::object();
}

std::string ShapeError(const nlohmann::json& j) {
  auto r = CheckResultsJson(j, "r.json");
  if (r.ok()) return "";
  EXPECT_EQ(r.error().kind, ErrorKind::kInput);
  return r.error().message;
}

TEST(MatrixResultsTest, TypeErrorsNameTheFileAndTheField) {
  nlohmann::json j = Fixture();
  ASSERT_EQ(ShapeError(j), "");
  nlohmann::json a = j;
  a["cells"][3]["jobs"][0]["read"]["iops"] = "fast";
  EXPECT_EQ(ShapeError(a), "r.json: cells[3].jobs[0].read.iops: must be a number, got \"fast\"");
  nlohmann::json b = j;
  b["cells"][0]["jobs"][0]["complete"]["lat_ns"]["percentile"]["99.000000"] = {1};
  EXPECT_EQ(ShapeError(b),
            "r.json: cells[0].jobs[0].complete.lat_ns.percentile.\"99.000000\": must be a number, "
            "got an array [1]");
  nlohmann::json c = j;
  c["cells"][1]["repeat"] = "0";
  EXPECT_EQ(ShapeError(c), "r.json: cells[1].repeat: must be an unsigned integer, got \"0\"");
  nlohmann::json d = j;
  d["cells"][2]["jobs"][0]["write"] = 5;
  EXPECT_EQ(ShapeError(d), "r.json: cells[2].jobs[0].write: must be an object, got 5");
  nlohmann::json e = j;
  e["matrix"]["repeats"] = "three";
  EXPECT_EQ(ShapeError(e), "r.json: matrix.repeats: must be an unsigned integer, got \"three\"");
  nlohmann::json f = j;
  f["cells"][0].erase("id");
  EXPECT_EQ(ShapeError(f), "r.json: cells[0].id: missing; must be a string");
  nlohmann::json g = j;
  g["cell_count"] = -1;
  EXPECT_EQ(ShapeError(g), "r.json: cell_count: must be an unsigned integer, got -1");
  nlohmann::json h = j;
  h["cells"][0]["cache"] = "warm";
  EXPECT_EQ(ShapeError(h), "r.json: cells[0].cache: must be an object, got \"warm\"");
  // Confidence intervals: null or {lo <= hi, n}.
  nlohmann::json k = j;
  k["cells"][0]["jobs"][0]["read"]["iops_ci95"] = nullptr;
  EXPECT_EQ(ShapeError(k), "");
  k["cells"][0]["jobs"][0]["read"]["iops_ci95"] = {1, 2};
  EXPECT_EQ(ShapeError(k),
            "r.json: cells[0].jobs[0].read.iops_ci95: must be null or an object {lo, hi, "
            "half_width, n, method}, got an array [1, 2]");
  k["cells"][0]["jobs"][0]["read"]["iops_ci95"] = {{"lo", 2}, {"hi", 1}, {"n", 20}};
  EXPECT_EQ(ShapeError(k), "r.json: cells[0].jobs[0].read.iops_ci95: lo must not be above hi");
  nlohmann::json l = j;
  l["cells"][1]["jobs"][0]["write"]["lat_ns"]["mean_ci95"] = {{"lo", 1}, {"hi", "2"}, {"n", 20}};
  EXPECT_EQ(ShapeError(l),
            "r.json: cells[1].jobs[0].write.lat_ns.mean_ci95.hi: must be a number, got \"2\"");
}

TEST(MatrixResultsTest, WhatPassesTheCheckRendersWithoutThrowing) {
  // The least a results document may hold: every optional field absent.
  const auto j = nlohmann::json::parse(
      R"({"matrix_hash": "h", "cells": [{"index": 0, "id": "a", "jobs": [{}]},
          {"index": 1, "id": "b", "jobs": [{"read": {"lat_ns": {}}}], "axes": {"x": [1]}}]})");
  ASSERT_EQ(ShapeError(j), "");
  for (auto f : {ReportFormat::kText, ReportFormat::kMarkdown, ReportFormat::kCsv,
                 ReportFormat::kJson, ReportFormat::kHtml}) {
    EXPECT_NO_THROW({
      auto r = RenderReport(j, f, ReportOptions{});
      EXPECT_TRUE(r.ok()) << r.error().message;
    });
  }
  DiffOptions o;
  EXPECT_NO_THROW({ (void)DiffResults(j, j, o); });
}

TEST(MatrixResultsTest, TextIsTheWholeDocumentDumpedAsBefore) {
  const nlohmann::json j = Fixture();
  nlohmann::json header = j;
  header.erase("cells");
  ResultsFile r(header);
  // Added in any order; written in index order.
  const auto& cells = j.at("cells");
  for (std::size_t i = cells.size(); i-- > 0;) r.Add(cells[i]);
  EXPECT_EQ(r.Text(), j.dump(1) + "\n");
  EXPECT_EQ(r.Json(), j);
  ResultsFile empty(header);
  nlohmann::json none = header;
  none["cells"] = nlohmann::json::array();
  EXPECT_EQ(empty.Text(), none.dump(1) + "\n");
}

class ResultsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/results-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ResultsFileTest, WriteAtomicReplacesTheFileAndLeavesNoTempFile) {
  const nlohmann::json j = Fixture();
  nlohmann::json header = j;
  header.erase("cells");
  ResultsFile r(header);
  const std::string path = dir_ + "/r.json";
  std::ofstream(path) << "old";
  r.Add(j.at("cells")[0]);
  ASSERT_TRUE(r.WriteAtomic(path).ok());
  r.Add(j.at("cells")[1]);
  ASSERT_TRUE(r.WriteAtomic(path).ok());
  auto back = ReadJsonFile(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->at("cells").size(), 2u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
  auto fail = r.WriteAtomic(dir_ + "/no/such/dir/r.json");
  ASSERT_FALSE(fail.ok());
  EXPECT_EQ(fail.error().kind, ErrorKind::kIo);
  EXPECT_NE(fail.error().message.find("no/such/dir/r.json"), std::string::npos);
}

TEST(MatrixResultsTest, ResumeTakesOnlyAFileOfTheSameMatrixShardAndVersion) {
  const nlohmann::json j = Fixture();
  const ResumeKey key{j.at("matrix_hash").get<std::string>(), j.value("shard", ""),
                      j.value("tierlab_version", "")};
  nlohmann::json header = j;
  header.erase("cells");
  {
    ResultsFile into(header);
    ASSERT_TRUE(LoadResumedCells(j, "r.json", key, into).ok());
    EXPECT_EQ(into.size(), j.at("cells").size());
    EXPECT_TRUE(into.Has(0));
  }
  ResultsFile into(header);
  ResumeKey other = key;
  other.matrix_hash = "0000000000000000";
  auto e = LoadResumedCells(j, "r.json", other, into);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, ErrorKind::kInput);
  EXPECT_NE(e.error().message.find("r.json: from another matrix"), std::string::npos)
      << e.error().message;
  other = key;
  other.shard = "2/4";
  EXPECT_NE(LoadResumedCells(j, "r.json", other, into).error().message.find("shard"),
            std::string::npos);
  other = key;
  other.tierlab_version = "9.9.9";
  EXPECT_NE(LoadResumedCells(j, "r.json", other, into).error().message.find("9.9.9"),
            std::string::npos);
  EXPECT_EQ(into.size(), 0u);
}

}  // namespace
}  // namespace tierlab
