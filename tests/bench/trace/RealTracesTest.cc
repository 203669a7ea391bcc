// The public sample traces in tests/data/traces against the figures their
// README (from the publishers' descriptions) gives.

#include <gtest/gtest.h>

#include "bench/analysis/TraceStats.h"
#include "bench/trace/TraceFactory.h"

namespace tierlab {
namespace {

std::string Fixture(const std::string& name) {
  return std::string(TIERLAB_SOURCE_DIR) + "/tests/data/traces/" + name;
}

TraceStats Stats(const std::string& file, TraceFormat format) {
  auto reader = OpenTrace(Fixture(file), {.format = format});
  EXPECT_TRUE(reader.ok());
  auto stats = ComputeTraceStats(**reader);
  EXPECT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ((*reader)->bad_records(), 0u);
  return *stats;
}

TEST(RealTracesTest, CloudPhysicsVscsiMatchesPublishedFigures) {
  TraceStats s = Stats("cloudPhysicsIO.vscsi", TraceFormat::kAuto);
  EXPECT_EQ(s.requests, 113872u);
  EXPECT_EQ(s.writes, 66898u);
  EXPECT_EQ(s.reads, 46974u);
  EXPECT_EQ(s.min_request_bytes, 512u);
  EXPECT_EQ(s.max_request_bytes, 68u * 1024);
  EXPECT_EQ(s.unique_start_offsets, 48974u);
  EXPECT_NEAR(s.duration_seconds(), 7200.0, 10.0);
  // "most 64 KiB": the [64 KiB, 128 KiB) bucket holds the most requests.
  std::size_t top = 0;
  for (std::size_t i = 0; i < s.size_histogram.size(); ++i) {
    if (s.size_histogram[i] > s.size_histogram[top]) top = i;
  }
  EXPECT_EQ(top, 16u);
}

TEST(RealTracesTest, MsrCambridgeSample) {
  TraceStats s = Stats("msr-cambridge1-sample.csv", TraceFormat::kMsrCsv);
  EXPECT_EQ(s.requests, 1000u);
  EXPECT_EQ(s.reads, 508u);
  EXPECT_EQ(s.writes, 492u);
}

TEST(RealTracesTest, Systor17SampleUnsortedRows) {
  auto reader = OpenTrace(Fixture("systor17-traces-sample.csv"));
  ASSERT_TRUE(reader.ok());
  auto s = ComputeTraceStats(**reader);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->requests, 999u);
  EXPECT_EQ(s->reads, 826u);
  EXPECT_EQ(s->writes, 173u);
  EXPECT_GT((*reader)->reordered_records(), 0u);  // the README says rows are unsorted
}

}  // namespace
}  // namespace tierlab
