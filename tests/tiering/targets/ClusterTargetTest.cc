// A volume over cluster nodes: copies on distinct nodes with every node
// holding the same share; a write reaches every copy, over the network
// where the copy is remote; a read one copy, local first or the primary;
// data crosses untouched and a failed copy is read around.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "tests/support/SyncIo.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/ClusterTarget.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
using Scheme = ClusterPlacement::Scheme;

TEST(ClusterPlacementTest, CopiesGoToDistinctNodesAndEveryNodeHoldsTheSameShare) {
  for (const Scheme scheme : {Scheme::kChained, Scheme::kMesh}) {
    for (std::uint32_t nodes = 1; nodes <= 7; ++nodes) {
      for (std::uint32_t copies = 1; copies <= std::min(nodes, 3u); ++copies) {
        const ClusterPlacement p(nodes, copies, kMiB, scheme, 42);
        const std::uint64_t node_bytes = 60 * kMiB;
        const std::uint64_t extents = p.VolumeBytes(node_bytes) / kMiB;
        // Whole groups of `nodes` extents, each group `copies` slots a node.
        EXPECT_EQ(extents, node_bytes / (copies * kMiB) * nodes);
        std::set<std::pair<std::uint32_t, std::uint64_t>> used;
        std::map<std::uint32_t, std::uint64_t> per_node;
        for (std::uint64_t e = 0; e < extents; ++e) {
          std::set<std::uint32_t> on;
          for (std::uint32_t i = 0; i < copies; ++i) {
            const auto c = p.Locate(e, i);
            ASSERT_LT(c.node, nodes);
            ASSERT_LT(c.offset + kMiB, node_bytes + 1);
            ASSERT_EQ(c.offset % kMiB, 0u);
            ASSERT_TRUE(used.insert({c.node, c.offset}).second)
                << "slot used twice: node " << c.node << " offset " << c.offset;
            on.insert(c.node);
            ++per_node[c.node];
          }
          ASSERT_EQ(on.size(), copies) << "extent " << e;
        }
        for (std::uint32_t n = 0; n < nodes; ++n) {
          EXPECT_EQ(per_node[n], extents * copies / nodes) << "node " << n;
        }
      }
    }
  }
}

// Chained placement mirrors a node on its neighbour only; the mesh spreads
// each node's partners over every other node (a failed node's data is then
// re-copied by all, ScaleIO's point).
TEST(ClusterPlacementTest, TheMeshPairsEveryNodeWithEveryOtherChainedOnlyNeighbours) {
  auto partners = [](Scheme s) {
    const ClusterPlacement p(5, 2, kMiB, s, 7);
    std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint64_t e = 0; e < 500; ++e) {
      const auto a = p.Locate(e, 0).node;
      const auto b = p.Locate(e, 1).node;
      pairs.insert({std::min(a, b), std::max(a, b)});
    }
    return pairs.size();
  };
  EXPECT_EQ(partners(Scheme::kChained), 5u);  // 0-1, 1-2, 2-3, 3-4, 4-0
  EXPECT_EQ(partners(Scheme::kMesh), 10u);    // all 5 x 4 / 2
}

// A mesh keeps the permutations it drew; one kept for a group must be the
// one the group draws afresh, also when groups share a memo's entry (g and g
// + 1024) and evict each other.
TEST(ClusterPlacementTest, AMeshPlacesTheSameWhetherItsPermutationIsKeptOrDrawnAfresh) {
  const ClusterPlacement kept(16, 2, kMiB, Scheme::kMesh, 11);
  std::mt19937_64 rng(3);
  for (int n = 0; n < 20000; ++n) {
    const std::uint64_t group = rng() % 4 * 1024 + rng() % 8;
    const std::uint64_t extent = group * 16 + rng() % 16;
    const auto i = static_cast<std::uint32_t>(rng() % 2);
    const ClusterPlacement fresh(16, 2, kMiB, Scheme::kMesh, 11);
    const auto a = kept.Locate(extent, i);
    const auto b = fresh.Locate(extent, i);
    ASSERT_EQ(a.node, b.node) << "extent " << extent << " copy " << i;
    ASSERT_EQ(a.offset, b.offset);
  }
}

