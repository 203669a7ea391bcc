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
