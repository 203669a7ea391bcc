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
#include "tiering/targets/ParityTarget.h"

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

// A parity tier run through the one run path, timing-only: every 4k
// random write is a read-modify-write (RAID-5 over 5 disks: 2 reads and 2
// writes, fewer reads than the 3 of reconstruct-write), and the disks' own
// counters show it; the same writes on a stripe tier cost one write each.
TEST(RunCellTest, Raid5TierChargesTheDisksReadModifyWrite) {
  auto tier = [](const std::string& combine) {
    nlohmann::json j = {{"name", combine},
                        {"tiers",
                         {{{"name", "hdd"},
                           {"preset", "hdd-7200"},
                           {"count", 5},
                           {"combine", combine},
                           {"chunk", "64k"},
                           {"capacity", "1g"}}}}};
    auto l = ParseLayoutJson(j, "test");
    EXPECT_TRUE(l.ok()) << l.error().message;
    return *l;
  };
  for (const std::string combine : {"raid5", "stripe"}) {
    DeviceStats disks;
    ParityStats parity;
    RunSettings s;
    s.after = [&](Engine&, Volume& v) {
      for (BlockDevice* d : v.tiers()[0].devices) disks.Add(d->stats());
      if (auto* raid = dynamic_cast<ParityTarget*>(&v.top()); raid != nullptr) {
        parity = raid->parity_stats();
      }
    };
    auto runs =
        RunCell(tier(combine), Workload{std::vector<Profile>{MakeProfile("w", "randwrite")}}, s);
    ASSERT_TRUE(runs.ok()) << runs.error().message;
    const std::uint64_t writes = (*runs)[0].run.completed;
    EXPECT_EQ(writes, 5000u);
    if (combine == "raid5") {
      EXPECT_EQ(parity.rmw_writes, writes);
      EXPECT_EQ(disks.read_ops, 2 * writes);
      EXPECT_EQ(disks.write_ops, 2 * writes);
    } else {
      EXPECT_EQ(disks.read_ops, 0u);
      EXPECT_EQ(disks.write_ops, writes);
    }
  }
}