struct Cluster {
  SimEngine e;
  std::unique_ptr<ClusterTarget> target;
  std::vector<BlockDevice*> disks;   // per node, the device below any fault
  std::vector<FaultTarget*> faults;  // per node
};

// `nodes` nodes of one RAM disk each behind a fault target, one port of
// `nic` each; clients on the nodes, or `hosts` hosts of their own.
std::unique_ptr<Cluster> MakeCluster(std::uint32_t nodes, std::uint32_t copies,
                                     ClusterTarget::ReadCopy reads, std::uint32_t hosts = 0,
                                     const char* nic = "10gbe-tcp", Scheme scheme = Scheme::kMesh) {
  auto c = std::make_unique<Cluster>();
  std::vector<std::unique_ptr<BlockDevice>> stacks;
  std::vector<ClusterTarget::Ports> ports;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    auto disk = std::make_unique<RamDevice>(c->e, "disk" + std::to_string(n), 64 * kMiB, 4096);
    c->disks.push_back(disk.get());
    auto fault = std::make_unique<FaultTarget>(c->e, "fault", std::move(disk));
    c->faults.push_back(fault.get());
    stacks.push_back(std::move(fault));
    ports.push_back({std::make_shared<NicModel>("n" + std::to_string(n), *NicSpec::Find(nic))});
  }
  std::vector<ClusterTarget::Client> clients;
  if (hosts == 0) {
    for (std::uint32_t n = 0; n < nodes; ++n) clients.push_back({static_cast<int>(n), {}});
  }
  for (std::uint32_t h = 0; h < hosts; ++h) {
    clients.push_back({-1, {std::make_shared<NicModel>("h", *NicSpec::Find(nic))}});
  }
  c->target = std::make_unique<ClusterTarget>(
      c->e, "cluster", std::move(stacks), std::move(ports), std::move(clients),
      ClusterPlacement(nodes, copies, kMiB, scheme, 3), reads);
  return c;
}

// Submits `count` requests of `bs` bytes at scattered aligned offsets from
// client `client`, QD 4; every one must succeed.
void Drive(Cluster& c, std::size_t client, IoOp op, std::uint64_t bs, int count,
           std::vector<std::uint64_t>* offsets = nullptr) {
  BlockDevice& v = c.target->ClientView(client);
  int issued = 0;
  std::function<void()> issue = [&] {
    if (issued == count) return;
    const std::uint64_t off = (static_cast<std::uint64_t>(issued) * 7919 * bs) % v.Size();
    ++issued;
    if (offsets != nullptr) offsets->push_back(off);
    v.Submit(IoRequest{op, 0, off, bs, nullptr}, [&](Status st) {
      ASSERT_EQ(st, Status::kOk);
      issue();
    });
  };
  for (int i = 0; i < 4; ++i) issue();
  c.e.Run();
}

std::uint64_t WriteBytes(const Cluster& c) {
  std::uint64_t sum = 0;
  for (const BlockDevice* d : c.disks) sum += d->stats().write_bytes;
  return sum;
}

// Two copies: the disks write twice the guest's bytes, and the client's
// node sends exactly the remote copies (a header and the data each).
TEST(ClusterTargetTest, AWriteReachesEveryCopyAndRemoteCopiesCrossTheNetwork) {
  auto c = MakeCluster(4, 2, ClusterTarget::ReadCopy::kLocal);
  std::vector<std::uint64_t> offsets;
  Drive(*c, 1, IoOp::kWrite, 4096, 400, &offsets);
  EXPECT_EQ(WriteBytes(*c), 2u * 400 * 4096);
  std::uint64_t remote = 0;
  for (std::uint64_t off : offsets) {
    for (std::uint32_t i = 0; i < 2; ++i)
      remote += c->target->placement().Locate(off / kMiB, i).node != 1;
  }
  const NicModel& port = *c->target->node_ports(1)[0];
  EXPECT_EQ(port.tx().messages, remote);
  EXPECT_EQ(port.tx().bytes, remote * (4096 + 64));
  EXPECT_EQ(port.rx().messages, remote);  // the answers: headers only
  EXPECT_EQ(port.rx().bytes, remote * 64);
  // With 4 nodes and 2 copies, half the time one copy is local.
  EXPECT_GT(remote, 400u);
  EXPECT_LT(remote, 800u);
  EXPECT_EQ(c->target->stats().write_ops, 400u);
}

