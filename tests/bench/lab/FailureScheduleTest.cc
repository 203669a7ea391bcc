// A cluster layout's failures during a run (FailureSchedule.h): the node
// goes away and comes back or is rebuilt when the layout says, the results
// name each event and split the run into phases whose figures add up to
// the run's, and a rebuild with no node to go to leaves the volume
// degraded.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/lab/RunCell.h"
#include "bench/workload/Profile.h"
#include "bench/workload/TraceProfile.h"
#include "layouts/Layout.h"
#include "tests/bench/lab/RunOnce.h"

namespace tierlab {
namespace {

using nlohmann::json;

// Four hyper-converged nodes of one SATA SSD over 25 GbE RDMA, with
// `protection` and `failures`; each node repairs at most 64 MiB/s.
json Cluster(json protection, json failures, json repair = {{"rate", "64m"}}) {
  return {{"name", "c4"},
          {"tiers", {{{"name", "ssd"}, {"preset", "ssd-hk4e"}, {"count", 1}, {"capacity", "16g"}}}},
          {"cluster",
           {{"nodes", 4},
            {"network", {{"preset", "25gbe-rdma"}}},
            {"protection", std::move(protection)},
            {"failures", std::move(failures)},
            {"repair", std::move(repair)}}}};
}

// 4k 70/30 over 4 jobs x 64 MiB (job i on node i), 6 s with no ramp:
// after a second every extent has been written, and a node holds half of
// the 256.
json RunFor6s(const json& layout, int iodepth = 16) {
  return RunOnce(layout, {{"name", "r"},
                          {"rw", "randrw"},
                          {"rwmixread", 70},
                          {"bs", "4k"},
                          {"iodepth", iodepth},
                          {"numjobs", 4},
                          {"size", "64m"},
                          {"offset_increment", "64m"},
                          {"runtime", "6s"},
                          {"time_based", 1}});
}

std::vector<std::string> Names(const json& list, const char* key) {
  std::vector<std::string> out;
  for (const auto& e : list) out.push_back(e[key]);
  return out;
}

// The phases cover the run without gaps, and their I/Os add up to the
// run's; none has an error.
void ExpectPhasesAddUp(const json& run) {
  const json& phases = run["cluster_failures"]["phases"];
  ASSERT_FALSE(phases.empty());
  double ios = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const json& p = phases[i];
    if (i > 0) {
      EXPECT_EQ(p["start_s"], phases[i - 1]["end_s"]);
    }
    ios += p["iops"].get<double>() * (p["end_s"].get<double>() - p["start_s"].get<double>());
    EXPECT_EQ(p["errors"], 0) << p.dump();
  }
  EXPECT_EQ(phases[0]["start_s"], 0.0);
  const json& job = run["jobs"][0];
  const double total =
      job["read"]["total_ios"].get<double>() + job["write"]["total_ios"].get<double>();
  EXPECT_NEAR(ios, total, 0.01 * total);
}

// Absent from 1 s to 2 s: degraded while away (its VMs run on the next
// node), then it resyncs the extents written meanwhile at 64 MiB/s.
TEST(FailureScheduleTest, AnAbsentNodeIsDegradedThenResyncs) {
  const json run =
      RunFor6s(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                       {{{"node", 1}, {"at", "1s"}, {"kind", "absent"}, {"back", "2s"}}}));
  ASSERT_TRUE(run.contains("cluster_failures")) << run.dump().substr(0, 400);
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"absent", "back: resyncs what it missed", "resynced"}));
  EXPECT_EQ(f["events"][0]["at_s"], 1.0);
  EXPECT_EQ(f["events"][1]["at_s"], 2.0);
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "resyncing", "healthy"}));
  const json& healthy = f["phases"][0];
  const json& degraded = f["phases"][1];
  const json& resync = f["phases"][2];
  EXPECT_GT(degraded["iops"].get<double>(), 0.5 * healthy["iops"].get<double>());
  // Throttled: it took at least its bytes' time at the rate.
  const double mib = resync["repaired_mib"].get<double>();
  EXPECT_GT(mib, 10.0);
  EXPECT_GE(resync["end_s"].get<double>() - resync["start_s"].get<double>(), mib / 64 - 0.02);
  ExpectPhasesAddUp(run);
}

