// A cluster with nodes down: mirror n = 2 and erasure coding k + 1 (and
// k + 2 with two down) lose no acknowledged write and return no stale data
// across a node going down mid-run and coming back; the node resyncs what
// it missed; beyond the protection, reads and writes fail rather than
// return wrong data.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "tests/support/VerifyHarness.h"
#include "tests/tiering/targets/ClusterFixture.h"

namespace tierlab {
namespace {

using testing::Cluster;
using testing::Do;
using testing::kChunk;
using testing::kKiB;

constexpr std::uint64_t kRegionUnits = 64;

// A node going down (or coming back) after `at` completions of a run.
struct Event {
  std::uint64_t at;
  std::uint32_t node;
  bool down;
};

// The verification harness from clients 0 and 1, each run with `events`
// (every node back by its end): no error, no mismatch; afterwards nothing
// is stale and every copy or parity agrees with the data.
void RunAcrossFailures(Cluster& c, const std::vector<Event>& events) {
  const std::uint64_t unit = c.k == 0 ? kChunk : c.k * kChunk;
  for (std::uint32_t client = 0; client < 2; ++client) {
    testing::VerifyOptions o;
    o.ops = 1500;
    o.seed = 90 + client + 7 * c.k + 1000 * testing::SoakSeedBase();
    o.max_in_flight = 16;
    o.max_length = 2 * unit + 8 * kKiB;
    o.region = kRegionUnits * unit;
    o.on_complete = [&](std::uint64_t done) {
      for (const Event& e : events) {
        if (e.at == done) c.target->SetNodeDown(e.node, e.down);
      }
    };
    const testing::VerifyResult r = testing::RunVerify(c.e, c.target->ClientView(client), o);
    EXPECT_TRUE(r.ok()) << "client " << client << ": " << r.first_problem;
    EXPECT_GT(r.writes, 400u);
    EXPECT_EQ(c.target->stale_pieces(), 0u) << "client " << client;
  }
  EXPECT_GT(c.target->resync_stats().pieces, 0u);
  EXPECT_EQ(c.target->resync_stats().bytes % kChunk, 0u);
  if (c.k == 0) {
    EXPECT_EQ(testing::ExtentsWithDifferentCopies(c, kRegionUnits), 0);
  } else {
    EXPECT_EQ(testing::StripesWithWrongParity(c, kRegionUnits), 0);
  }
}

// Down after 300 completions, back after 900.
void RunAcrossAFailure(Cluster& c, std::uint32_t node) {
  RunAcrossFailures(c, {{300, node, true}, {900, node, false}});
}

TEST(ClusterFailuresTest, AMirrorLosesNothingAcrossANodeDownAndResyncs) {
  auto c = testing::MakeSmallCluster(4, 2, 0);
  RunAcrossAFailure(*c, 1);  // a node whose copies client 1 reads locally
}

TEST(ClusterFailuresTest, ErasureCodingLosesNothingAcrossANodeDownAndResyncs) {
  auto c = testing::MakeEcCluster(4, 3, 1);
  RunAcrossAFailure(*c, 2);
  EXPECT_GT(c->target->stripe_writes().degraded, 0u);
}

TEST(ClusterFailuresTest, DoubleParityLosesNothingWithTwoNodesDown) {
  auto c = testing::MakeEcCluster(6, 4, 2);
  RunAcrossFailures(*c, {{300, 0, true}, {300, 3, true}, {900, 0, false}, {900, 3, false}});
}

// Down again in the middle of its resync: what was resynced stays
// current, and the rest is resynced later.
TEST(ClusterFailuresTest, ANodeDownAgainDuringItsResyncLosesNothing) {
  for (const std::uint32_t k : {0u, 3u}) {
    auto c = k == 0 ? testing::MakeSmallCluster(4, 2, 0) : testing::MakeEcCluster(4, 3, 1);
    RunAcrossFailures(*c, {{200, 1, true}, {600, 1, false}, {610, 1, true}, {900, 1, false}});
  }
}

// A second node down before the first has resynced is beyond the
// protection for what the first missed: those reads and writes fail, but
// nothing read is ever wrong, before or after both are back.
TEST(ClusterFailuresTest, ASecondFailureDuringAResyncIsUnavailableNeverWrong) {
  for (const std::uint32_t k : {0u, 3u}) {
    auto c = k == 0 ? testing::MakeSmallCluster(4, 2, 0) : testing::MakeEcCluster(4, 3, 1);
    const std::uint64_t unit = k == 0 ? kChunk : k * kChunk;
    testing::VerifyOptions o;
    o.ops = 1500;
    o.seed = 120 + k + 1000 * testing::SoakSeedBase();
    o.max_in_flight = 16;
    o.max_length = 2 * unit;
    o.region = kRegionUnits * unit;
    o.on_complete = [&](std::uint64_t done) {
      if (done == 200) c->target->SetNodeDown(1, true);
      if (done == 600) {
        c->target->SetNodeDown(1, false);
        c->target->SetNodeDown(2, true);  // at once: node 1 has resynced nothing
      }
      if (done == 1000) c->target->SetNodeDown(2, false);
    };
    const testing::VerifyResult r = testing::RunVerify(c->e, c->target->ClientView(0), o);
    EXPECT_EQ(r.mismatches, 0u) << "k " << k << ": " << r.first_problem;
    EXPECT_GT(r.errors, 0u) << "k " << k;  // it did go beyond the protection
    EXPECT_GT(r.reads, 300u);
  }
}

// With a node down, a read of a chunk it holds reads the same columns from
// the k other chunks (3 reads of 4 KiB for 3 + 1) and decodes; a write to a
// chunk on it reads every readable chunk over its columns and writes the
// parity alone, leaving the chunk stale for its resync.
TEST(ClusterFailuresTest, DegradedReadsDecodeAndDegradedWritesRecomputeParity) {
  auto c = testing::MakeEcCluster(4, 3, 1);
  std::vector<std::byte> data(3 * kChunk);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 13 + 1);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, data.size(), data.data()}), Status::kOk);
  const std::uint32_t node1 = c->target->placement().Locate(0, 1).node;  // data chunk 1's
  c->target->SetNodeDown(node1, true);
  const std::uint64_t reads0 = testing::Sum(*c, &DeviceStats::read_ops);
  std::vector<std::byte> got(4096);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kRead, 0, kChunk + 8192, 4096, got.data()}), Status::kOk);
  EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + kChunk + 8192));
  EXPECT_EQ(testing::Sum(*c, &DeviceStats::read_ops) - reads0, 3u);

  std::vector<std::byte> fresh(4096, std::byte{0xee});
  const std::uint64_t writes0 = testing::Sum(*c, &DeviceStats::write_ops);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, kChunk + 8192, 4096, fresh.data()}), Status::kOk);
  EXPECT_EQ(testing::Sum(*c, &DeviceStats::read_ops) - reads0, 3u + 3u);
  EXPECT_EQ(testing::Sum(*c, &DeviceStats::write_ops) - writes0, 1u);  // the parity
  EXPECT_EQ(c->target->stripe_writes().degraded, 1u);
  EXPECT_EQ(c->target->stale_pieces(), 1u);
  ASSERT_EQ(Do(*c, 3, IoRequest{IoOp::kRead, 0, kChunk + 8192, 4096, got.data()}), Status::kOk);
  EXPECT_EQ(got, fresh);  // decoded from the new parity

  // Back: the chunk is resynced from the other three, and reads it again.
  c->target->SetNodeDown(node1, false);
  c->e.Run();
  EXPECT_EQ(c->target->stale_pieces(), 0u);
  EXPECT_EQ(testing::ReadDisk(*c, node1, c->target->placement().Locate(0, 1).offset + 8192, 4096),
            fresh);
  EXPECT_EQ(testing::StripesWithWrongParity(*c, 1), 0);
}