// Reads go to one copy: the node's own where it has one (no message at
// all), otherwise the primary; with "primary" always the primary.
TEST(ClusterTargetTest, AReadGoesToTheLocalCopyOrThePrimary) {
  for (const auto reads : {ClusterTarget::ReadCopy::kLocal, ClusterTarget::ReadCopy::kPrimary}) {
    auto c = MakeCluster(4, 2, reads);
    std::vector<std::uint64_t> offsets;
    Drive(*c, 2, IoOp::kRead, 4096, 400, &offsets);
    std::vector<std::uint64_t> want(4, 0);
    std::uint64_t remote = 0;
    for (std::uint64_t off : offsets) {
      const auto& p = c->target->placement();
      std::uint32_t node = p.Locate(off / kMiB, 0).node;
      if (reads == ClusterTarget::ReadCopy::kLocal && p.Locate(off / kMiB, 1).node == 2) node = 2;
      ++want[node];
      remote += node != 2;
    }
    std::uint64_t total = 0;
    for (std::uint32_t n = 0; n < 4; ++n) {
      EXPECT_EQ(c->disks[n]->stats().read_ops, want[n]) << ToString(reads) << " node " << n;
      total += c->disks[n]->stats().read_ops;
    }
    EXPECT_EQ(total, 400u);
    const NicModel& port = *c->target->node_ports(2)[0];
    EXPECT_EQ(port.rx().bytes, remote * (4096 + 64)) << ToString(reads);
    if (reads == ClusterTarget::ReadCopy::kLocal) {
      EXPECT_LT(remote, 300u);  // a local copy for about half the extents
    }
  }
}

// Clients on hosts of their own: every copy is remote, so the host's port
// carries copies x the data of its writes.
TEST(ClusterTargetTest, AHostsWritesAllCrossItsPort) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal, /*hosts=*/2);
  Drive(*c, 1, IoOp::kWrite, 8192, 100);
  const NicModel& host = *c->target->client(1).ports[0];
  EXPECT_EQ(host.tx().messages, 200u);
  EXPECT_EQ(host.tx().bytes, 200u * (8192 + 64));
  EXPECT_EQ(c->target->client(0).ports[0]->tx().messages, 0u);
  EXPECT_EQ(WriteBytes(*c), 2u * 100 * 8192);
}

// 1 GbE, 64 KiB writes from a host to two copies: its port sends every byte
// twice, so the guest sees half the link's payload rate.
TEST(ClusterTargetTest, MirroredWritesFromAHostRunAtHalfItsLink) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal, 1, "1gbe-tcp");
  BlockDevice& v = c->target->ClientView(0);
  int done = 0;
  constexpr int kTotal = 2000;
  std::uint64_t next = 0;
  std::function<void()> issue = [&] {
    if (next / 65536 >= kTotal) return;
    const std::uint64_t off = next % v.Size();
    next += 65536;
    v.Submit(IoRequest{IoOp::kWrite, 0, off, 65536, nullptr}, [&](Status st) {
      ASSERT_EQ(st, Status::kOk);
      ++done;
      issue();
    });
  };
  for (int i = 0; i < 16; ++i) issue();
  c->e.Run();
  ASSERT_EQ(done, kTotal);
  const double mbps = kTotal * 65536.0 / (static_cast<double>(c->e.Now()) / 1e9) / 1e6;
  const double link = 1e9 * 0.94 / 8 / 1e6 * 65536 / (65536 + 64);  // 117.4 MB/s of messages
  EXPECT_NEAR(mbps, link / 2, 0.01 * link);
}

