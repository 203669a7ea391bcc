#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/lab/OpMetrics.h"

namespace tierlab {
namespace {

TEST(OpMetricsTest, SplitsByOpAndComputesRatesOverTheWindow) {
  OpMetrics m;
  for (int i = 0; i < 300; ++i) m.Record(IoOp::kRead, 4096, 100 * kMicro);
  for (int i = 0; i < 100; ++i) m.Record(IoOp::kWrite, 8192, 1 * kMilli);
  m.Record(IoOp::kFlush, 0, 2 * kMilli);
  m.RecordError(IoOp::kWrite);
  m.SetWindow(1 * kSecond, 3 * kSecond);  // 2 s
  EXPECT_EQ(m.read().ops, 300u);
  EXPECT_EQ(m.write().ops, 100u);
  EXPECT_EQ(m.complete().ops, 401u);
  EXPECT_EQ(m.write().errors, 1u);
  EXPECT_DOUBLE_EQ(m.read().Iops(m.window()), 150.0);
  EXPECT_DOUBLE_EQ(m.write().BandwidthBytesPerSec(m.window()), 100.0 * 8192 / 2);
  EXPECT_EQ(m.complete().lat.Max(), static_cast<std::uint64_t>(2 * kMilli));

  const auto j = m.ToJson();
  EXPECT_EQ(j["read"]["total_ios"], 300);
  EXPECT_DOUBLE_EQ(j["read"]["iops"].get<double>(), 150.0);
  EXPECT_TRUE(j["write"]["lat_ns"]["percentile"].contains("99.990000"));
  EXPECT_EQ(j["write"]["lat_ns"]["percentile"]["50.000000"], 1000000);
}

TEST(OpMetricsTest, MergeSumsAndUnitesWindows) {
  OpMetrics a, b;
  a.Record(IoOp::kRead, 4096, 10);
  a.SetWindow(100, 200);
  b.Record(IoOp::kRead, 4096, 20);
  b.SetWindow(150, 400);
  a.Merge(b);
  EXPECT_EQ(a.read().ops, 2u);
  EXPECT_EQ(a.window(), 300);
  EXPECT_EQ(a.read().lat.Max(), 20u);
}

}  // namespace
}  // namespace tierlab

namespace tierlab {
namespace {

// fio's units and sample statistics: bw in KiB/s, runtime in ms, bw_/iops_
// min/max/mean/dev over 500 ms samples (sample standard deviation).
TEST(OpMetricsFioKeysTest, UnitsAndIntervalSamples) {
  OpMetrics m;
  m.SetSampleOrigin(0);
  // 2 s window: 100 reads of 4 KiB in the first 500 ms, 300 in each of the
  // other three.
  for (int i = 0; i < 100; ++i) m.Record(IoOp::kRead, 4096, 50 * kMicro, i * kMilli);
  for (int k = 1; k < 4; ++k) {
    for (int i = 0; i < 300; ++i) {
      m.Record(IoOp::kRead, 4096, 50 * kMicro, k * 500 * kMilli + i * kMilli);
    }
  }
  m.SetWindow(0, 2 * kSecond);
  const nlohmann::json r = m.ToJson()["read"];
  EXPECT_EQ(r["runtime"], 2000);
  EXPECT_EQ(r["io_kbytes"], 1000 * 4);
  EXPECT_EQ(r["bw"], 2000);  // 4000 KiB in 2 s
  EXPECT_EQ(r["iops_samples"], 4);
  EXPECT_EQ(r["iops_min"], 200);
  EXPECT_EQ(r["iops_max"], 600);
  EXPECT_DOUBLE_EQ(r["iops_mean"].get<double>(), 500.0);
  EXPECT_NEAR(r["iops_stddev"].get<double>(), 200.0, 1e-9);  // (n-1): sqrt(120000/3)
  EXPECT_EQ(r["bw_min"], 800);
  EXPECT_EQ(r["bw_max"], 2400);
  EXPECT_DOUBLE_EQ(r["bw_mean"].get<double>(), 2000.0);
  EXPECT_TRUE(r["clat_ns"]["percentile"].contains("99.000000"));
  EXPECT_EQ(r["clat_ns"]["N"], 1000);
  EXPECT_EQ(r["slat_ns"]["N"], 0);
  // A window shorter than one sample is its own sample.
  OpMetrics s;
  s.Record(IoOp::kWrite, 8192, 10 * kMicro, 0);
  s.SetWindow(0, 100 * kMilli);
  EXPECT_EQ(s.ToJson()["write"]["iops_samples"], 1);
  EXPECT_DOUBLE_EQ(s.ToJson()["write"]["iops_mean"].get<double>(), 10.0);
}

TEST(OpMetricsFioKeysTest, OpenLoopClatIsIssueToCompletion) {
  OpMetrics m;
  m.Record(IoOp::kRead, 4096, 5 * kMilli, 0);  // waited 4 ms for a slot
  m.RecordClat(IoOp::kRead, 1 * kMilli);
  m.SetWindow(0, kSecond);
  const nlohmann::json r = m.ToJson()["read"];
  EXPECT_EQ(r["lat_ns"]["max"], 5 * kMilli);
  EXPECT_EQ(r["clat_ns"]["max"], 1 * kMilli);
}

}  // namespace
}  // namespace tierlab
