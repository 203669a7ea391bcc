// The host's speed beside each real cell (bench/lab/HostReference.h): the
// reference points run for real on a cached volume over files, the factors
// a cell records from the measurement after it, and the model's costs
// scaled by those factors.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "bench/lab/HostReference.h"
#include "layouts/Layout.h"
#include "tests/support/TempDir.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

NodeCpuSpec Costs() {
  NodeCpuSpec c{
      .cores = 2, .per_io = 1000, .per_kib = 50, .per_write_io = 800, .per_write_kib = 120};
  c.stalls = {{.duration = 20000, .per_second = 500}};
  return c;
}

MatrixCell CellWithCpu(std::size_t index, std::optional<HostCpuReference> ref) {
  MatrixCell c;
  c.index = index;
  c.label = "cell" + std::to_string(index);
  auto l = ParseLayoutJson({{"name", "l"}, {"tiers", {{{"name", "d"}, {"preset", "ram"}}}}}, "t");
  c.layout = std::move(l.value());
  c.layout.cpu = HostCpuSpec{Costs(), "file:cpu.json", std::move(ref)};
  return c;
}

json Scales(double read, double write) {
  return {{"host_reference", {{"read_scale", read}, {"write_scale", write}}}};
}

TEST(HostReferenceTest, ScalingTakesReadAndWriteCostsApartAndKeepsCoresAndStalls) {
  const NodeCpuSpec s = ScaleCpuCosts(Costs(), 1.1, 0.5);
  EXPECT_EQ(s.per_io, 1100);
  EXPECT_EQ(s.per_kib, 55);
  EXPECT_EQ(s.per_write_io, 400);
  EXPECT_EQ(s.per_write_kib, 60);
  EXPECT_EQ(s.cores, 2u);
  ASSERT_EQ(s.stalls.size(), 1u);
  EXPECT_EQ(s.stalls[0].duration, 20000);
  EXPECT_DOUBLE_EQ(s.stalls[0].per_second, 500);
  // A write that costs as a read (0) gets the read's cost times its own
  // factor.
  const NodeCpuSpec same = ScaleCpuCosts({.cores = 1, .per_io = 1000, .per_kib = 40}, 1.0, 2.0);
  EXPECT_EQ(same.per_io, 1000);
  EXPECT_EQ(same.per_write_io, 2000);
  EXPECT_EQ(same.per_write_kib, 80);
}

TEST(HostReferenceTest, TheModelsCellTakesItsMeasuredTwinsScales) {
  MatrixCell c = CellWithCpu(0, std::nullopt);
  ASSERT_TRUE(ApplyHostReference(c, Scales(0.9, 1.25)).ok());
  EXPECT_EQ(c.layout.cpu->cpu.per_io, 900);
  EXPECT_EQ(c.layout.cpu->cpu.per_kib, 45);
  EXPECT_EQ(c.layout.cpu->cpu.per_write_io, 1000);
  EXPECT_EQ(c.layout.cpu->cpu.per_write_kib, 150);
  ASSERT_EQ(c.layout.cpu->cpu.stalls.size(), 1u);  // as calibrated
  EXPECT_EQ(c.layout.cpu->cpu.stalls[0].duration, 20000);
  // A twin without a reference, or a layout without a cpu: as it is.
  ASSERT_TRUE(ApplyHostReference(c, json::object()).ok());
  EXPECT_EQ(c.layout.cpu->cpu.per_io, 900);
  MatrixCell bare = CellWithCpu(1, std::nullopt);
  bare.layout.cpu.reset();
  EXPECT_TRUE(ApplyHostReference(bare, Scales(2, 2)).ok());
  // A scale that is not a positive number is refused, naming the cell.
  for (const json& bad : {json(0), json(-1), json("x")}) {
    json twin = Scales(1, 1);
    twin["host_reference"]["write_scale"] = bad;
    auto e = ApplyHostReference(c, twin);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.error().message, "cell \"cell0\": the measured host_reference has no write_scale");
  }
  EXPECT_EQ(ApplyHostReference(c, {{"host_reference", {{"write_scale", 1}}}}).error().message,
            "cell \"cell0\": the measured host_reference has no read_scale");
}

// The probe for real: a cached volume over files in a directory of its own,
// its reads and writes timed twice; its files gone with it.
TEST(HostReferenceTest, TheProbeMeasuresTheHostAndLeavesNoFiles) {
  testing::TempDir dir;
  const HostCpuReference ref{8ull << 20, dir.path().string(), 1000, 1000};
  {
    auto probe = HostReferenceProbe::Make(ref);
    ASSERT_TRUE(probe.ok()) << probe.error().message;
    for (int i = 0; i < 2; ++i) {
      auto sample = (*probe)->Measure();
      ASSERT_TRUE(sample.ok()) << sample.error().message;
      // Between 10 ns and 1 ms an I/O at QD32: a real engine running.
      for (const double ns : {sample->read_ns_per_io, sample->write_ns_per_io}) {
        EXPECT_GT(ns, 10);
        EXPECT_LT(ns, 1e6);
      }
    }
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));

  auto missing = HostReferenceProbe::Make({8ull << 20, dir.Path("none"), 1000, 1000});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kIo);
  EXPECT_EQ(missing.error().message, "host reference: " + dir.Path("none") +
                                         ": not a directory (the cpu file's reference.dir, where "
                                         "its RAM files go)");
}

// After each cell: the reference's reads and writes and their factors over
// the calibrated figures. A cell without a reference is not measured.
TEST(HostReferenceTest, EachCellRecordsTheHostAfterIt) {
  testing::TempDir dir;
  const HostCpuReference ref{8ull << 20, dir.path().string(), 500, 800};
  CellHostReference host;
  json first = json::object(), bare = json::object();
  const MatrixCell a = CellWithCpu(0, ref);
  const MatrixCell c = CellWithCpu(2, std::nullopt);
  ASSERT_TRUE(host.Before(a).ok());
  ASSERT_TRUE(host.After(a, first).ok());
  ASSERT_TRUE(host.Before(c).ok());
  ASSERT_TRUE(host.After(c, bare).ok());
  EXPECT_TRUE(bare.empty());
  const json& r = first.at("host_reference");
  EXPECT_DOUBLE_EQ(r["calibrated_read_ns_per_io"].get<double>(), 500);
  EXPECT_DOUBLE_EQ(r["calibrated_write_ns_per_io"].get<double>(), 800);
  const double read = r["read_ns_per_io"], write = r["write_ns_per_io"];
  EXPECT_GT(read, 0);
  EXPECT_GT(write, 0);
  EXPECT_NEAR(r["read_scale"].get<double>(), read / 500, 0.0006) << r;
  EXPECT_NEAR(r["write_scale"].get<double>(), write / 800, 0.0006) << r;
}

}  // namespace
}  // namespace tierlab