// The same absence noticed a second late (repair.detect): from 1 s to 2 s
// every job soon waits on an I/O touching node 1 (it holds a copy of half
// the extents), so the cluster all but stops; noticed, it goes on degraded.
TEST(FailureScheduleTest, UntilAFailureIsNoticedIoTouchingTheNodeWaits) {
  const json run =
      RunFor6s(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                       {{{"node", 1}, {"at", "1s"}, {"kind", "absent"}, {"back", "3s"}}},
                       {{"rate", "64m"}, {"detect", "1s"}}));
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(
      Names(f["events"], "event"),
      (std::vector<std::string>{"absent", "noticed", "back: resyncs what it missed", "resynced"}));
  EXPECT_EQ(f["events"][1]["at_s"], 2.0);
  EXPECT_EQ(
      Names(f["phases"], "phase"),
      (std::vector<std::string>{"healthy", "undetected", "degraded", "resyncing", "healthy"}));
  const json& healthy = f["phases"][0];
  const json& undetected = f["phases"][1];
  const json& degraded = f["phases"][2];
  EXPECT_LT(undetected["iops"].get<double>(), 0.05 * healthy["iops"].get<double>());
  EXPECT_GT(degraded["iops"].get<double>(), 0.5 * healthy["iops"].get<double>());
  ExpectPhasesAddUp(run);
}

// The same absence with a client restart of a second (clients.restart):
// node 1's job stops with it and runs again on node 2 a second later. At
// QD1 each job does 1 / latency whatever the others do, so the degraded
// phase (1 s to 3 s) loses about half of one job's share of 4: 1/8.
TEST(FailureScheduleTest, ADownNodesClientsRestartElsewhereAfterTheirDelay) {
  json layout = Cluster({{"scheme", "mirror"}, {"copies", 2}},
                        {{{"node", 1}, {"at", "1s"}, {"kind", "absent"}, {"back", "3s"}}});
  const json at_once = RunFor6s(layout, 1);
  layout["cluster"]["clients"] = {{"restart", "1s"}};
  const json run = RunFor6s(layout, 1);
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"absent", "its clients restart on the next node up",
                                      "back: resyncs what it missed", "resynced"}));
  EXPECT_EQ(f["events"][1]["at_s"], 2.0);
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "resyncing", "healthy"}));
  const double degraded = f["phases"][1]["iops"].get<double>();
  const double moved_at_once = at_once["cluster_failures"]["phases"][1]["iops"].get<double>();
  EXPECT_GT(degraded, 0.83 * moved_at_once);
  EXPECT_LT(degraded, 0.92 * moved_at_once);
  ExpectPhasesAddUp(run);
}

// A trace replayed at its own pace (the MSR Cambridge sample: 1,000
// records over 127 s, half of them writes) meets the failure at the time
// the layout says from the replay's start, and the node resyncs the
// extents written while it was away.
TEST(FailureScheduleTest, AFailureComesDuringATraceReplayToo) {
  auto l =
      ParseLayoutJson(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                              {{{"node", 1}, {"at", "40s"}, {"kind", "absent"}, {"back", "80s"}}}),
                      "test");
  ASSERT_TRUE(l.ok()) << l.error().message;
  TraceProfile t;
  t.name = "msr";
  t.trace = t.path =
      std::string(TIERLAB_SOURCE_DIR) + "/tests/data/traces/msr-cambridge1-sample.csv";
  t.replay.mode = ReplayMode::kOpen;
  t.replay.iodepth = 8;
  auto runs = RunCell(*l, Workload{t}, RunSettings{});
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  const json& run = (*runs)[0].json;
  ASSERT_TRUE(run.contains("cluster_failures")) << run.dump().substr(0, 400);
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"absent", "back: resyncs what it missed", "resynced"}));
  EXPECT_EQ(f["events"][0]["at_s"], 40.0);
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "resyncing", "healthy"}));
  EXPECT_GT(f["phases"][2]["repaired_mib"].get<double>(), 0.0);
  for (const json& p : f["phases"]) EXPECT_EQ(p["errors"], 0) << p.dump();
  EXPECT_EQ((*runs)[0].run.completed, 1000u);
}

// Failed at 1 s: its data is gone; with more nodes than
// copies there is a node to rebuild onto, and the rebuild starts at once.
TEST(FailureScheduleTest, AFailedNodeIsRebuiltAtOnce) {
  const json run = RunFor6s(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                                    {{{"node", 2}, {"at", "1s"}, {"kind", "failed"}}}));
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"failed", "rebuild starts", "rebuilt"}));
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "rebuilding", "healthy"}));
  EXPECT_EQ(f["phases"][1]["repaired_mib"].get<double>(), 128.0);
  ExpectPhasesAddUp(run);
}

