// RunCell, the one run path: it runs what it is given on the layout it is
// given, reports the seed it is told to, and its hooks see the built volume
// before and after the workload.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "bench/lab/RunCell.h"
#include "bench/lab/RunReport.h"
#include "bench/lab/Runner.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

LayoutSpec OneNvme() {
  nlohmann::json j = {
      {"name", "n"},
      {"tiers", {{{"name", "d"}, {"preset", "nvme-pm1725"}, {"count", 1}, {"capacity", "1g"}}}}};
  auto l = ParseLayoutJson(j, "test");
  EXPECT_TRUE(l.ok());
  return *l;
}

Profile MakeProfile(const std::string& name, const std::string& rw) {
  nlohmann::json j = {
      {"name", name}, {"rw", rw}, {"bs", "4k"}, {"iodepth", 4}, {"number_ios", 5000}};
  auto p = ParseProfileJson(j, "test");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return *p;
}

TEST(EngineKindTest, NamesParseAndTheFactoryMakesTheKind) {
  EXPECT_EQ(*ParseEngineKind("sim"), EngineKind::kSimulated);
  EXPECT_EQ(*ParseEngineKind("real"), EngineKind::kReal);
  auto bad = ParseEngineKind("fast");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
  EXPECT_NE(bad.error().message.find("sim or real"), std::string::npos);
  for (EngineKind k : {EngineKind::kSimulated, EngineKind::kReal}) {
    EXPECT_EQ(KindOf(*MakeEngine(k)), k);
    EXPECT_EQ(*ParseEngineKind(EngineKindName(k)), k);
  }
}

TEST(RunCellTest, ProfilesRunInOrderAndMatchTheRunnerOnItsOwn) {
  const std::vector<Profile> profiles = {MakeProfile("a", "randread"),
                                         MakeProfile("b", "randwrite")};
  auto runs = RunCell(OneNvme(), Workload{profiles}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].profile.name, "a");
  EXPECT_EQ((*runs)[1].profile.name, "b");
  EXPECT_FALSE((*runs)[0].replay.has_value());
  EXPECT_EQ((*runs)[0].run.completed, 5000u);

  // The same first profile run by hand on a volume built the same way.
  SimEngine e;
  auto v = BuildVolume(e, OneNvme(), BuildOptions{});
  ASSERT_TRUE(v.ok());
  auto r = RunWorkload(e, v->top(), profiles[0]);
  ASSERT_TRUE(r.ok());
  const nlohmann::json by_hand =
      MakeRunJson(*r, profiles[0], *v, RunMeta{"sim", profiles[0].randseed});
  EXPECT_EQ((*runs)[0].json.dump(), by_hand.dump());
}

TEST(RunCellTest, SeedsAreAppliedAndReportedAsTold) {
  RunSettings s;
  s.randseed = 77;
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{MakeProfile("a", "randread")}}, s);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ((*runs)[0].profile.randseed, 77u);
  EXPECT_EQ((*runs)[0].json["seed"], 77u);
  s.reported_seed = 5;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{MakeProfile("a", "randread")}}, s);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ((*runs)[0].json["seed"], 5u);
}

TEST(RunCellTest, HooksSeeTheVolumeAndBeforeCanRefuseIt) {
  int before = 0;
  int after = 0;
  std::uint64_t completed_seen = 0;
  RunSettings s;
  s.before = [&](Engine&, Volume&) -> Expected<void> {
    ++before;
    return {};
  };
  s.after = [&](Engine&, Volume& v) {
    ++after;
    completed_seen = v.top().stats().read_ops;
  };
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{MakeProfile("a", "randread")}}, s);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(before, 1);
  EXPECT_EQ(after, 1);
  EXPECT_EQ(completed_seen, 5000u);

  s.before = [](Engine&, Volume&) -> Expected<void> {
    return Error{"no thanks", ErrorKind::kInput};
  };
  after = 0;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{MakeProfile("a", "randread")}}, s);
  ASSERT_FALSE(runs.ok());
  EXPECT_EQ(runs.error().message, "no thanks");
  EXPECT_EQ(after, 0);
}

TEST(RunCellTest, ATraceIsReplayedWithItsSection) {
  TraceProfile t;
  t.name = "msr";
  t.trace = t.path =
      std::string(TIERLAB_SOURCE_DIR) + "/tests/data/traces/msr-cambridge1-sample.csv";
  t.replay.iodepth = 8;
  t.replay.max_records = 500;
  auto runs = RunCell(OneNvme(), Workload{t}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 1u);
  const CellRun& c = (*runs)[0];
  ASSERT_TRUE(c.replay.has_value());
  EXPECT_EQ(c.replay->records, 500u);
  EXPECT_EQ(c.run.completed, 500u - c.replay->skipped);
  EXPECT_TRUE(c.json.contains("replay"));
  EXPECT_EQ(c.json["seed"], 0u);
}

TEST(RunCellTest, RealEngineRunsOnFilesInTheDeviceDir) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("tierlab-runcell-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  RunSettings s;
  s.engine = EngineKind::kReal;
  s.device_dir = dir.string();
  auto l = OneNvme();
  l.tiers[0].capacity = 16u << 20;
  Profile p = MakeProfile("a", "randwrite");
  p.number_ios = 500;
  auto runs = RunCell(l, Workload{std::vector<Profile>{p}}, s);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ((*runs)[0].json["mode"], "real");
  EXPECT_EQ((*runs)[0].run.completed, 500u);
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // created files are removed with the volume
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tierlab
