// The write-cache analyzer against a plain replay of the same trace on the
// same stack, its endurance arithmetic, and its write curve.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "bench/analysis/StackDistanceMrc.h"
#include "bench/lab/TraceReplay.h"
#include "bench/lab/WriteCacheAnalyzer.h"
#include "bench/trace/TraceFactory.h"
#include "bench/trace/TraceWriter.h"
#include "bench/workload/WorkloadGenerator.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

class WriteCacheAnalyzerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tierlab-wca-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `n` 4 KiB requests, `write_percent` writes, uniformly over `span` bytes,
  // one every `gap` ns of trace time.
  std::string WriteTrace(const std::string& name, int n, int write_percent, std::uint64_t span,
                         Nanos gap) {
    const std::string path = (dir_ / name).string();
    auto w = CreateTraceWriter(path, TraceFormat::kTierlabBin);
    EXPECT_TRUE(w.ok());
    std::mt19937_64 rng(7);
    for (int i = 0; i < n; ++i) {
      TraceRecord r;
      r.timestamp = i * gap;
      r.op = static_cast<int>(rng() % 100) < write_percent ? IoOp::kWrite : IoOp::kRead;
      r.offset = rng() % (span / 4096) * 4096;
      r.length = 4096;
      EXPECT_TRUE((*w)->Write(r).ok());
    }
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  }

  AnalyzerInput Input(const std::string& trace, std::uint64_t cache_bytes) {
    AnalyzerInput in;
    auto l = MakeAnalyzerLayout("nvme-pm1725", cache_bytes, "hdd1");
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
    in.layout = *l;
    in.trace_path = trace;
    in.replay.mode = ReplayMode::kOpen;
    in.replay.iodepth = 64;
    return in;
  }

  std::filesystem::path dir_;
};

// Absorption reported by the analyzer equals what a replay of the same trace
// on the same stack (no analyzer sampling) measures, within 1 %. The trace
// outruns one HDD so that the cache fills and throttles: a trivial 100 %
// would not test anything.
TEST_F(WriteCacheAnalyzerTest, AbsorptionMatchesPlainReplay) {
  // 20000 random 4 KiB writes over 2 GiB at 20 k/s (80 MB/s) into a 32 MiB cache.
  const std::string trace = WriteTrace("burst.bin", 20000, 90, 2048 * kMiB, 50 * kMicro);
  AnalyzerInput in = Input(trace, 32 * kMiB);
  in.write_curve_points = 1;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;

  SimEngine engine;
  auto volume = BuildVolume(engine, in.layout, BuildOptions{});
  ASSERT_TRUE(volume.ok());
  auto reader = OpenTrace(trace);
  ASSERT_TRUE(reader.ok());
  auto run = ReplayTrace(engine, volume->top(), **reader, in.replay);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const CacheStats s = volume->cache()->cache_stats();
  ASSERT_GT(s.write_requests, 0u);
  ASSERT_GT(s.write_throttled, 0u) << "the trace must overrun the cache for this test to bite";
  const double replay_share =
      static_cast<double>(s.write_absorbed - std::min(s.write_absorbed, s.write_throttled)) /
      static_cast<double>(s.write_requests);
  EXPECT_LT(replay_share, 0.99);
  EXPECT_NEAR(rep->base.absorbed_share, replay_share, 0.01);
  EXPECT_EQ(rep->base.write_requests, s.write_requests);
  // The dirty timeline saw the high watermark and destage ran.
  ASSERT_TRUE(rep->base.dirty.time_to_high_watermark.has_value());
  EXPECT_GE(rep->base.dirty.peak_dirty_bytes, rep->base.high_watermark_bytes);
  EXPECT_GT(rep->base.destaged_bytes, 0u);
  ASSERT_TRUE(rep->base.destage_rate.bytes_per_s.has_value());
  EXPECT_GT(*rep->base.destage_rate.bytes_per_s, 0);
  EXPECT_GT(rep->base.dirty.throttled_wall_ns, 0);
  EXPECT_GT(rep->base.timeline.size(), 10u);
}

