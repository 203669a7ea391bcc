// A failed node replaced by an empty one (ClusterTarget::ReplaceNode): the
// replacement rebuilds every piece it holds of what the volume has written,
// loses nothing across the failure and the rebuild (mirror n = 2, erasure
// coding 3 + 1), copies only what was written, at most the repair rate,
// and reports its states as they change.

#include <gtest/gtest.h>

#include "tests/support/VerifyHarness.h"
#include "tests/tiering/targets/ClusterFixture.h"

namespace tierlab {
namespace {

using testing::Cluster;
using testing::Do;
using testing::kChunk;
using testing::kMiB;
using NodeState = ClusterTarget::NodeState;

constexpr std::uint64_t kRegionUnits = 64;

// Node n's disk as a new node's: every byte zero (what it held is gone).
void Blank(Cluster& c, std::uint32_t n) {
  static const std::vector<std::byte> zeros(16 * kMiB);
  c.disks[n]->Submit(
      IoRequest{IoOp::kWrite, 0, 0, zeros.size(), const_cast<std::byte*>(zeros.data())},
      [](Status st) { EXPECT_EQ(st, Status::kOk); });
}

enum class Action : std::uint8_t { kDown, kUp, kFail, kReplace };
struct Event {
  std::uint64_t at;  // completions of the run
  std::uint32_t node;
  Action action;
};

void Apply(Cluster& c, const Event& e) {
  switch (e.action) {
    case Action::kDown: c.target->SetNodeDown(e.node, true); break;
    case Action::kUp: c.target->SetNodeDown(e.node, false); break;
    case Action::kFail:
      c.target->SetNodeDown(e.node, true);
      Blank(c, e.node);
      break;
    case Action::kReplace: c.target->ReplaceNode(e.node); break;
  }
}

// The verification harness from client 0 with `events`, then every node is
// healthy, and every copy or parity agrees with the data.
void RunAcross(Cluster& c, const std::vector<Event>& events, std::uint64_t seed) {
  const std::uint64_t unit = c.k == 0 ? kChunk : c.k * kChunk;
  testing::VerifyOptions o;
  o.ops = 1500;
  o.seed = seed + 1000 * testing::SoakSeedBase();
  o.max_in_flight = 16;
  o.max_length = 2 * unit;
  o.region = kRegionUnits * unit;
  o.on_complete = [&](std::uint64_t done) {
    for (const Event& e : events) {
      if (e.at == done) Apply(c, e);
    }
  };
  const testing::VerifyResult r = testing::RunVerify(c.e, c.target->ClientView(0), o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.writes, 400u);
  c.e.Run();
  for (std::uint32_t n = 0; n < c.target->placement().nodes(); ++n) {
    EXPECT_EQ(c.target->node_state(n), NodeState::kHealthy) << "node " << n;
  }
  EXPECT_EQ(c.target->stale_pieces(), 0u);
  if (c.k == 0) {
    EXPECT_EQ(testing::ExtentsWithDifferentCopies(c, kRegionUnits), 0);
  } else {
    EXPECT_EQ(testing::StripesWithWrongParity(c, kRegionUnits), 0);
  }
}

TEST(ClusterRebuildTest, AMirrorRebuildsAFailedNodeAndLosesNothing) {
  auto c = testing::MakeSmallCluster(4, 2, 0);
  RunAcross(*c, {{300, 1, Action::kFail}, {700, 1, Action::kReplace}}, 200);
  // The node held about half the region's 64 extents (2 copies over 4
  // nodes): it rebuilt those written by then, and the rest came as writes.
  EXPECT_GT(c->target->resync_stats().rebuilt_pieces, 10u);
  EXPECT_LE(c->target->resync_stats().rebuilt_pieces, 64u);
}

TEST(ClusterRebuildTest, ErasureCodingRebuildsAFailedNodeAndLosesNothing) {
  auto c = testing::MakeEcCluster(4, 3, 1);
  RunAcross(*c, {{300, 2, Action::kFail}, {700, 2, Action::kReplace}}, 210);
  EXPECT_GT(c->target->resync_stats().rebuilt_pieces, 10u);
}

// The replacement down in the middle of its rebuild goes on where it
// stopped when back; one replaced again starts over; neither loses data.
TEST(ClusterRebuildTest, ARebuildInterruptedOrRestartedLosesNothing) {
  for (const std::uint32_t k : {0u, 3u}) {
    auto c = k == 0 ? testing::MakeSmallCluster(4, 2, 0) : testing::MakeEcCluster(4, 3, 1);
    RunAcross(*c,
              {{300, 1, Action::kFail},
               {500, 1, Action::kReplace},
               {505, 1, Action::kDown},
               {700, 1, Action::kUp},
               {705, 1, Action::kFail},
               {900, 1, Action::kReplace}},
              220 + k);
  }
}

// Written: 8 whole extents. The replacement copies the pieces of those it
// holds and nothing else, each at the repair rate: 64 KiB at 6.4 MB/s is
// 10.24 ms a piece. Its states go down, rebuilding, healthy.
TEST(ClusterRebuildTest, ARebuildCopiesWhatWasWrittenAtTheRepairRate) {
  auto c = testing::MakeSmallCluster(4, 2, 0);
  std::vector<std::byte> data(8 * kChunk, std::byte{0x5c});
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, data.size(), data.data()}), Status::kOk);
  std::uint64_t held = 0;
  for (std::uint64_t e = 0; e < 8; ++e) {
    for (std::uint32_t i = 0; i < 2; ++i) held += c->target->placement().Locate(e, i).node == 1;
  }
  ASSERT_GT(held, 0u);
  std::vector<std::pair<NodeState, Nanos>> seen;
  c->target->SetStateListener([&](std::uint32_t n) {
    const NodeState s = c->target->node_state(n);
    if (n == 1 && (seen.empty() || seen.back().first != s)) seen.emplace_back(s, c->e.Now());
  });
  c->target->SetRepairRate(6'400'000);
  c->target->SetNodeDown(1, true);
  Blank(*c, 1);
  c->e.Run();
  c->target->ReplaceNode(1);
  c->e.Run();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, NodeState::kDown);
  EXPECT_EQ(seen[1].first, NodeState::kRebuilding);
  EXPECT_EQ(seen[2].first, NodeState::kHealthy);
  EXPECT_EQ(c->target->resync_stats().rebuilt_pieces, held);
  EXPECT_EQ(c->target->resync_stats().rebuilt_bytes, held * kChunk);
  // Each piece's window starts 10.24 ms after the one before: the last
  // ends once its copy is done, a little after (held - 1) x 10.24 ms.
  const double paced_ms = 10.24 * static_cast<double>(held - 1);
  const double took_ms = static_cast<double>(seen[2].second - seen[1].second) / 1e6;
  EXPECT_GE(took_ms, paced_ms);
  EXPECT_LT(took_ms, paced_ms + 1.0);
  EXPECT_EQ(testing::ExtentsWithDifferentCopies(*c, 8), 0);

  // Unthrottled, the same rebuild takes the devices' and links' time only.
  auto u = testing::MakeSmallCluster(4, 2, 0);
  ASSERT_EQ(Do(*u, 0, IoRequest{IoOp::kWrite, 0, 0, data.size(), data.data()}), Status::kOk);
  u->target->SetNodeDown(1, true);
  u->e.Run();
  const Nanos start = u->e.Now();
  u->target->ReplaceNode(1);
  u->e.Run();
  EXPECT_LT(static_cast<double>(u->e.Now() - start) / 1e6, 2.0 * static_cast<double>(held));
  EXPECT_EQ(u->target->resync_stats().rebuilt_pieces, held);
}

