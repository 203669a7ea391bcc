// Cluster layouts: the "cluster" section's errors name the field, a layout
// builds one stack per node joined by a cluster target, in simulation and
// on real files (each node's own, named by the paths' {node}).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tests/support/TempDir.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"
#include "tiering/targets/ClusterTarget.h"

namespace tierlab {
namespace {

nlohmann::json ClusterLayout(nlohmann::json cluster) {
  auto j = *ExpandShorthand("nvme1+ssd2");
  j["name"] = "c";
  j["cluster"] = std::move(cluster);
  return j;
}

std::string ErrorOf(const nlohmann::json& cluster) {
  auto l = ParseLayoutJson(ClusterLayout(cluster), "x.json");
  if (!l.ok()) {
    EXPECT_EQ(l.error().kind, ErrorKind::kInput);
    return l.error().message;
  }
  SimEngine e;
  auto v = BuildVolume(e, *l, {});
  return v.ok() ? "" : v.error().message;
}

TEST(ClusterLayoutTest, BadClusterSectionsNameTheField) {
  EXPECT_EQ(ErrorOf({{"nodes", 2}, {"protection", {{"copies", 3}}}}),
            "x.json: cluster.protection.copies: 3 copies need 3 nodes; the cluster has 2");
  EXPECT_EQ(ErrorOf({{"nodes", 17}}), "x.json: cluster.nodes: must be 1..16, got 17");
  EXPECT_EQ(ErrorOf({{"nodes", 0}}), "x.json: cluster.nodes: must be 1..16, got 0");
  EXPECT_NE(ErrorOf({{"network", {{"preset", "2gbe"}}}}).find("x.json: cluster.network.preset: "),
            std::string::npos);
  EXPECT_NE(ErrorOf({{"network", {{"preset", "2gbe"}}}}).find("25gbe-rdma"), std::string::npos);
  EXPECT_NE(
      ErrorOf({{"protection", {{"scheme", "raid"}}}}).find("x.json: cluster.protection.scheme: "),
      std::string::npos);
  EXPECT_EQ(ErrorOf({{"placement", {{"extent", "6k"}}}}),
            "x.json: cluster.placement.extent: must be a positive multiple of 4k, got 6k");
  EXPECT_NE(ErrorOf({{"nodez", 3}}).find("x.json: cluster.nodez: unknown key; known: nodes"),
            std::string::npos);
  EXPECT_EQ(ErrorOf({{"network", "10gbe"}}), "x.json: cluster.network: must be an object");
  EXPECT_EQ(ErrorOf({{"cpu", {{"cores", 8}}}}),
            "x.json: cluster.cpu: cores without a cost; set per_io_ns or per_kib_ns, or cores 0");
  EXPECT_EQ(ErrorOf({{"cpu", {{"cores", 8}, {"per_io_ns", -1}}}}),
            "x.json: cluster.cpu.per_io_ns: must be 0..1000000000, got -1");
  EXPECT_EQ(ErrorOf({{"cpu", {{"cores", 8}, {"per_io_ns", 1}, {"stalls", {{{"per_second", 9}}}}}}}),
            "x.json: cluster.cpu.stalls[0].duration_ns: missing; how long a stall is");
  EXPECT_EQ(ErrorOf({{"nodes", 3}, {"protection", {{"scheme", "ec"}}}}),
            "x.json: cluster.protection: 3 data + 1 parity chunks need 4 nodes; the cluster has 3");
  EXPECT_EQ(ErrorOf({{"nodes", 6}, {"protection", {{"scheme", "ec"}, {"parity", 4}}}}),
            "x.json: cluster.protection.parity: must be 1..3, got 4");
  EXPECT_EQ(ErrorOf({{"nodes", 6}, {"protection", {{"scheme", "ec"}, {"data", 1}}}}),
            "x.json: cluster.protection.data: must be 2..15, got 1");
  // One copy ("none") fits a single node.
  EXPECT_EQ(ErrorOf({{"nodes", 1}, {"protection", {{"scheme", "none"}}}}), "");
  EXPECT_EQ(ErrorOf({{"clients", {{"where", "hosts"}, {"restart", "60s"}}}}),
            "x.json: cluster.clients.restart: clients on hosts do not go down with a node; "
            "restart is for where: nodes");
}

TEST(ClusterLayoutTest, BadFailuresNameTheField) {
  using nlohmann::json;
  EXPECT_EQ(ErrorOf({{"nodes", 4}, {"failures", json::array({{{"node", 4}, {"at", "1s"}}})}}),
            "x.json: cluster.failures[0].node: node 4 does not exist; the cluster has nodes 0..3");
  EXPECT_EQ(ErrorOf({{"nodes", 4}, {"failures", {{"node", 9}}}}),
            "x.json: cluster.failures[0].node: node 9 does not exist; the cluster has nodes 0..3");
  EXPECT_EQ(ErrorOf({{"failures", json::array({{{"node", 1}, {"at", "soon"}}})}}),
            "x.json: cluster.failures[0].at: must be a time from 0 to 1e6 s such as \"500ms\", "
            "\"60s\", \"60m\", got \"soon\"");
  EXPECT_EQ(ErrorOf({{"failures", json::array({{{"node", 1}, {"kind", "gone"}}})}}),
            "x.json: cluster.failures[0].kind: unknown \"gone\"; known: absent, failed");
  EXPECT_EQ(
      ErrorOf({{"failures", json::array({{{"node", 1}, {"kind", "failed"}, {"back", "9s"}}})}}),
      "x.json: cluster.failures[0].back: a failed node does not come back; its pieces are "
      "rebuilt (use \"kind\": \"absent\")");
  EXPECT_EQ(ErrorOf({{"failures", json::array({{{"node", 1}, {"at", "9s"}, {"back", "2s"}}})}}),
            "x.json: cluster.failures[0].back: must be after at");
  EXPECT_EQ(ErrorOf({{"failures", 3}}),
            "x.json: cluster.failures: must be an array of failures or one failure");
}

// A failed device's loss is the node's pieces on it, so a device may fail
// where they are known: every piece (a write-back cache's device, one of a
// striped capacity tier's whose pieces span all its devices) or those at
// its addresses (a linear tier's, a narrow stripe's) when the tier's
// addresses are the node's.
TEST(ClusterLayoutTest, OnlyADeviceWhosePiecesAreKnownMayFail) {
  using nlohmann::json;
  const auto error_of = [](json layout, const std::string& device, const char* kind = "failed") {
    layout["cluster"]["failures"] = {{"node", 1}, {"device", device}, {"kind", kind}};
    auto l = ParseLayoutJson(layout, "x.json");
    return l.ok() ? std::string() : l.error().message;
  };
  const json wb = ClusterLayout({{"nodes", 3}});  // nvme1+ssd2: a write-back cache
  EXPECT_EQ(error_of(wb, "cache0"), "");
  EXPECT_EQ(error_of(wb, "ssd1"), "");  // 2 x 256 KiB chunks within a 1 MiB piece
  EXPECT_EQ(error_of(wb, "ssd2"),
            "x.json: cluster.failures[0].device: \"ssd2\" is not a device of a node; a node has "
            "cache0, ssd0, ssd1");
  EXPECT_EQ(error_of(wb, "ssd0", "absent"),
            "x.json: cluster.failures[0].kind: a device fails (\"failed\"); \"absent\" is for a "
            "node");
  json wt = wb;
  wt["cache"]["write"] = "writethrough";
  EXPECT_EQ(error_of(wt, "cache0"),
            "x.json: cluster.failures[0].device: a cache device with no dirty lines (cache.write "
            "wt) loses nothing the cluster needs; not modelled yet");
  json linear = wb;
  linear["tiers"][1]["combine"] = "linear";
  EXPECT_EQ(error_of(linear, "ssd0"), "");
  json reduced = linear;
  reduced["reduction"] = {{"compression", "lz4"}};
  EXPECT_EQ(error_of(reduced, "ssd0"),
            "x.json: cluster.failures[0].device: data reduction stores blocks where it finds "
            "room; a device holding part of the node's pieces needs the tier's addresses to be "
            "the node's; not modelled yet");
  json mirror = wb;
  mirror["tiers"][1]["combine"] = "mirror";
  EXPECT_EQ(error_of(mirror, "ssd0"),
            "x.json: cluster.failures[0].device: the tier's own mirror keeps the node's pieces; "
            "not modelled yet");
  json wide = wb;
  wide["tiers"][1]["count"] = 6;
  EXPECT_EQ(error_of(wide, "ssd5"), "");  // a 1 MiB piece spans 4 of the 6
  json tiered = *ExpandShorthand("nvme1/ssd2/hdd2");
  tiered["cluster"] = {{"nodes", 3}};
  EXPECT_EQ(error_of(tiered, "ssd0"),
            "x.json: cluster.failures[0].device: the node has 3 capacity tiers, whose pieces move "
            "between devices with their heat; not modelled yet");
  EXPECT_EQ(ErrorOf({{"repair", {{"rate", "fast"}}}}).rfind("x.json: cluster.repair.rate: ", 0),
            0u);
  EXPECT_EQ(ErrorOf({{"repair", {{"absent_delay", -1}}}})
                .rfind("x.json: cluster.repair.absent_delay: ", 0),
            0u);
  EXPECT_EQ(ErrorOf({{"repair", {{"spare", 95}}}}).rfind("x.json: cluster.repair.spare: ", 0), 0u);
  EXPECT_EQ(ErrorOf({{"repair", {{"depth", 0}}}}).rfind("x.json: cluster.repair.depth: ", 0), 0u);
  EXPECT_EQ(ErrorOf({{"repair", {{"depth", 17}}}}).rfind("x.json: cluster.repair.depth: ", 0), 0u);
  EXPECT_EQ(
      ErrorOf({{"repair", {{"depth_per", "disk"}}}}).rfind("x.json: cluster.repair.depth_per: ", 0),
      0u);
  // Per device needs each piece on known devices.
  const auto per_device = [](json layout) {
    layout["cluster"]["repair"] = {{"depth_per", "device"}};
    auto l = ParseLayoutJson(layout, "x.json");
    return l.ok() ? std::string() : l.error().message;
  };
  EXPECT_EQ(per_device(wb), "");
  EXPECT_EQ(per_device(tiered),
            "x.json: cluster.repair.depth_per: \"device\" needs each piece on known devices of "
            "the node; with 3 capacity tiers they move with their heat: use \"node\"");
  EXPECT_EQ(per_device(reduced),
            "x.json: cluster.repair.depth_per: \"device\" needs each piece on known devices of "
            "the node; data reduction stores blocks where it finds room: use \"node\"");
}

TEST(ClusterLayoutTest, FailuresAndRepairRoundTrip) {
  using nlohmann::json;
  auto l = ParseLayoutJson(
      ClusterLayout(
          {{"nodes", 4},
           {"failures",
            json::array({{{"node", 1}, {"at", 90}, {"back", "3m"}},
                         {{"node", 3}, {"at", "1500us"}, {"back", "1500001ns"}},
                         {{"node", 2}, {"at", "1500ms"}, {"kind", "failed"}, {"device", "ssd1"}}})},
           {"repair",
            {{"absent_delay", "1h"},
             {"rate", "100m"},
             {"depth", 8},
             {"depth_per", "device"},
             {"spare", 25},
             {"detect", "6s"}}},
           {"clients", {{"restart", "90s"}}}}),
      "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  const ClusterSpec& c = *l->cluster;
  ASSERT_EQ(c.failures.size(), 3u);
  EXPECT_EQ(c.failures[0].at, 90 * kSecond);
  EXPECT_EQ(*c.failures[0].back, 180 * kSecond);
  EXPECT_EQ(c.failures[0].kind, ClusterFailure::Kind::kAbsent);
  EXPECT_EQ(c.failures[1].at, 1500 * kMicro);
  EXPECT_EQ(*c.failures[1].back, 1500001);
  EXPECT_EQ(c.failures[2].at, 1500 * kMilli);
  EXPECT_EQ(c.failures[2].kind, ClusterFailure::Kind::kFailed);
  EXPECT_FALSE(c.failures[2].back);
  EXPECT_EQ(c.failures[2].device, "ssd1");
  EXPECT_EQ(c.failures[0].device, "");
  EXPECT_EQ(c.repair.rate, 100u << 20);
  EXPECT_EQ(c.repair.spare, 25u);
  EXPECT_EQ(c.repair.depth, 8u);
  EXPECT_TRUE(c.repair.depth_per_device);
  EXPECT_EQ(c.repair.detect, 6 * kSecond);
  EXPECT_EQ(c.client_restart, 90 * kSecond);
  const json eff = LayoutToJson(*l);
  EXPECT_EQ(eff["cluster"]["clients"]["restart"], "90s");
  EXPECT_EQ(eff["cluster"]["failures"][0]["at"], "90s");
  EXPECT_EQ(eff["cluster"]["failures"][0]["back"], "3m");
  EXPECT_EQ(eff["cluster"]["failures"][1]["at"], "1500us");
  EXPECT_EQ(eff["cluster"]["failures"][1]["back"], "1500001ns");
  EXPECT_EQ(eff["cluster"]["failures"][2]["at"], "1500ms");
  EXPECT_FALSE(eff["cluster"]["failures"][2].contains("back"));
  EXPECT_EQ(eff["cluster"]["failures"][2]["device"], "ssd1");
  EXPECT_FALSE(eff["cluster"]["failures"][0].contains("device"));
  EXPECT_EQ(eff["cluster"]["repair"]["absent_delay"], "1h");
  EXPECT_EQ(eff["cluster"]["repair"]["failed_delay"], "0s");
  EXPECT_EQ(eff["cluster"]["repair"]["spare"], 25);
  EXPECT_EQ(eff["cluster"]["repair"]["depth"], 8);
  EXPECT_EQ(eff["cluster"]["repair"]["depth_per"], "device");
  EXPECT_EQ(eff["cluster"]["repair"]["detect"], "6s");
  auto again = ParseLayoutJson(eff, "x.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), eff);
  // No failures: the key is left out; one object is a list of one.
  auto none = ParseLayoutJson(ClusterLayout({{"nodes", 4}}), "x.json");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(LayoutToJson(*none)["cluster"].contains("failures"));
  auto one = ParseLayoutJson(ClusterLayout({{"nodes", 4}, {"failures", {{"node", 3}}}}), "x.json");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->cluster->failures.size(), 1u);
}

TEST(ClusterLayoutTest, EffectiveLayoutRoundTrips) {
  auto l = ParseLayoutJson(
      ClusterLayout({{"nodes", 4},
                     {"network", {{"preset", "25gbe-rdma"}, {"nics", 2}}},
                     {"clients", {{"where", "hosts"}, {"hosts", 3}}},
                     {"placement", {{"scheme", "chained"}, {"reads", "primary"}}},
                     {"cpu",
                      {{"cores", 16},
                       {"per_io_ns", 20000},
                       {"per_write_io_ns", 35000},
                       {"stalls", {{{"duration_ns", 20000}, {"per_second", 500}}}}}}}),
      "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  const nlohmann::json eff = LayoutToJson(*l);
  EXPECT_EQ(eff["cluster"]["network"]["nics"], 2);
  EXPECT_EQ(eff["cluster"]["protection"]["copies"], 2);
  EXPECT_EQ(eff["cluster"]["placement"]["extent"], "1m");
  EXPECT_EQ(eff["cluster"]["cpu"]["per_io_ns"], 20000);
  EXPECT_EQ(eff["cluster"]["cpu"]["per_write_io_ns"], 35000);
  EXPECT_EQ(l->cluster->cpu.per_write_io, 35000);
  // A node's CPU takes the host's stalls as a one-node layout's does.
  ASSERT_EQ(l->cluster->cpu.stalls.size(), 1u);
  EXPECT_EQ(l->cluster->cpu.stalls[0].duration, 20000);
  EXPECT_EQ(eff["cluster"]["cpu"]["stalls"][0]["per_second"], 500.0);
  // The preset's latency and CPU are not written unless replaced.
  EXPECT_FALSE(eff["cluster"]["network"].contains("one_way_latency_ns"));
  EXPECT_EQ(eff["cluster"]["cpu"]["per_kib_ns"], 0);
  auto again = ParseLayoutJson(eff, "x.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), eff);
}

// A network preset's latency and CPU per message, replaced: the ports
// take the new figures, and the layout written back keeps them.
TEST(ClusterLayoutTest, NetworkOverridesReplaceThePresetsFigures) {
  auto l = ParseLayoutJson(ClusterLayout({{"nodes", 2},
                                          {"network",
                                           {{"preset", "40gbe-tcp"},
                                            {"one_way_latency_ns", 30000},
                                            {"cpu_per_message_ns", 25000}}}}),
                           "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  SimEngine e;
  auto v = BuildVolume(e, *l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  const NicSpec& spec = v->cluster()->node_ports(1)[0]->spec();
  EXPECT_EQ(spec.one_way_latency, 30000);
  EXPECT_EQ(spec.cpu_per_message, 25000);
  EXPECT_EQ(spec.line_rate_bps, NicSpec::Find("40gbe-tcp")->line_rate_bps);
  const nlohmann::json eff = LayoutToJson(*l);
  EXPECT_EQ(eff["cluster"]["network"]["one_way_latency_ns"], 30000);
  EXPECT_EQ(eff["cluster"]["network"]["cpu_per_message_ns"], 25000);
}

// Three nodes of one NVMe cache over two SSDs, two copies: each node is
// the one-node layout's stack, the volume holds 3 x a node / 2 (whole
// groups of 1 MiB extents), and data crosses from any node.
TEST(ClusterLayoutTest, BuildsOneStackPerNodeAndKeepsData) {
  auto l = ParseLayoutJson(ClusterLayout({{"nodes", 3}}), "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  auto one = *l;
  one.cluster.reset();
  SimEngine e;
  BuildOptions o;
  o.with_data = true;
  auto single = BuildVolume(e, one, o);
  ASSERT_TRUE(single.ok()) << single.error().message;
  auto v = BuildVolume(e, *l, o);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_NE(v->cluster(), nullptr);
  EXPECT_EQ(v->clients().size(), 3u);
  // Whole 1 MiB groups: 3 nodes x the node's size / 2 copies.
  const std::uint64_t node = single->top().Size();
  EXPECT_EQ(v->top().Size(), node / (2 << 20) * 3 * (1 << 20));
  // With a fifth of every node kept spare, whole groups of the rest.
  auto spare = *l;
  spare.cluster->repair.spare = 20;
  auto smaller = BuildVolume(e, spare, o);
  ASSERT_TRUE(smaller.ok()) << smaller.error().message;
  EXPECT_EQ(smaller->top().Size(), (node - node / 100 * 20) / (2 << 20) * 3 * (1 << 20));
  ASSERT_EQ(v->tiers().size(), 3 * single->tiers().size());
  EXPECT_EQ(v->tiers()[0].name, "node0.cache");
  EXPECT_EQ(v->tiers().back().name, "node2.ssd");
  testing::VerifyOptions vo;
  vo.ops = 600;
  vo.region = 64 << 20;
  auto r = testing::RunVerify(e, *v->clients()[1], vo);
  EXPECT_TRUE(r.ok()) << r.first_problem;
}

// Erasure coding 4 + 2 on six nodes: the volume holds 4 of every 6 chunks,
// the layout written back keeps the scheme, and data crosses through every
// node's cache and tiers.
TEST(ClusterLayoutTest, ErasureCodingBuildsAndKeepsData) {
  auto l = ParseLayoutJson(
      ClusterLayout({{"nodes", 6}, {"protection", {{"scheme", "ec"}, {"data", 4}, {"parity", 2}}}}),
      "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  const nlohmann::json eff = LayoutToJson(*l);
  EXPECT_EQ(eff["cluster"]["protection"]["scheme"], "ec");
  EXPECT_EQ(eff["cluster"]["protection"]["data"], 4);
  EXPECT_EQ(eff["cluster"]["protection"]["parity"], 2);
  auto again = ParseLayoutJson(eff, "x.json");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(LayoutToJson(*again), eff);
  // Whole groups of six 1 MiB chunks, each group 6 slots a node: 6 stripes
  // of 4 MiB of data.
  LayoutSpec one = *l;
  one.cluster.reset();
  SimEngine e;
  const std::uint64_t node = BuildVolume(e, one, {})->top().Size();
  BuildOptions with_data;
  with_data.with_data = true;
  auto v = BuildVolume(e, *l, with_data);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->cluster()->data_chunks(), 4u);
  EXPECT_EQ(v->top().Size(), node / (6 << 20) * 6 * (4 << 20));
  testing::VerifyOptions vo;
  vo.ops = 600;
  vo.region = 64 << 20;
  vo.max_length = 5 << 20;  // full stripes too
  auto r = testing::RunVerify(e, *v->clients()[4], vo);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(v->cluster()->stripe_writes().full_stripe, 0u);
}

// Device paths in a cluster name each node's file with {node}; one path for
// all nodes, or {node} without a cluster, is an error naming the field.
TEST(ClusterLayoutTest, PathsNameEachNodesFile) {
  EXPECT_EQ(PathForNode("/srv/n{node}/cache-{node}.img", 12), "/srv/n12/cache-12.img");
  EXPECT_EQ(PathForNode("/dev/sdb", 3), "/dev/sdb");
  auto j = ClusterLayout({{"nodes", 3}});
  j["tiers"][1]["paths"] = {"/srv/ssd-a.img", "/srv/ssd-b.img"};
  auto l = ParseLayoutJson(j, "x.json");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message,
            "x.json: tiers[1].paths[0]: \"/srv/ssd-a.img\" would be one file for 3 nodes; name "
            "each node's file with {node}, e.g. \"node{node}-ssd-a.img\"");
  j["tiers"][1]["paths"] = {"/srv/{node}-a.img", "/srv/{node}-b.img"};
  EXPECT_TRUE(ParseLayoutJson(j, "x.json").ok());
  j.erase("cluster");
  l = ParseLayoutJson(j, "x.json");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.error().message,
            "x.json: tiers[1].paths[0]: {node} stands for a cluster node's number; the layout has "
            "no cluster");
}

// Bytes [offset, offset + n) of a file.
std::vector<char> ReadFile(const std::string& path, std::uint64_t offset, std::size_t n) {
  std::vector<char> out(n);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out.data(), static_cast<std::streamsize>(n));
  EXPECT_TRUE(in.good()) << path;
  return out;
}

// Real mode: three nodes, each one file of its own (the layout's path with
// {node}), two copies over a 25 GbE model. The harness from node 0 loses
// nothing while node 2 is away and after it resyncs on its return, and then
// both copies of every extent agree on the files themselves.
TEST(ClusterLayoutTest, OnRealFilesEachNodeKeepsItsOwnAndResyncsOnItsReturn) {
  testing::TempDir dir{"tierlab-cluster"};
  ASSERT_FALSE(dir.path().empty());
  constexpr std::uint64_t kExtent = 256 << 10;
  const nlohmann::json j = {
      {"name", "c"},
      {"tiers",
       {{{"preset", "ssd-hk4e"}, {"capacity", "32m"}, {"paths", {dir.Path("n{node}.img")}}}}},
      {"cluster",
       {{"nodes", 3},
        {"network", {{"preset", "25gbe-tcp"}}},
        {"placement", {{"extent", "256k"}}}}}};
  auto l = ParseLayoutJson(j, "x.json");
  ASSERT_TRUE(l.ok()) << l.error().message;
  RealEngine e;
  auto v = BuildVolume(e, *l, {});
  ASSERT_TRUE(v.ok()) << v.error().message;
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(std::filesystem::file_size(dir.Path("n" + std::to_string(n) + ".img")), 32u << 20);
  }
  ClusterTarget& c = *v->cluster();
  testing::VerifyOptions vo;
  vo.ops = 1500;
  vo.region = 64 * kExtent;
  vo.max_length = 2 * kExtent;
  vo.on_complete = [&](std::uint64_t done) {
    if (done == 300) c.SetNodeDown(2, true);
    if (done == 900) c.SetNodeDown(2, false);
  };
  const testing::VerifyResult r = testing::RunVerify(e, *v->clients()[0], vo);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  e.Run();  // the resync's last windows
  EXPECT_EQ(c.node_state(2), ClusterTarget::NodeState::kHealthy);
  EXPECT_EQ(c.stale_pieces(), 0u);
  EXPECT_GT(c.resync_stats().pieces, 0u);
  const ClusterPlacement& p = c.placement();
  int differ = 0;
  for (std::uint64_t x = 0; x < 64; ++x) {
    const auto a = p.Locate(x, 0);
    const auto b = p.Locate(x, 1);
    differ += ReadFile(dir.Path("n" + std::to_string(a.node) + ".img"), a.offset, kExtent) !=
                      ReadFile(dir.Path("n" + std::to_string(b.node) + ".img"), b.offset, kExtent)
                  ? 1
                  : 0;
  }
  EXPECT_EQ(differ, 0);
}

}  // namespace
}  // namespace tierlab