// A log-structured tier through the one run path: its counters come in the
// tier's "log" object over the device window, and while random writes
// spend the cleaner's free-segment reserve (faster than four HDDs can
// clean) the snia steady state waits; it is attained once the reserve is
// spent, so what is measured is what cleaning sustains.
TEST(RunCellTest, ALogTierReportsItsCountersAndSteadyStateWaitsForItsReserve) {
  nlohmann::json j = {{"name", "log"},
                      {"tiers",
                       {{{"name", "hdd"},
                         {"preset", "hdd-7200"},
                         {"count", 5},
                         {"combine", "raid5"},
                         {"chunk", "64k"},
                         {"capacity", "256m"},
                         {"log", {{"segment_bytes", "256k"}, {"cleaner_start", 0.8}}}}}}};
  auto layout = ParseLayoutJson(j, "test");
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  auto p = ParseProfileJson({{"name", "w"},
                             {"rw", "randwrite"},
                             {"bs", "4k"},
                             {"iodepth", 32},
                             {"precondition", "random:2400m"},
                             {"runtime", "1s"},
                             {"ramp_time", "120s"},
                             {"ss", "snia"},
                             {"ss_interval", "1s"},
                             {"ss_dur", "5s"}},
                            "test");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto runs = RunCell(*layout, Workload{std::vector<Profile>{*p}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json& run = (*runs)[0].json;
  const nlohmann::json& log = run["tiers"][0]["log"];
  ASSERT_TRUE(log.is_object()) << run["tiers"].dump();
  const nlohmann::json& job = run["jobs"][0];
  EXPECT_GE(log["user_bytes_written"].get<double>(), job["write"]["io_bytes"].get<double>());
  EXPECT_GT(log["segments_cleaned"].get<double>(), 0) << log.dump();
  EXPECT_GT(log["write_amplification"].get<double>(), 1.0) << log.dump();
  // 20 % of the segments kept free at the start, spent by the time the run
  // is steady (the cleaner's floor is a few segments). Without the wait,
  // rounds taken while the reserve drained looked steady: attained at 5 s,
  // 4,023 writes a second, 234 segments still free; with it, 29 s and 840.
  const double segments = log["segments"].get<double>();
  EXPECT_LT(log["free_segments"].get<double>(), 0.01 * segments) << log.dump();
  EXPECT_EQ(job["steadystate"]["attained"], 1) << job["steadystate"].dump();
  EXPECT_GT(job["steadystate"]["attained_at_s"].get<double>(), 10) << job["steadystate"].dump();
  EXPECT_NE(FormatRun(run, TableFormat::kTable).find("log tier"), std::string::npos);
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

Profile Stonewalled(Profile p) {
  p.stonewall = true;
  return p;
}

TEST(RunCellTest, ProfilesRunInOrderAndMatchTheRunnerOnItsOwn) {
  const std::vector<Profile> profiles = {MakeProfile("a", "randread"),
                                         Stonewalled(MakeProfile("b", "randwrite"))};
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

// Sections with stonewall run one after another on one volume. Each
// reports what the devices did in its own window (before, section 3 divided
// three sections' busy time by its own and reported 300 % utilisation at
// QD 12 of 4), and the whole run's figures add the sections up.
TEST(RunCellTest, EachSectionReportsItsOwnDeviceWindowAndTheLastTheWholeRun) {
  const std::vector<Profile> profiles = {MakeProfile("a", "randread"),
                                         Stonewalled(MakeProfile("b", "randread")),
                                         Stonewalled(MakeProfile("c", "randread"))};
  auto runs = RunCell(OneNvme(), Workload{profiles}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 3u);
  std::uint64_t ops = 0;
  double busy_ns = 0;
  for (const CellRun& c : *runs) {
    const auto& d = c.json.at("devices").at(0);
    const auto& t = c.json.at("tiers").at(0);
    SCOPED_TRACE(c.profile.name);
    // One NVMe, no cache: the device sees exactly the section's 5000 reads.
    EXPECT_EQ(d.at("read_ops").get<std::uint64_t>(), 5000u);
    EXPECT_EQ(t.at("read_ops").get<std::uint64_t>(), 5000u);
    EXPECT_LE(d.at("util").get<double>(), 1.0 + 1e-9);
    EXPECT_GT(d.at("util").get<double>(), 0.5);  // QD 4 keeps it busy
    EXPECT_LE(d.at("avg_queue_depth").get<double>(), 4.0 + 1e-9);
    EXPECT_LE(d.at("max_queue_depth").get<std::uint32_t>(), 4u);
    EXPECT_LE(d.at("avg_queue_depth").get<double>(), d.at("max_queue_depth").get<double>());
    ops += d.at("read_ops").get<std::uint64_t>();
    busy_ns += d.at("busy_ns").get<double>();
    EXPECT_EQ(c.json.contains("whole_run"), &c == &runs->back());
  }
  const auto& whole = runs->back().json.at("whole_run");
  const auto& wd = whole.at("devices").at(0);
  EXPECT_EQ(wd.at("read_ops").get<std::uint64_t>(), ops);
  EXPECT_DOUBLE_EQ(wd.at("busy_ns").get<double>(), busy_ns);
  EXPECT_LE(wd.at("util").get<double>(), 1.0 + 1e-9);
  EXPECT_LE(wd.at("avg_queue_depth").get<double>(), 4.0 + 1e-9);
  EXPECT_EQ(wd.at("max_queue_depth").get<std::uint32_t>(), 4u);

  // One document: the whole run at its top, each section's own figures.
  std::vector<nlohmann::json> docs;
  for (const CellRun& c : *runs) docs.push_back(c.json);
  const nlohmann::json doc = CombineRuns(docs, nlohmann::json::object());
  EXPECT_EQ(doc.at("whole_run"), whole);
  ASSERT_EQ(doc.at("sections").size(), 3u);
  EXPECT_FALSE(doc.at("sections").at(2).contains("whole_run"));
  EXPECT_EQ(doc.at("sections").at(2).at("devices").at(0).at("read_ops").get<std::uint64_t>(),
            5000u);
  EXPECT_NE(FormatRun(runs->back().json, TableFormat::kTable).find("whole run"), std::string::npos);

  // fio's disk_util: over the whole run at the top, the section's in each
  // section, named as the device tables name the devices.
  ASSERT_EQ(doc.at("disk_util").size(), 1u);
  const auto& du = doc.at("disk_util").at(0);
  EXPECT_EQ(du.at("name"), wd.at("name"));
  EXPECT_EQ(du.at("read_ios").get<std::uint64_t>(), ops);
  EXPECT_EQ(du.at("write_ios").get<std::uint64_t>(), 0u);
  EXPECT_DOUBLE_EQ(du.at("util").get<double>(), 100 * wd.at("util").get<double>());
  // in_queue: ms of the time-weighted queue depth.
  const double in_queue_ms =
      wd.at("avg_queue_depth").get<double>() * whole.at("elapsed_ns").get<double>() / kMilli;
  EXPECT_NEAR(du.at("in_queue").get<double>(), in_queue_ms, 1.0);
  EXPECT_GT(du.at("in_queue").get<double>(), 0);
  for (const char* zero : {"read_merges", "write_merges", "read_ticks", "write_ticks"}) {
    EXPECT_EQ(du.at(zero), 0) << zero;
  }
  const auto& section_du = doc.at("sections").at(1).at("disk_util").at(0);
  EXPECT_EQ(section_du.at("read_ios").get<std::uint64_t>(), 5000u);
  EXPECT_DOUBLE_EQ(section_du.at("util").get<double>(),
                   100 * doc.at("sections").at(1).at("devices").at(0).at("util").get<double>());
}

// fio starts the sections of a job file together, back to the last
// stonewall; before, tierlab ran every section after the one before it,
// so a job file written to load a device from two jobs at once loaded it
// from one at a time.
TEST(RunCellTest, SectionsWithoutStonewallRunTogetherAndAStonewallWaitsForThem) {
  std::vector<Profile> profiles = {MakeProfile("a", "randread"), MakeProfile("b", "randwrite"),
                                   Stonewalled(MakeProfile("c", "randread"))};
  profiles[1].number_ios = 2000;
  auto runs = RunCell(OneNvme(), Workload{profiles}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  ASSERT_EQ(runs->size(), 3u);
  const RunResult& a = (*runs)[0].run;
  const RunResult& b = (*runs)[1].run;
  const RunResult& c = (*runs)[2].run;
  EXPECT_EQ(a.start, b.start);
  EXPECT_LT(b.end, a.end);  // b did fewer I/Os beside a
  EXPECT_GE(c.start, a.end);
  EXPECT_EQ(a.completed, 5000u);
  EXPECT_EQ(b.completed, 2000u);
  EXPECT_EQ(c.completed, 5000u);
  // While b ran, a shared the device: a's QD 4 and b's QD 4 together.
  const auto& dev_a = (*runs)[0].json.at("devices").at(0);
  EXPECT_EQ(dev_a.at("max_queue_depth").get<std::uint32_t>(), 8u);
  EXPECT_EQ(dev_a.at("read_ops").get<std::uint64_t>(), 5000u);
  EXPECT_EQ(dev_a.at("write_ops").get<std::uint64_t>(), 2000u);  // the group's window
  EXPECT_EQ((*runs)[2].json.at("devices").at(0).at("max_queue_depth").get<std::uint32_t>(), 4u);
  // fio's groupid: a new group at each stonewall.
  EXPECT_EQ((*runs)[0].json["jobs"][0]["groupid"], 0);
  EXPECT_EQ((*runs)[1].json["jobs"][0]["groupid"], 0);
  EXPECT_EQ((*runs)[2].json["jobs"][0]["groupid"], 1);
}

Profile With(Profile p, const nlohmann::json& patch) {
  auto r = ApplyProfilePatch(p, patch, "test");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return *r;
}

// fio's flow: two time-based sections of one flow_id issue 1:3 by weight,
// where without flow their depths (1 and 8) decide.
TEST(RunCellTest, FlowSharesTheIssuesByWeight) {
  const nlohmann::json timed = {{"number_ios", 0}, {"time_based", true}, {"runtime", "200ms"}};
  Profile a = With(MakeProfile("a", "randread"), timed);
  Profile b = With(MakeProfile("b", "randread"), timed);
  a.iodepth = 1;
  b.iodepth = 8;
  auto free_runs = RunCell(OneNvme(), Workload{std::vector<Profile>{a, b}}, RunSettings{});
  ASSERT_TRUE(free_runs.ok()) << free_runs.error().message;
  const double free_ratio = static_cast<double>((*free_runs)[1].run.issued) /
                            static_cast<double>((*free_runs)[0].run.issued);
  EXPECT_GT(free_ratio, 5.0);
  a.flow = 1;
  b.flow = 3;
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{a, b}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const double ratio =
      static_cast<double>((*runs)[1].run.issued) / static_cast<double>((*runs)[0].run.issued);
  EXPECT_NEAR(ratio, 3.0, 0.01);
  EXPECT_GT((*runs)[0].run.issued, 1000u);
  // Another flow_id is apart: b then runs at its own pace.
  b.flow_id = 1;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{a, b}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_GT(static_cast<double>((*runs)[1].run.issued) / static_cast<double>((*runs)[0].run.issued),
            5.0);
}

// A job whose flow partner ends runs free; one whose partner starts in a
// later section would wait forever in fio, and is refused.
TEST(RunCellTest, FlowPartnersThatEndFreeTheOthersAndLaterOnesAreAnError) {
  Profile a = MakeProfile("a", "randread");
  Profile b = MakeProfile("b", "randread");
  a.flow = b.flow = 1;
  b.number_ios = 500;
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{a, b}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ((*runs)[0].run.completed, 5000u);
  EXPECT_EQ((*runs)[1].run.completed, 500u);
  // Three partners, one open loop and one with flow_sleep, and verify: a
  // wake-up on its way is not a job held back for good.
  Profile w = With(MakeProfile("w", "randwrite"), {{"verify", "crc32c"}, {"numjobs", 2}});
  Profile r = With(MakeProfile("r", "randread"), {{"rate_iops", 5000}, {"number_ios", 3000}});
  Profile s = With(MakeProfile("s", "read"), {{"flow_sleep", 500}, {"iodepth", 8}});
  w.flow = s.flow = 1;
  r.flow = 2;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{w, r, s}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ((*runs)[1].run.completed, 3000u);
  auto stuck = RunCell(OneNvme(), Workload{std::vector<Profile>{a, Stonewalled(b)}}, RunSettings{});
  ASSERT_FALSE(stuck.ok());
  EXPECT_NE(stuck.error().message.find("flow_id 0: every running job is held back"),
            std::string::npos)
      << stuck.error().message;
}

// fio's exitall: the first job to end terminates the others as its
// exit_what says; new_group gives a section its own groupid.
TEST(RunCellTest, ExitallTerminatesAsExitWhatSays) {
  Profile shortp = MakeProfile("short", "randread");
  shortp.number_ios = 200;
  shortp.exitall = true;
  const Profile longp = With(MakeProfile("long", "randwrite"),
                             {{"number_ios", 0}, {"time_based", true}, {"runtime", "10s"}});
  const Profile later = Stonewalled(MakeProfile("later", "randread"));
  auto runs =
      RunCell(OneNvme(), Workload{std::vector<Profile>{shortp, longp, later}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const RunResult& s = (*runs)[0].run;
  const RunResult& l = (*runs)[1].run;
  EXPECT_EQ(s.completed, 200u);
  EXPECT_LT(l.end - l.start, 10 * kMilli);     // not its 10 s
  EXPECT_EQ((*runs)[2].run.completed, 5000u);  // group: the next group still runs
  // exit_what=all: the later group does nothing.
  shortp.exit_what = ExitWhat::kAll;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{shortp, longp, later}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_LT((*runs)[1].run.end - (*runs)[1].run.start, 10 * kMilli);
  EXPECT_EQ((*runs)[2].run.completed, 0u);
  // In its own reporting group (new_group), group does not reach it; stonewall does.
  Profile grouped = longp;
  grouped.new_group = true;
  grouped.runtime = 50 * kMilli;
  shortp.exit_what = ExitWhat::kGroup;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{shortp, grouped}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_GE((*runs)[1].run.end - (*runs)[1].run.start, 50 * kMilli);
  EXPECT_EQ((*runs)[0].json["jobs"][0]["groupid"], 0);
  EXPECT_EQ((*runs)[1].json["jobs"][0]["groupid"], 1);
  shortp.exit_what = ExitWhat::kStonewall;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{shortp, grouped}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_LT((*runs)[1].run.end - (*runs)[1].run.start, 10 * kMilli);
  // Without exitall, nothing is terminated.
  shortp.exitall = false;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{shortp, longp}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_GE((*runs)[1].run.end - (*runs)[1].run.start, 10 * kSecond);
}

// A thinktime pause ends after the chunk of fio's sleep (under 2 s) in
// which the job was terminated: fio 3.33 ends a job pausing 5 s, that an
// exitall job ending at 200 ms terminates, at 2003 ms.
TEST(RunCellTest, ATerminatedJobsPauseEndsAfterTheSleepsChunk) {
  Profile first = With(MakeProfile("first", "randread"),
                       {{"number_ios", 1}, {"startdelay", "200ms"}, {"exitall", true}});
  const Profile pausing = With(MakeProfile("pausing", "randread"),
                               {{"number_ios", 3}, {"iodepth", 1}, {"thinktime", "5s"}});
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{first, pausing}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const RunResult& p = (*runs)[1].run;
  EXPECT_EQ(p.completed, 1u);
  EXPECT_GE(p.end - p.start, 2 * kSecond);
  EXPECT_LT(p.end - p.start, 2 * kSecond + kMilli);
  // Not terminated, the job pauses after each of its 3 I/Os: 15 s.
  first.exitall = false;
  runs = RunCell(OneNvme(), Workload{std::vector<Profile>{first, pausing}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ((*runs)[1].run.completed, 3u);
  EXPECT_GE((*runs)[1].run.end - (*runs)[1].run.start, 15 * kSecond);
}

// The engine runs on after a group ends, so a timer its sections left
// pending (here the steady-state check due at 1 s, after the section ended
// at its 200 ms arrival) fires during the next group, after the section is
// gone: it must do nothing (ASan sees it otherwise).
TEST(RunCellTest, TimersOfAnEndedGroupDoNothingInTheNext) {
  Profile capped = With(MakeProfile("capped", "randread"), {{"number_ios", 0},
                                                            {"rate_iops", 10},
                                                            {"time_based", true},
                                                            {"runtime", "150ms"},
                                                            {"steadystate", "iops:1%"},
                                                            {"ss_dur", "5s"}});
  const Profile next = Stonewalled(
      With(MakeProfile("next", "randread"),
           {{"number_ios", 0}, {"time_based", true}, {"runtime", "2s"}, {"iodepth", 1}}));
  auto runs = RunCell(OneNvme(), Workload{std::vector<Profile>{capped, next}}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ((*runs)[0].run.issued, 2u);  // arrivals at 0 and 100 ms
  EXPECT_EQ((*runs)[1].run.issued, (*runs)[1].run.completed);
}

// Each file of a job file is its own region of the volume, and the results
// say where.
TEST(RunCellTest, AJobFilesFilesAreRegionsOfTheVolumeAndReported) {
  std::vector<Profile> profiles = {MakeProfile("a", "randread"), MakeProfile("b", "randwrite")};
  profiles[0].nrfiles = 2;
  profiles[0].has_size = profiles[1].has_size = true;
  profiles[0].size = profiles[1].size = SizeSpec{8 << 20, 0, false};
  auto runs = RunCell(OneNvme(), Workload{profiles}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const nlohmann::json want_a = nlohmann::json::parse(
      R"([{"name":"a.0.0","offset":0,"size":4194304},{"name":"a.0.1","offset":4194304,)"
      R"("size":4194304}])");
  EXPECT_EQ((*runs)[0].json["jobs"][0]["files"], want_a);
  EXPECT_EQ((*runs)[1].json["jobs"][0]["files"][0]["offset"], 8 << 20);
  EXPECT_EQ((*runs)[1].run.completed, 2048u);  // its 8 MiB file in 4 KiB writes, as fio ends it
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