// A node back but not yet resynced: its stale copy is never read, even
// where the client would read its local copy.
TEST(ClusterFailuresTest, AStaleCopyIsNeverRead) {
  auto c = testing::MakeSmallCluster(2, 2, 0);
  std::vector<std::byte> a(4096, std::byte{0xaa}), b(4096, std::byte{0xbb});
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, 4096, a.data()}), Status::kOk);
  c->target->SetNodeDown(1, true);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, 4096, b.data()}), Status::kOk);
  EXPECT_EQ(c->target->stale_pieces(), 1u);
  c->target->SetNodeDown(1, false);  // the resync starts, but has not run
  std::vector<std::byte> got(4096);
  Status st = Status::kShutdown;
  c->target->ClientView(1).Submit(IoRequest{IoOp::kRead, 0, 0, 4096, got.data()},
                                  [&](Status s) { st = s; });
  c->e.Run();
  ASSERT_EQ(st, Status::kOk);
  EXPECT_EQ(got, b);
  EXPECT_EQ(c->target->stale_pieces(), 0u);
  EXPECT_EQ(testing::ExtentsWithDifferentCopies(*c, 1), 0);
}

// Beyond the protection: with both copies of an extent down, or two chunks
// of a 3 + 1 stripe, its reads and writes fail; nothing wrong is returned,
// and once the nodes are back the data written before is all there.
TEST(ClusterFailuresTest, BeyondItsProtectionDataIsUnavailableNeverWrong) {
  for (const std::uint32_t k : {0u, 3u}) {
    auto c = k == 0 ? testing::MakeSmallCluster(3, 2, 0) : testing::MakeEcCluster(4, 3, 1);
    const std::uint64_t bytes = 8 * (k == 0 ? kChunk : 3 * kChunk);
    std::vector<std::byte> data(bytes);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + 3);
    ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 0, bytes, data.data()}), Status::kOk);
    c->target->SetNodeDown(1, true);
    c->target->SetNodeDown(2, true);
    std::vector<std::byte> got(4096);
    int failed = 0, served = 0;
    for (std::uint64_t off = 0; off < bytes; off += 16 * kKiB) {
      const Status st = Do(*c, 0, IoRequest{IoOp::kRead, 0, off, 4096, got.data()});
      if (st == Status::kOk) {
        ++served;
        EXPECT_TRUE(std::equal(got.begin(), got.end(), data.begin() + off)) << off;
      } else {
        ++failed;
        EXPECT_EQ(st, Status::kIoError);
      }
    }
    EXPECT_GT(failed, 0) << "k " << k;
    EXPECT_GT(served, 0) << "k " << k;
    // A write to where nothing can hold it fails too.
    const std::uint64_t lost = [&] {
      for (std::uint64_t off = 0;; off += 16 * kKiB) {
        if (Do(*c, 0, IoRequest{IoOp::kRead, 0, off, 4096, got.data()}) != Status::kOk) return off;
      }
    }();
    std::vector<std::byte> fresh(4096, std::byte{0x42});
    EXPECT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, lost, 4096, fresh.data()}), Status::kIoError);
    c->target->SetNodeDown(1, false);
    c->target->SetNodeDown(2, false);
    c->e.Run();
    std::vector<std::byte> back(bytes);
    ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kRead, 0, 0, bytes, back.data()}), Status::kOk);
    EXPECT_EQ(back, data) << "k " << k;
  }
}