// The analyzer feeds the endurance arithmetic (tests/bench/analysis/
// EnduranceTest.cc) the byte counts of the run and the trace's time: bytes
// per day of trace time, DWPD of the 1 GiB cache partition and of the whole
// device, life from the device's, write amplification = device / host bytes.
TEST_F(WriteCacheAnalyzerTest, EnduranceArithmetic) {
  // 5000 writes of 4 KiB over 1 hour of trace time (one every 720 ms).
  const std::string trace = WriteTrace("slow.bin", 5000, 100, 256 * kMiB, 720 * kMilli);
  AnalyzerInput in = Input(trace, 1024 * kMiB);
  in.write_curve_points = 1;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const AnalyzerReport& r = *rep;
  EXPECT_EQ(r.trace_duration, 4999 * 720 * kMilli);
  EXPECT_EQ(r.cache_partition_bytes, 1024 * kMiB);
  EXPECT_EQ(r.cache_device_capacity_bytes, FindPreset("nvme-pm1725")->capacity_bytes);
  EXPECT_EQ(r.base.host_write_bytes, 5000u * 4096);
  // Every host write lands on the cache device at least once.
  ASSERT_GE(r.base.cache_device_write_bytes, r.base.host_write_bytes);
  const double days = 4999 * 0.72 / 86400;
  const double per_day = static_cast<double>(r.base.cache_device_write_bytes) / days;
  EXPECT_NEAR(r.endurance.bytes_per_day, per_day, per_day * 1e-9);
  const double partition_dwpd = per_day / (1024.0 * kMiB);
  EXPECT_NEAR(r.endurance.partition_dwpd, partition_dwpd, partition_dwpd * 1e-9);
  const double device_dwpd =
      per_day / static_cast<double>(FindPreset("nvme-pm1725")->capacity_bytes);
  EXPECT_NEAR(r.endurance.device_dwpd, device_dwpd, device_dwpd * 1e-9);
  ASSERT_GT(r.endurance_dwpd_rating, 0);
  EXPECT_NEAR(r.endurance.life_years, 5 * r.endurance_dwpd_rating / device_dwpd,
              1e-9 * r.endurance.life_years);
  EXPECT_NEAR(r.endurance.write_amplification,
              static_cast<double>(r.base.cache_device_write_bytes) / (5000.0 * 4096), 1e-12);
  EXPECT_DOUBLE_EQ(r.base.absorbed_share, 1.0);
  const nlohmann::json j = ToJson(r);
  EXPECT_DOUBLE_EQ(j["endurance"]["device_dwpd"].get<double>(), r.endurance.device_dwpd);
  EXPECT_DOUBLE_EQ(j["endurance"]["partition_dwpd"].get<double>(), r.endurance.partition_dwpd);
}

// The write curve halves the cache per point and absorption does not grow as
// the cache shrinks past the burst; the recommendation names a tried size.
TEST_F(WriteCacheAnalyzerTest, WriteCurveAndRecommendation) {
  const std::string trace = WriteTrace("curve.bin", 20000, 90, 2048 * kMiB, 50 * kMicro);
  AnalyzerInput in = Input(trace, 256 * kMiB);
  in.write_curve_points = 4;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep->write_curve.size(), 4u);
  for (std::size_t i = 1; i < rep->write_curve.size(); ++i) {
    EXPECT_EQ(rep->write_curve[i].cache_bytes, 2 * rep->write_curve[i - 1].cache_bytes);
  }
  EXPECT_LT(rep->write_curve.front().absorbed_share, rep->write_curve.back().absorbed_share);
  if (rep->recommended_bytes) {
    bool found = false;
    for (const auto& p : rep->write_curve) {
      if (p.cache_bytes == *rep->recommended_bytes) {
        found = true;
        EXPECT_GE(p.absorbed_share, in.absorb_target);
      }
    }
    EXPECT_TRUE(found);
  }
  ASSERT_TRUE(rep->read_mrc.has_value());
  EXPECT_FALSE(rep->read_mrc->points.empty());
}