// The data crosses untouched, requests that span extents included, from
// every client at once.
TEST(ClusterTargetTest, DataCrossesUntouchedFromEveryClient) {
  for (const Scheme scheme : {Scheme::kChained, Scheme::kMesh}) {
    auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal, 0, "25gbe-rdma", scheme);
    for (std::size_t client = 0; client < 3; ++client) {
      testing::VerifyOptions o;
      o.ops = 600;
      o.seed = 11 + client;
      o.max_in_flight = 16;
      o.max_length = 1536 * 1024;  // spans extents
      auto r = testing::RunVerify(c->e, c->target->ClientView(client), o);
      EXPECT_TRUE(r.ok()) << r.first_problem;
      EXPECT_GT(r.writes, 150u);
    }
  }
}

// Two clients write the same block at the same moment: each reaches its
// own node's copy first and the other's over the network, so without an
// order the two copies would end with different data. Overlapping writes
// go in the order they came, and both copies end with the second.
TEST(ClusterTargetTest, OverlappingWritesLeaveEveryCopyTheSame) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal);
  const auto& p = c->target->placement();
  std::uint64_t extent = 0;
  while (!(p.Locate(extent, 0).node == 0 && p.Locate(extent, 1).node == 1) &&
         !(p.Locate(extent, 0).node == 1 && p.Locate(extent, 1).node == 0)) {
    ++extent;
  }
  std::vector<std::byte> first(4096, std::byte{0x11});
  std::vector<std::byte> second(4096, std::byte{0x22});
  int done = 0;
  const std::uint64_t off = extent * kMiB + 8192;
  c->target->ClientView(0).Submit(IoRequest{IoOp::kWrite, 0, off, 4096, first.data()},
                                  [&](Status st) { done += st == Status::kOk; });
  c->target->ClientView(1).Submit(IoRequest{IoOp::kWrite, 0, off, 4096, second.data()},
                                  [&](Status st) { done += st == Status::kOk; });
  c->e.Run();
  ASSERT_EQ(done, 2);
  for (std::uint32_t i = 0; i < 2; ++i) {
    const auto copy = p.Locate(extent, i);
    std::vector<std::byte> got(4096);
    Status st = Status::kShutdown;
    c->disks[copy.node]->Submit(IoRequest{IoOp::kRead, 0, copy.offset + 8192, 4096, got.data()},
                                [&](Status s) { st = s; });
    c->e.Run();
    ASSERT_EQ(st, Status::kOk);
    EXPECT_EQ(got, second) << "copy " << i << " on node " << copy.node;
  }
}

// A node whose disk fails every request: reads come from the other copy,
// writes fail (no degraded mode yet).
TEST(ClusterTargetTest, AReadOfAFailedCopyTriesTheNext) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kPrimary);
  c->faults[0]->FailAll(true);
  Drive(*c, 1, IoOp::kRead, 4096, 200);  // every read succeeds (Drive asserts)
  EXPECT_GT(c->faults[0]->stats().errors, 0u);
  EXPECT_EQ(c->disks[0]->stats().read_ops, 0u);
  Status st = Status::kOk;
  // Extent 0's copies: one of them is on node 0 for some extent within 3.
  std::uint64_t off = 0;
  while (c->target->placement().Locate(off / kMiB, 0).node != 0 &&
         c->target->placement().Locate(off / kMiB, 1).node != 0) {
    off += kMiB;
  }
  c->target->ClientView(1).Submit(IoRequest{IoOp::kWrite, 0, off, 4096, nullptr},
                                  [&](Status s) { st = s; });
  c->e.Run();
  EXPECT_NE(st, Status::kOk);
}

// A node stack that counts what functional warming placed on it.
class WarmCounter final : public BlockDevice {
 public:
  WarmCounter(Engine& e, std::uint64_t size) : BlockDevice(e, "warm"), size_(size) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return 4096; }
  std::string Kind() const override { return "warm-counter"; }
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;

 protected:
  void SubmitImpl(const IoRequest&, IoCallback done) override {
    FinishAsync(std::move(done), Status::kOk);
  }
  std::uint64_t WarmImpl(const IoRequest& req) override {
    ++(req.op == IoOp::kRead ? reads : writes);
    return 1;
  }

 private:
  std::uint64_t size_;
};

