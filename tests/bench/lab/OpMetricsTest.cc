#include <gtest/gtest.h>

#include <cmath>
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

namespace tierlab {
namespace {

// The batch-means intervals of one run, by hand: a 2 s window in 20 batches
// of 100 ms, even batches with 100 reads of 1 ms, odd ones with 120 of 3 ms.
// Batch IOPS 1000 and 1200, so s = 100 sqrt(20 / 19) and the half-width
// t(0.975, 19) s / sqrt(20), around the window's own 1100 IOPS.
TEST(OpMetricsCiTest, BatchMeansByHand) {
  OpMetrics m;
  m.SetSampleOrigin(0);
  for (int b = 0; b < 20; ++b) {
    const int n = b % 2 == 0 ? 100 : 120;
    const Nanos lat = b % 2 == 0 ? kMilli : 3 * kMilli;
    for (int i = 0; i < n; ++i) {
      m.Record(IoOp::kRead, 4096, lat, b * 100 * kMilli + i * (100 * kMilli / n));
    }
  }
  m.SetWindow(0, 2 * kSecond);
  const nlohmann::json r = m.ToJson()["read"];
  const double t19 = 2.093024054;
  const double half = t19 * 100 * std::sqrt(20.0 / 19) / std::sqrt(20.0);
  EXPECT_EQ(r["ci95_batches"]["batches"], 20);
  EXPECT_EQ(r["ci95_batches"]["batch_ns"], 100 * kMilli);
  EXPECT_LT(r["ci95_batches"]["lag1"].get<double>(), -0.5);
  const nlohmann::json& iops = r["iops_ci95"];
  EXPECT_EQ(iops["method"], "batch_means");
  EXPECT_EQ(iops["n"], 20);
  EXPECT_NEAR(iops["half_width"].get<double>(), half, 1e-6);
  EXPECT_NEAR(iops["lo"].get<double>(), 1100 - half, 1e-6);
  EXPECT_NEAR(iops["hi"].get<double>(), 1100 + half, 1e-6);
  EXPECT_NEAR(r["bw_bytes_ci95"]["half_width"].get<double>(), 4096 * half, 1e-3);
  // Latency: batch means 1 and 3 ms around the histogram's mean,
  // (100 x 1 + 120 x 3) / 220 ms.
  const nlohmann::json& lat = r["lat_ns"]["mean_ci95"];
  const double lat_half = t19 * 1e6 * std::sqrt(20.0 / 19) / std::sqrt(20.0);
  EXPECT_NEAR(lat["half_width"].get<double>(), lat_half, 1e-3);
  EXPECT_NEAR((lat["lo"].get<double>() + lat["hi"].get<double>()) / 2, 460e6 / 220, 1e-3);
  // No I/O, or fewer than two bins: no interval.
  EXPECT_TRUE(m.ToJson()["write"]["iops_ci95"].is_null());
  OpMetrics short_run;
  short_run.Record(IoOp::kRead, 4096, kMilli, kMilli / 2);
  short_run.SetWindow(0, kMilli + kMilli / 2);
  EXPECT_TRUE(short_run.ToJson()["read"]["iops_ci95"].is_null());
  EXPECT_EQ(short_run.ToJson()["read"]["ci95_batches"]["batches"], 1);
}

}  // namespace
}  // namespace tierlab