// The same failure with a quarter of every node kept spare: node 2 leaves
// the cluster and the other three rebuild its 128 MiB in their spare room,
// each its share at 64 MiB/s, in a third of the time one node takes.
TEST(FailureScheduleTest, AFailedNodeIsRebuiltOnTheOthersSpareRoom) {
  const json run = RunFor6s(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                                    {{{"node", 2}, {"at", "1s"}, {"kind", "failed"}}},
                                    {{"rate", "64m"}, {"spare", 25}}));
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"failed", "rebuild starts on the other nodes' spare room",
                                      "rebuilt", "rebuilt", "rebuilt"}));
  std::vector<std::uint32_t> rebuilt_on;
  for (std::size_t i = 2; i < f["events"].size(); ++i) rebuilt_on.push_back(f["events"][i]["node"]);
  std::sort(rebuilt_on.begin(), rebuilt_on.end());
  EXPECT_EQ(rebuilt_on, (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "rebuilding", "healthy"}));
  const json& rebuilding = f["phases"][1];
  EXPECT_EQ(rebuilding["repaired_mib"].get<double>(), 128.0);
  // 128 MiB / 3 nodes at 64 MiB/s each: 0.67 s, where one node takes 2 s.
  const double took = rebuilding["end_s"].get<double>() - rebuilding["start_s"].get<double>();
  EXPECT_GT(took, 0.6);
  EXPECT_LT(took, 0.8);
  ExpectPhasesAddUp(run);
}

// Absent, then failed while away: its data is gone, so it is rebuilt, and
// the absence's return no longer applies.
TEST(FailureScheduleTest, AFailureOfAnAbsentNodeSupersedesItsReturn) {
  const json run =
      RunFor6s(Cluster({{"scheme", "mirror"}, {"copies", 2}},
                       {{{"node", 1}, {"at", "1s"}, {"kind", "absent"}, {"back", "5s"}},
                        {{"node", 1}, {"at", "2s"}, {"kind", "failed"}}}));
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"absent", "failed", "rebuild starts", "rebuilt"}));
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "rebuilding", "healthy"}));
  ExpectPhasesAddUp(run);
}

// Erasure coding 3 + 1 on 4 nodes: every node holds a chunk of every
// stripe, so there is nowhere to rebuild; degraded to the end, no error.
TEST(FailureScheduleTest, WithNoNodeToRebuildOntoItStaysDegraded) {
  const json run = RunFor6s(Cluster({{"scheme", "ec"}, {"data", 3}, {"parity", 1}},
                                    {{{"node", 0}, {"at", "1s"}, {"kind", "failed"}}}));
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"failed",
                                      "no node to rebuild onto (4 nodes, 4 pieces per unit): "
                                      "degraded until it is back"}));
  EXPECT_EQ(Names(f["phases"], "phase"), (std::vector<std::string>{"healthy", "degraded"}));
  ExpectPhasesAddUp(run);
}

// The same 3 + 1 when a node's one SSD fails: its empty replacement (a hot
// spare) takes the node's chunks back at once, so the node rebuilds onto
// itself where a failed node had nowhere to go: every stripe of the 256
// MiB the jobs wrote has a chunk on it (256 / 3 = 86 MiB, in whole
// stripes of three 1 MiB chunks).
// Its host stays up, so a client restart time does not stop its VMs.
TEST(FailureScheduleTest, AFailedDeviceIsRebuiltOntoItsSpare) {
  json layout = Cluster({{"scheme", "ec"}, {"data", 3}, {"parity", 1}},
                        {{{"node", 0}, {"device", "ssd0"}, {"at", "1s"}, {"kind", "failed"}}});
  layout["cluster"]["clients"] = {{"restart", "2s"}};
  const json run = RunFor6s(layout);
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  EXPECT_EQ(Names(f["events"], "event"),
            (std::vector<std::string>{"device ssd0 failed", "rebuild starts", "rebuilt"}));
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "rebuilding", "healthy"}));
  EXPECT_EQ(f["phases"][1]["repaired_mib"].get<double>(), 86.0);
  ExpectPhasesAddUp(run);
  // The same run as without a restart time, to the I/O.
  layout["cluster"].erase("clients");
  EXPECT_EQ(RunFor6s(layout)["cluster_failures"], f);
}