// A client on a node that is down runs on the next node up: its requests
// leave from that node's port, none from its own.
TEST(ClusterFailuresTest, AClientOnADownNodeRunsOnTheNextNodeUp) {
  auto c = testing::MakeSmallCluster(3, 2, 0);
  std::vector<std::byte> data(4 * kChunk, std::byte{0x3c});
  c->target->SetNodeDown(1, true);
  const NicModel& own = *c->target->node_ports(1)[0];
  const NicModel& next = *c->target->node_ports(2)[0];
  const std::uint64_t own_tx = own.tx().messages, next_tx = next.tx().messages;
  ASSERT_EQ(Do(*c, 1, IoRequest{IoOp::kWrite, 0, 0, data.size(), data.data()}), Status::kOk);
  std::vector<std::byte> got(data.size());
  ASSERT_EQ(Do(*c, 1, IoRequest{IoOp::kRead, 0, 0, got.size(), got.data()}), Status::kOk);
  EXPECT_EQ(got, data);
  EXPECT_EQ(own.tx().messages, own_tx);
  EXPECT_GT(next.tx().messages, next_tx);
}

// Noticed 5 ms after it goes down (SetFailureDetection): a write touching
// node 1's pieces right after waits until then and goes on degraded, one
// touching none does not wait, and once the failure is noticed nothing
// waits; what was written reads back.
TEST(ClusterFailuresTest, IoTouchingANodeNotYetNoticedDownWaitsUntilItIs) {
  auto c = testing::MakeSmallCluster(4, 2, 0);
  c->target->SetFailureDetection(5 * kMilli);
  std::uint64_t touches = ~0ull, spares = ~0ull;
  for (std::uint64_t e = 0; e < 16; ++e) {
    const bool on1 = c->target->PieceAt(e, 0).node == 1 || c->target->PieceAt(e, 1).node == 1;
    std::uint64_t& pick = on1 ? touches : spares;
    if (pick == ~0ull) pick = e;
  }
  ASSERT_NE(touches, ~0ull);
  ASSERT_NE(spares, ~0ull);
  // Each write's time to completion, filled in when it completes.
  std::vector<std::vector<std::byte>> buffers;
  const auto write_at = [&](std::uint64_t extent, std::byte fill) {
    buffers.emplace_back(4096, fill);
    auto took = std::make_shared<Nanos>(-1);
    const Nanos start = c->e.Now();
    c->target->ClientView(0).Submit(
        IoRequest{IoOp::kWrite, 0, extent * kChunk, 4096, buffers.back().data()},
        [&c, took, start](Status st) {
          EXPECT_EQ(st, Status::kOk);
          *took = c->e.Now() - start;
        });
    return took;
  };
  buffers.reserve(3);
  c->target->SetNodeDown(1, true);
  const auto waited = write_at(touches, std::byte{0x11});
  const auto elsewhere = write_at(spares, std::byte{0x22});
  c->e.Run();
  EXPECT_GE(*waited, 5 * kMilli);
  EXPECT_LT(*waited, 6 * kMilli);
  EXPECT_GE(*elsewhere, 0);
  EXPECT_LT(*elsewhere, kMilli);
  const auto noticed = write_at(touches, std::byte{0x33});
  c->e.Run();
  EXPECT_GE(*noticed, 0);
  EXPECT_LT(*noticed, kMilli);
  std::vector<std::byte> back(4096);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kRead, 0, touches * kChunk, back.size(), back.data()}),
            Status::kOk);
  EXPECT_EQ(back, std::vector<std::byte>(4096, std::byte{0x33}));
}