// A piece of two 1 MiB windows: the node goes down and comes back while
// its resync waits between them (throttled), and a write in between misses
// it. The piece starts over, so its copy ends with that write, not with
// the first window's bytes from before it.
TEST(ClusterRebuildTest, APieceCopiedAcrossADownAndBackStartsOver) {
  constexpr std::uint64_t kExtent = 2 * kMiB;
  auto c = testing::MakeSmallCluster(2, 2, 0, "25gbe-rdma", kExtent);
  std::vector<std::byte> a(kExtent, std::byte{0xaa}), b(kExtent, std::byte{0xbb});
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, kExtent, a.data()}), Status::kOk);
  c->target->SetNodeDown(1, true);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, kExtent, b.data()}), Status::kOk);
  // 1 MiB at 100 MB/s: a window every 10.5 ms.
  c->target->SetRepairRate(100'000'000);
  c->target->SetNodeDown(1, false);
  const Nanos start = c->e.Now();
  c->e.RunUntil(start + 5 * kMilli);  // the first window copied, the second waits
  ASSERT_EQ(c->target->resync_stats().bytes, kMiB);
  c->target->SetNodeDown(1, true);
  std::vector<std::byte> fresh(4096, std::byte{0xcc});
  Status st = Status::kShutdown;
  c->target->ClientView(0).Submit(IoRequest{IoOp::kWrite, 0, 0, 4096, fresh.data()},
                                  [&](Status s) { st = s; });
  c->e.RunUntil(start + 8 * kMilli);
  ASSERT_EQ(st, Status::kOk);
  c->target->SetNodeDown(1, false);  // before the second window is due
  c->e.Run();
  EXPECT_EQ(c->target->node_state(1), NodeState::kHealthy);
  const ClusterPlacement& p = c->target->placement();
  const auto on1 = p.Locate(0, 0).node == 1 ? p.Locate(0, 0) : p.Locate(0, 1);
  ASSERT_EQ(on1.node, 1u);
  EXPECT_EQ(testing::ReadDisk(*c, 1, on1.offset, 4096), fresh);
  EXPECT_EQ(testing::ReadDisk(*c, 1, on1.offset + kMiB, 4096),
            std::vector<std::byte>(4096, std::byte{0xbb}));
}

// A node back after being absent resyncs what it missed: its states go
// down, resyncing, healthy.
TEST(ClusterRebuildTest, ANodeBackReportsItsResync) {
  auto c = testing::MakeSmallCluster(2, 2, 0);
  std::vector<NodeState> seen;
  c->target->SetStateListener([&](std::uint32_t n) {
    const NodeState s = c->target->node_state(n);
    if (n == 1 && (seen.empty() || seen.back() != s)) seen.push_back(s);
  });
  std::vector<std::byte> a(4096, std::byte{0xaa});
  c->target->SetNodeDown(1, true);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, 4096, a.data()}), Status::kOk);
  c->target->SetNodeDown(1, false);
  c->e.Run();
  EXPECT_EQ(seen,
            (std::vector<NodeState>{NodeState::kDown, NodeState::kResyncing, NodeState::kHealthy}));
  EXPECT_EQ(c->target->resync_stats().rebuilt_pieces, 0u);
  EXPECT_EQ(c->target->resync_stats().pieces, 1u);
}

}  // namespace
}  // namespace tierlab
