#pragma once
// Small clusters for the cluster target's tests: nodes of one 16 MiB RAM
// disk behind a fault target, clients on the nodes, 64 KiB extents; and
// checks on what the disks hold.

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/ClusterTarget.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab::testing {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kChunk = 64 * kKiB;

struct Cluster {
  SimEngine e;
  std::unique_ptr<ClusterTarget> target;
  std::vector<BlockDevice*> disks;   // per node, below its fault target
  std::vector<FaultTarget*> faults;  // per node
  std::uint32_t k = 0, m = 0;
};

// `nodes` nodes of one 16 MiB RAM disk each, clients on the nodes, 64 KiB
// extents (or `extent`) with `pieces` pieces on distinct nodes: copies, or with
// `data_chunks` k > 0 stripes of k data and pieces - k parity chunks; `spare`
// percent of each node kept for rebuilds.
inline std::unique_ptr<Cluster> MakeSmallCluster(std::uint32_t nodes, std::uint32_t pieces,
                                                 std::uint32_t data_chunks,
                                                 const char* nic = "25gbe-rdma",
                                                 std::uint64_t extent = kChunk,
                                                 std::uint32_t spare = 0) {
  auto c = std::make_unique<Cluster>();
  c->k = data_chunks;
  c->m = data_chunks == 0 ? 0 : pieces - data_chunks;
  std::vector<std::unique_ptr<BlockDevice>> stacks;
  std::vector<ClusterTarget::Ports> ports;
  std::vector<ClusterTarget::Client> clients;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    auto disk = std::make_unique<RamDevice>(c->e, "disk" + std::to_string(n), 16 * kMiB, 4096);
    c->disks.push_back(disk.get());
    auto fault = std::make_unique<FaultTarget>(c->e, "fault", std::move(disk));
    c->faults.push_back(fault.get());
    stacks.push_back(std::move(fault));
    ports.push_back({std::make_shared<NicModel>("n" + std::to_string(n), *NicSpec::Find(nic))});
    clients.push_back({static_cast<int>(n), {}});
  }
  c->target = std::make_unique<ClusterTarget>(
      c->e, "cluster", std::move(stacks), std::move(ports), std::move(clients),
      ClusterPlacement(nodes, pieces, extent, ClusterPlacement::Scheme::kMesh, 5),
      ClusterTarget::ReadCopy::kLocal, data_chunks, spare);
  return c;
}

// Stripes of k data + m parity chunks of 64 KiB.
inline std::unique_ptr<Cluster> MakeEcCluster(std::uint32_t nodes, std::uint32_t k, std::uint32_t m,
                                              const char* nic = "25gbe-rdma",
                                              std::uint32_t spare = 0) {
  return MakeSmallCluster(nodes, k + m, k, nic, kChunk, spare);
}

// TIERLAB_SOAK_SEED=n shifts the failure tests' seeds, for a manual soak:
//   for n in $(seq 1 100); do
//     TIERLAB_SOAK_SEED=$n tests/tiering_tests --gtest_filter='ClusterFailures*:ClusterRebuild*'
//   done
inline int SoakSeedBase() {
  static const int base =
      std::getenv("TIERLAB_SOAK_SEED") != nullptr ? std::atoi(std::getenv("TIERLAB_SOAK_SEED")) : 0;
  return base;
}

inline Status Do(Cluster& c, std::size_t client, IoRequest req) {
  Status st = Status::kShutdown;
  c.target->ClientView(client).Submit(req, [&](Status s) { st = s; });
  c.e.Run();
  return st;
}

inline std::vector<std::byte> ReadDisk(Cluster& c, std::uint32_t node, std::uint64_t off,
                                       std::uint64_t len) {
  std::vector<std::byte> got(len);
  Status st = Status::kShutdown;
  c.disks[node]->Submit(IoRequest{IoOp::kRead, 0, off, len, got.data()}, [&](Status s) { st = s; });
  c.e.Run();
  EXPECT_EQ(st, Status::kOk);
  return got;
}

// Every parity chunk of stripes [0, stripes) is the code of its data chunks,
// as read from the nodes' disks where the pieces live now; returns the
// stripes that disagree.
inline int StripesWithWrongParity(Cluster& c, std::uint64_t stripes) {
  const ParityCode code(static_cast<int>(c.k), static_cast<int>(c.m));
  const ClusterTarget& p = *c.target;
  int wrong = 0;
  for (std::uint64_t s = 0; s < stripes; ++s) {
    std::vector<std::vector<std::byte>> chunks;
    for (std::uint32_t i = 0; i < c.k + c.m; ++i) {
      const auto at = p.PieceAt(s, i);
      chunks.push_back(ReadDisk(c, at.node, at.offset, kChunk));
    }
    std::vector<std::byte*> data, parity;
    std::vector<std::vector<std::byte>> want(c.m, std::vector<std::byte>(kChunk));
    for (std::uint32_t d = 0; d < c.k; ++d) data.push_back(chunks[d].data());
    for (auto& w : want) parity.push_back(w.data());
    code.Encode(kChunk, data, parity);
    for (std::uint32_t j = 0; j < c.m; ++j) wrong += want[j] != chunks[c.k + j] ? 1 : 0;
  }
  return wrong;
}

// The pieces node `node` holds of units [0, units), where they live now.
inline std::uint64_t PiecesOn(const Cluster& c, std::uint32_t node, std::uint64_t units) {
  std::uint64_t held = 0;
  for (std::uint64_t u = 0; u < units; ++u) {
    for (std::uint32_t i = 0; i < c.target->placement().copies(); ++i) {
      held += c.target->PieceAt(u, i).node == node ? 1 : 0;
    }
  }
  return held;
}

inline std::uint64_t Sum(const Cluster& c, std::uint64_t DeviceStats::*field) {
  std::uint64_t sum = 0;
  for (const BlockDevice* d : c.disks) sum += d->stats().*field;
  return sum;
}

// Mirrored extents [0, extents) whose copies differ on the disks, where
// they live now.
inline int ExtentsWithDifferentCopies(Cluster& c, std::uint64_t extents) {
  const ClusterTarget& p = *c.target;
  int wrong = 0;
  for (std::uint64_t e = 0; e < extents; ++e) {
    const auto first = p.PieceAt(e, 0);
    const std::vector<std::byte> want = ReadDisk(c, first.node, first.offset, kChunk);
    for (std::uint32_t i = 1; i < p.placement().copies(); ++i) {
      const auto at = p.PieceAt(e, i);
      wrong += ReadDisk(c, at.node, at.offset, kChunk) != want ? 1 : 0;
    }
  }
  return wrong;
}

}  // namespace tierlab::testing