// Functional warming warms what the timed run will touch: a read from
// client i warms the copy client i reads (its own node's where it holds
// one), not client 0's; a write every copy.
TEST(ClusterTargetTest, WarmingFromAClientWarmsTheCopyItReads) {
  SimEngine e;
  std::vector<WarmCounter*> nodes;
  std::vector<std::unique_ptr<BlockDevice>> stacks;
  std::vector<ClusterTarget::Ports> ports;
  std::vector<ClusterTarget::Client> clients;
  for (int n = 0; n < 2; ++n) {
    auto w = std::make_unique<WarmCounter>(e, 64 * kMiB);
    nodes.push_back(w.get());
    stacks.push_back(std::move(w));
    ports.push_back({std::make_shared<NicModel>("n", *NicSpec::Find("25gbe-rdma"))});
    clients.push_back({n, {}});
  }
  ClusterTarget cluster(e, "cluster", std::move(stacks), std::move(ports), std::move(clients),
                        ClusterPlacement(2, 2, kMiB, Scheme::kMesh, 3),
                        ClusterTarget::ReadCopy::kLocal);
  for (std::uint64_t off = 0; off < 40 * kMiB; off += kMiB) {
    cluster.ClientView(1).Warm(IoRequest{IoOp::kRead, 0, off, 4096, nullptr});
  }
  EXPECT_EQ(nodes[0]->reads, 0u);
  EXPECT_EQ(nodes[1]->reads, 40u);  // two copies on two nodes: every read is local
  cluster.ClientView(0).Warm(IoRequest{IoOp::kWrite, 0, 0, 4096, nullptr});
  EXPECT_EQ(nodes[0]->writes, 1u);
  EXPECT_EQ(nodes[1]->writes, 1u);
}

// Node CPUs: `cores` cores of `per_io` each on every node of `c`.
void AddCpus(Cluster& c, NodeCpuSpec spec) {
  std::vector<std::unique_ptr<NodeCpu>> cpus;
  for (std::size_t n = 0; n < c.target->placement().nodes(); ++n) {
    cpus.push_back(std::make_unique<NodeCpu>("node" + std::to_string(n) + ".cpu", spec));
  }
  c.target->SetNodeCpus(std::move(cpus));
}

// Over zero-latency RAM disks the node's CPU is the whole cost: one read at
// a time takes per_io + per_kib x KiB, and a full queue runs at cores /
// per_io.
TEST(ClusterTargetTest, ANodesCpuCostsItsTimePerRequestAndBindsAtCoresOverPerIo) {
  auto c = MakeCluster(1, 1, ClusterTarget::ReadCopy::kLocal);
  AddCpus(*c, NodeCpuSpec{2, 10 * kMicro, 1 * kMicro});
  BlockDevice& v = c->target->ClientView(0);
  Status st = Status::kShutdown;
  v.Submit(IoRequest{IoOp::kRead, 0, 0, 8192, nullptr}, [&](Status s) { st = s; });
  c->e.Run();
  ASSERT_EQ(st, Status::kOk);
  EXPECT_EQ(c->e.Now(), 10 * kMicro + 8 * 1 * kMicro);  // per_io + 8 KiB

  const Nanos start = c->e.Now();
  Drive(*c, 0, IoOp::kRead, 4096, 1000);  // QD 4 on 2 cores
  const Nanos elapsed = c->e.Now() - start;
  // 1000 reads of 14 us on 2 cores: 7 ms, to the nanosecond.
  EXPECT_EQ(elapsed, 1000 * 14 * kMicro / 2);
  const NodeCpu& cpu = *c->target->node_cpu(0);
  EXPECT_EQ(cpu.requests(), 1001u);
  EXPECT_EQ(cpu.busy(), 18 * kMicro + 1000 * 14 * kMicro);
  EXPECT_NEAR(cpu.Utilisation(1000 * 14 * kMicro, elapsed), 1.0, 1e-9);
}