// A profile gets a read MRC too: its generated request stream, as many I/Os
// as the simulation issued, through the exact MRC. The curve must equal one
// computed here from the same generator and count, and be a real curve
// (misses fall as the cache grows; at the working set only cold misses).
TEST_F(WriteCacheAnalyzerTest, ProfileGetsTheReadMrcOfItsGeneratedStream) {
  auto profile = ParseProfileJson(nlohmann::json{{"name", "zipf-rw"},
                                                 {"rw", "randrw"},
                                                 {"rwmixread", 70},
                                                 {"bs", "4k"},
                                                 {"size", "64m"},
                                                 {"io_size", "1g"},  // 40000 I/Os of 64m
                                                 {"random_distribution", "zipf:1.1"},
                                                 {"iodepth", 8},
                                                 {"number_ios", 40000}},
                                  "test");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  AnalyzerInput in = Input("", 256 * kMiB);
  in.trace_path.clear();
  in.profile = *profile;
  in.write_curve_points = 1;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_TRUE(rep->read_mrc.has_value());
  EXPECT_EQ(rep->mrc_method, "exact");
  const MissRatioCurve& c = *rep->read_mrc;
  ASSERT_GT(c.points.size(), 5u);
  EXPECT_EQ(c.references, 40000);  // one 4 KiB block per I/O at a 4 KiB line

  SimEngine engine;
  auto volume = BuildVolume(engine, in.layout, BuildOptions{});
  ASSERT_TRUE(volume.ok());
  auto gen =
      WorkloadGenerator::Create(*profile, volume->top().Size(), volume->top().BlockSize(), 0);
  ASSERT_TRUE(gen.ok());
  StackDistanceMrc mine(c.block_size);
  for (int i = 0; i < 40000; ++i) {
    const NextIo io = gen->Next();
    mine.Add(TraceRecord{0, io.op, io.offset, static_cast<std::uint32_t>(io.length)});
  }
  EXPECT_DOUBLE_EQ(c.read_references, static_cast<double>(mine.read_references()));
  for (const MrcPoint& p : c.points) {
    EXPECT_DOUBLE_EQ(p.read_miss_ratio, mine.ReadMissRatio(p.cache_blocks)) << p.cache_blocks;
  }
  EXPECT_GT(c.points.front().read_miss_ratio, c.points.back().read_miss_ratio);
  const double cold = static_cast<double>(mine.unique_blocks()) / 40000;
  EXPECT_DOUBLE_EQ(c.points.back().miss_ratio, cold);
  EXPECT_LT(cold, 0.5);  // zipf over 16 Ki blocks: most references are re-references
}

TEST_F(WriteCacheAnalyzerTest, RejectsLayoutWithoutWriteBack) {
  const std::string trace = WriteTrace("t.bin", 10, 50, 64 * kMiB, kMilli);
  AnalyzerInput in = Input(trace, 64 * kMiB);
  in.layout.cache->config.write = WriteMode::kWriteThrough;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.error().kind, ErrorKind::kInput);
}

// The analyzer reads its trace several times: standard input ("-") is an
// input error saying so, before anything is read from it.
TEST_F(WriteCacheAnalyzerTest, RejectsStandardInput) {
  AnalyzerInput in = Input("-", 64 * kMiB);
  auto rep = AnalyzeWriteCache(in);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.error().kind, ErrorKind::kInput);
  EXPECT_NE(rep.error().message.find("standard input can be read only once"), std::string::npos)
      << rep.error().message;
}

// A light write stream that every simulated size absorbs: the answer is
// below the smallest size tried, and the recommendation says so instead of
// naming that size as if it were a knee (issue 16 item 7).
TEST_F(WriteCacheAnalyzerTest, RecommendationSaysWhenTheAnswerIsBelowTheSmallestSizeTried) {
  const std::string trace = WriteTrace("light.bin", 400, 50, 64 * kMiB, 10 * kMilli);
  AnalyzerInput in = Input(trace, 1024 * kMiB);
  in.write_curve_points = 3;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep->write_curve.size(), 3u);
  for (const WriteCurvePoint& p : rep->write_curve) ASSERT_GE(p.absorbed_share, in.absorb_target);
  const nlohmann::json j = ToJson(*rep);
  const nlohmann::json& range = j["sizing"]["recommended_range"];
  EXPECT_EQ(range["kind"], "below_smallest_size") << j["sizing"].dump();
  EXPECT_TRUE(range["above_bytes"].is_null());
  EXPECT_EQ(range["at_most_bytes"], 256 * kMiB);
  const std::string rec = rep->recommendation;
  EXPECT_EQ(rec.find(">="), std::string::npos) << rec;
  EXPECT_NE(rec.find("below 256 MiB, the smallest size simulated"), std::string::npos) << rec;
}