// Two SSDs a node, striped in 1 MiB chunks: node 0's ssd1 fails at 1 s
// and holds only the pieces the stripe put on it, about half the node's
// 128. The node stays up; the volume is degraded until the failed delay
// (1 s) has passed, then the node rebuilds exactly those pieces.
TEST(FailureScheduleTest, ADeviceHoldingPartOfTheNodesPiecesRebuildsThose) {
  json layout = Cluster({{"scheme", "mirror"}, {"copies", 2}},
                        {{{"node", 0}, {"device", "ssd1"}, {"at", "1s"}, {"kind", "failed"}}},
                        {{"rate", "64m"}, {"failed_delay", "1s"}});
  layout["tiers"][0]["count"] = 2;
  layout["tiers"][0]["combine"] = "stripe";
  layout["tiers"][0]["chunk"] = "1m";
  layout["tiers"][0]["capacity"] = "8g";
  const json run = RunFor6s(layout);
  ASSERT_TRUE(run.contains("cluster_failures"));
  const json& f = run["cluster_failures"];
  const std::vector<std::string> events = Names(f["events"], "event");
  ASSERT_EQ(events.size(), 2u) << f.dump();
  int lost = 0;
  ASSERT_EQ(std::sscanf(events[0].c_str(), "device ssd1 failed: %d pieces lost", &lost), 1)
      << events[0];
  EXPECT_GT(lost, 40);
  EXPECT_LT(lost, 90);
  EXPECT_EQ(events[1], "rebuilt");
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "rebuilding", "healthy"}));
  EXPECT_EQ(f["phases"][1]["start_s"], 1.0);
  EXPECT_EQ(f["phases"][2]["start_s"], 2.0);
  EXPECT_EQ(f["phases"][2]["repaired_mib"].get<double>(), static_cast<double>(lost));
  ExpectPhasesAddUp(run);
}

// The same device fails while its node is away for 10 ms (one job a node,
// one I/O at a time, writes a few dozen extents meanwhile): back, the node
// copies in what it missed and the pieces lost with the device, written
// meanwhile or not, so more than the same absence alone, less than the
// whole node.
TEST(FailureScheduleTest, ADeviceFailingWhileItsNodeIsAwayIsRebuiltWhenItIsBack) {
  const auto run = [](bool device_fails) {
    json failures = {{{"node", 0}, {"at", "1s"}, {"kind", "absent"}, {"back", "1.01s"}}};
    if (device_fails) {
      failures.push_back({{"node", 0}, {"device", "ssd1"}, {"at", "1.005s"}, {"kind", "failed"}});
    }
    json layout = Cluster({{"scheme", "mirror"}, {"copies", 2}}, failures);
    layout["tiers"][0]["count"] = 2;
    layout["tiers"][0]["combine"] = "stripe";
    layout["tiers"][0]["chunk"] = "1m";
    layout["tiers"][0]["capacity"] = "8g";
    return RunFor6s(layout, 1);
  };
  const json lost_too = run(true);
  ASSERT_TRUE(lost_too.contains("cluster_failures"));
  const json& f = lost_too["cluster_failures"];
  const std::vector<std::string> events = Names(f["events"], "event");
  ASSERT_EQ(events.size(), 4u) << f.dump();
  EXPECT_EQ(events[0], "absent");
  int lost = 0;
  ASSERT_EQ(std::sscanf(events[1].c_str(),
                        "device ssd1 failed while the node is away: %d pieces lost", &lost),
            1)
      << events[1];
  EXPECT_GT(lost, 40);
  EXPECT_LT(lost, 90);
  EXPECT_EQ(events[2], "back: resyncs what it missed");
  EXPECT_EQ(events[3], "rebuilt");
  EXPECT_EQ(Names(f["phases"], "phase"),
            (std::vector<std::string>{"healthy", "degraded", "rebuilding", "healthy"}));
  const double repaired = f["phases"][2]["repaired_mib"].get<double>();
  EXPECT_GE(repaired, lost);
  EXPECT_LT(repaired, 128.0);
  ExpectPhasesAddUp(lost_too);

  const json missed_only = run(false)["cluster_failures"];
  EXPECT_EQ(Names(missed_only["events"], "event"),
            (std::vector<std::string>{"absent", "back: resyncs what it missed", "resynced"}));
  const double resynced = missed_only["phases"][2]["repaired_mib"].get<double>();
  EXPECT_GT(resynced, 0.0);
  EXPECT_LT(resynced, repaired);
}

}  // namespace
}  // namespace tierlab