// With a client restart time, a down node's own client waits that long
// after the failure is noticed, then runs on the next node up, while the
// other clients go on at once; the node back sooner does not bring its
// client back sooner.
TEST(ClusterFailuresTest, ADownNodesClientWaitsForItsRestartElsewhere) {
  auto c = testing::MakeSmallCluster(4, 2, 0);
  c->target->SetFailureDetection(kMilli);
  c->target->SetClientRestart(4 * kMilli);
  std::vector<std::byte> buf(4096, std::byte{0x5a});
  // An extent with no piece on node 3, so only the restart holds its client.
  std::uint64_t away = ~0ull;
  for (std::uint64_t e = 0; e < 16 && away == ~0ull; ++e) {
    if (c->target->PieceAt(e, 0).node != 3 && c->target->PieceAt(e, 1).node != 3) away = e;
  }
  ASSERT_NE(away, ~0ull);
  // Each write's time to completion from client `client`, to that extent.
  const auto write_from = [&](std::size_t client) {
    auto took = std::make_shared<Nanos>(-1);
    const Nanos start = c->e.Now();
    c->target->ClientView(client).Submit(
        IoRequest{IoOp::kWrite, 0, away * kChunk, 4096, buf.data()}, [&c, took, start](Status st) {
          EXPECT_EQ(st, Status::kOk);
          *took = c->e.Now() - start;
        });
    return took;
  };
  c->target->SetNodeDown(3, true);
  EXPECT_EQ(c->target->ClientBackAt(3), 5 * kMilli);
  EXPECT_EQ(c->target->ClientBackAt(0), 0);
  const auto own = write_from(3);
  const auto other = write_from(0);
  c->e.Run();
  EXPECT_GE(*own, 5 * kMilli);  // noticed at 1 ms, restarted 4 ms later
  EXPECT_LT(*own, 6 * kMilli);
  EXPECT_GE(*other, 0);
  EXPECT_LT(*other, kMilli);
  // Restarted: it runs on the next node up, at once.
  const auto after = write_from(3);
  c->e.Run();
  EXPECT_LT(*after, kMilli);

  // Down again and back before its restart: its client stays gone until
  // the restart all the same (its VMs went down with the node).
  c->target->SetNodeDown(3, false);
  const Nanos down = c->e.Now();
  c->target->SetNodeDown(3, true);
  const auto held = write_from(3);
  c->e.RunUntil(down + 2 * kMilli);
  EXPECT_EQ(*held, -1);
  c->target->SetNodeDown(3, false);
  EXPECT_EQ(c->target->ClientBackAt(3), down + 5 * kMilli);
  const auto later = write_from(3);
  c->e.Run();
  EXPECT_GE(*held, 5 * kMilli);
  EXPECT_LT(*held, 6 * kMilli);
  EXPECT_GE(*later, 3 * kMilli);
  EXPECT_LT(*later, 4 * kMilli);

  // Only its storage out (a failed device): its host, and the client on
  // it, run on; no restart.
  c->target->SetNodeDown(3, true, false);
  EXPECT_EQ(c->target->ClientBackAt(3), 0);
  const auto kept = write_from(3);
  c->e.Run();
  EXPECT_GE(*kept, 0);
  EXPECT_LT(*kept, kMilli);
}

// The verification harness across a node down and back with its failure
// noticed 2 ms late: nothing lost, nothing stale read.
TEST(ClusterFailuresTest, NothingIsLostWhileAFailureGoesUnnoticed) {
  auto m = testing::MakeSmallCluster(4, 2, 0);
  m->target->SetFailureDetection(2 * kMilli);
  RunAcrossAFailure(*m, 1);
  auto ec = testing::MakeEcCluster(4, 3, 1);
  ec->target->SetFailureDetection(2 * kMilli);
  RunAcrossAFailure(*ec, 2);
}

}  // namespace
}  // namespace tierlab