// Where the curve crosses the target between two sizes, the answer is that
// interval, with the shares measured at both ends.
TEST_F(WriteCacheAnalyzerTest, RecommendationNamesTheIntervalTheCurveCrossesIn) {
  const std::string trace = WriteTrace("curve.bin", 20000, 90, 2048 * kMiB, 50 * kMicro);
  AnalyzerInput in = Input(trace, 256 * kMiB);
  in.write_curve_points = 4;
  in.absorb_target = 0.5;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const auto& c = rep->write_curve;
  ASSERT_EQ(c.size(), 4u);
  // The largest size at which the curve misses the target, and the next.
  std::size_t k = c.size();
  while (k > 0 && c[k - 1].absorbed_share >= in.absorb_target) --k;
  ASSERT_GT(k, 0u) << "the smallest size must miss the target for this test";
  ASSERT_LT(k, c.size()) << "the largest size must reach the target for this test";
  const nlohmann::json range = ToJson(*rep)["sizing"]["recommended_range"];
  EXPECT_EQ(range["kind"], "between_sizes");
  EXPECT_EQ(range["above_bytes"], c[k - 1].cache_bytes);
  EXPECT_EQ(range["at_most_bytes"], c[k].cache_bytes);
  EXPECT_EQ(rep->recommended_bytes, c[k].cache_bytes);
}

// Nothing destaged: no rate was observed, so none is reported (not 0 MB/s).
TEST_F(WriteCacheAnalyzerTest, DestageRateIsNotApplicableWhenNothingWasDestaged) {
  const std::string trace = WriteTrace("light.bin", 400, 50, 64 * kMiB, 10 * kMilli);
  AnalyzerInput in = Input(trace, 1024 * kMiB);
  in.write_curve_points = 1;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  ASSERT_EQ(rep->base.destaged_bytes, 0u);
  const nlohmann::json j = ToJson(*rep);
  EXPECT_TRUE(j["write_absorption"]["sustainable_destage_mb_per_s"].is_null())
      << j["write_absorption"].dump();
  const std::string table = ToTextTable(*rep);
  EXPECT_NE(table.find("sustainable destage rate           n/a"), std::string::npos) << table;
}

// The table and the recommendation state the same life, and DWPD is given
// against the whole device (what the rating is about) and against the cache
// partition, each labelled.
TEST_F(WriteCacheAnalyzerTest, EnduranceAgainstDeviceAndPartitionOneLifeEverywhere) {
  const std::string trace = WriteTrace("slow.bin", 5000, 100, 256 * kMiB, 720 * kMilli);
  AnalyzerInput in = Input(trace, 1024 * kMiB);
  in.write_curve_points = 1;
  auto rep = AnalyzeWriteCache(in);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  const nlohmann::json j = ToJson(*rep);
  const nlohmann::json& e = j["endurance"];
  const double device = static_cast<double>(FindPreset("nvme-pm1725")->capacity_bytes);
  const double per_day = e["bytes_per_day"].get<double>();
  ASSERT_GT(per_day, 0);
  EXPECT_EQ(j["cache"]["device_bytes"].get<double>(), device);
  EXPECT_EQ(j["cache"]["partition_bytes"], 1024 * kMiB);
  EXPECT_NEAR(e["device_dwpd"].get<double>(), per_day / device, 1e-12);
  EXPECT_NEAR(e["partition_dwpd"].get<double>(), per_day / (1024.0 * kMiB), 1e-12);
  EXPECT_NEAR(e["life_years"].get<double>(),
              5 * e["rated_dwpd"].get<double>() / e["device_dwpd"].get<double>(),
              1e-9 * e["life_years"].get<double>());
  // One life, printed the same way in both places.
  const std::string table = ToTextTable(*rep);
  const std::size_t at = table.find(" years");
  ASSERT_NE(at, std::string::npos) << table;
  const std::size_t from = table.rfind(' ', at - 1) + 1;
  const std::string years = table.substr(from, at - from);
  EXPECT_NE(rep->recommendation.find(years + " years"), std::string::npos)
      << "table says " << years << " years; " << rep->recommendation;
  EXPECT_NE(table.find("DWPD of the device"), std::string::npos) << table;
  EXPECT_NE(table.find("DWPD of the cache partition"), std::string::npos) << table;
}

}  // namespace
}  // namespace tierlab