// A write's copy costs the write figures where they are set; a read the
// read figures.
TEST(ClusterTargetTest, AWriteCostsTheNodesWriteFigures) {
  auto c = MakeCluster(1, 1, ClusterTarget::ReadCopy::kLocal);
  AddCpus(*c, NodeCpuSpec{1, 10 * kMicro, 1 * kMicro, 25 * kMicro, 2 * kMicro});
  BlockDevice& v = c->target->ClientView(0);
  Status st = Status::kShutdown;
  v.Submit(IoRequest{IoOp::kWrite, 0, 0, 8192, nullptr}, [&](Status s) { st = s; });
  c->e.Run();
  ASSERT_EQ(st, Status::kOk);
  EXPECT_EQ(c->e.Now(), 25 * kMicro + 8 * 2 * kMicro);
  const Nanos start = c->e.Now();
  v.Submit(IoRequest{IoOp::kRead, 0, 0, 8192, nullptr}, [&](Status s) { st = s; });
  c->e.Run();
  ASSERT_EQ(st, Status::kOk);
  EXPECT_EQ(c->e.Now() - start, 10 * kMicro + 8 * 1 * kMicro);
}

// Mirrored writes: each copy costs its own node's CPU, the remote one once
// it has arrived, so every node serves its share of copies.
TEST(ClusterTargetTest, EveryCopyOfAWriteCostsItsNodesCpu) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal, 0, "25gbe-rdma");
  AddCpus(*c, NodeCpuSpec{4, 20 * kMicro, 0});
  std::vector<std::uint64_t> offsets;
  Drive(*c, 0, IoOp::kWrite, 4096, 300, &offsets);
  std::vector<std::uint64_t> want(3, 0);
  for (std::uint64_t off : offsets) {
    for (std::uint32_t i = 0; i < 2; ++i) ++want[c->target->placement().Locate(off / kMiB, i).node];
  }
  for (std::uint32_t n = 0; n < 3; ++n) {
    EXPECT_EQ(c->target->node_cpu(n)->requests(), want[n]) << "node " << n;
    EXPECT_EQ(c->disks[n]->stats().write_ops, want[n]) << "node " << n;
  }
  // A remote copy's write waits for the network and the CPU: QD 4 of
  // writes each at least 20 us of CPU plus a round trip.
  EXPECT_GT(c->e.Now(), 300 * 20 * kMicro / 4);
}

// A node's stalls hold its stack's completions too: a read every 2 ms of a
// node whose CPU costs nothing but stalls 1 ms, 100 times a second, comes
// back at once, or at the end of the stall it completed in, exactly when a
// NodeCpu with the same name and stalls says; about a tenth are held.
TEST(ClusterTargetTest, ANodesStallHoldsTheCompletionsOfItsStack) {
  auto c = MakeCluster(1, 1, ClusterTarget::ReadCopy::kLocal);
  NodeCpuSpec spec{.cores = 1, .per_io = 0, .per_kib = 0};
  spec.stalls = {{.duration = 1 * kMilli, .per_second = 100}};
  AddCpus(*c, spec);
  NodeCpu twin("node0.cpu", spec);
  BlockDevice& v = c->target->ClientView(0);
  constexpr int kReads = 2'000;
  int held = 0;
  for (int i = 0; i < kReads; ++i) {
    const Nanos at = static_cast<Nanos>(i) * 2 * kMilli;
    const Nanos expected = twin.Resume(at);  // the RAM disk answers at once
    held += expected > at ? 1 : 0;
    const Nanos done = testing::ReadCompletedAt(c->e, v, at, 4096);
    ASSERT_EQ(done, expected) << i;
    ASSERT_LE(done - at, 1 * kMilli) << i;  // never beyond the stall
  }
  EXPECT_NEAR(static_cast<double>(held) / kReads, 0.1, 0.03);
}

// The data still crosses untouched with CPUs queueing requests.
TEST(ClusterTargetTest, DataCrossesUntouchedWithNodeCpus) {
  auto c = MakeCluster(3, 2, ClusterTarget::ReadCopy::kLocal, 0, "10gbe-tcp");
  AddCpus(*c, NodeCpuSpec{1, 5 * kMicro, 100});
  for (std::size_t client = 0; client < 3; ++client) {
    testing::VerifyOptions o;
    o.ops = 400;
    o.seed = 31 + client;
    o.max_in_flight = 16;
    o.max_length = 1536 * 1024;
    auto r = testing::RunVerify(c->e, c->target->ClientView(client), o);
    EXPECT_TRUE(r.ok()) << r.first_problem;
    EXPECT_GT(r.writes, 100u);
  }
}

}  // namespace
}  // namespace tierlab
