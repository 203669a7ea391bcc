// Erasure coding across nodes: stripes of k data and m parity chunks on
// distinct nodes; a partial write costs read-modify-write (RAID-5 2 reads +
// 2 writes, RAID-6 3 + 3), a full-stripe write no reads; parity always
// matches the data, whatever the clients write at once; a lost chunk is an
// error, never wrong data.

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <memory>

#include "tests/support/VerifyHarness.h"
#include "tests/tiering/targets/ClusterFixture.h"

namespace tierlab {
namespace {

using testing::Cluster;
using testing::Do;
using testing::kChunk;
using testing::kKiB;
using testing::kMiB;
using testing::MakeEcCluster;
using testing::StripesWithWrongParity;
using testing::Sum;

// The volume is the stripes' data: k chunks of every k + m placed.
TEST(ClusterErasureTest, TheVolumeHoldsKOfEveryKPlusMChunks) {
  auto c = MakeEcCluster(4, 3, 1);
  const std::uint64_t stripes = c->target->placement().VolumeBytes(16 * kMiB) / kChunk;
  EXPECT_EQ(stripes, 16 * kMiB / (4 * kChunk) * 4);
  EXPECT_EQ(c->target->Size(), stripes * 3 * kChunk);
  EXPECT_EQ(c->target->data_chunks(), 3u);
}

// Random reads, writes (across chunks and stripes, full stripes among them),
// flushes and discards from every client, 16 in flight: every read is
// right, and afterwards every stripe's parity is its data's code.
TEST(ClusterErasureTest, DataCrossesUntouchedAndParityMatchesTheData) {
  const std::array<std::array<std::uint32_t, 3>, 3> shapes{{{4, 3, 1}, {6, 4, 2}, {5, 2, 3}}};
  for (const auto& [nodes, k, m] : shapes) {
    auto c = MakeEcCluster(nodes, k, m);
    const std::uint64_t region = 48 * k * kChunk;  // 48 stripes
    for (std::size_t client = 0; client < nodes; client += 2) {
      testing::VerifyOptions o;
      o.ops = 500;
      o.seed = 70 + client + 10 * m;
      o.max_in_flight = 16;
      o.max_length = 2 * k * kChunk + 8 * kKiB;  // up to two stripes and more
      o.region = region;
      auto r = testing::RunVerify(c->e, c->target->ClientView(client), o);
      EXPECT_TRUE(r.ok()) << k << "+" << m << ": " << r.first_problem;
      EXPECT_GT(r.writes, 150u);
    }
    EXPECT_GT(c->target->stripe_writes().full_stripe, 0u) << k << "+" << m;
    EXPECT_GT(c->target->stripe_writes().read_modify_write, 100u) << k << "+" << m;
    EXPECT_EQ(StripesWithWrongParity(*c, 48), 0) << k << "+" << m;
  }
}

// Writes 4 KiB at scattered offsets inside chunks from client `client`,
// QD 4, timing only.
void DriveSmallWrites(Cluster& c, std::size_t client, int count) {
  BlockDevice& v = c.target->ClientView(client);
  int issued = 0;
  std::function<void()> issue = [&] {
    if (issued == count) return;
    const std::uint64_t off = (static_cast<std::uint64_t>(issued) * 7919 * 4096) % v.Size();
    ++issued;
    v.Submit(IoRequest{IoOp::kWrite, 0, off, 4096, nullptr}, [&](Status st) {
      ASSERT_EQ(st, Status::kOk);
      issue();
    });
  };
  for (int i = 0; i < 4; ++i) issue();
  c.e.Run();
}

// A 4 KiB write inside a chunk: RAID-5 reads the old data and parity and
// writes both (2 + 2), RAID-6 3 + 3; every I/O is 4 KiB.
TEST(ClusterErasureTest, APartialStripeWriteIsAReadModifyWrite) {
  for (const std::uint32_t m : {1u, 2u}) {
    auto c = MakeEcCluster(3 + 3 * m, 3 + m - 1, m);  // 3+1 on 6 nodes, 4+2 on 9
    DriveSmallWrites(*c, 0, 300);
    EXPECT_EQ(Sum(*c, &DeviceStats::read_ops), 300u * (1 + m)) << "m " << m;
    EXPECT_EQ(Sum(*c, &DeviceStats::write_ops), 300u * (1 + m)) << "m " << m;
    EXPECT_EQ(Sum(*c, &DeviceStats::write_bytes), 300u * (1 + m) * 4096) << "m " << m;
    EXPECT_EQ(c->target->stripe_writes().read_modify_write, 300u);
    EXPECT_EQ(c->target->stripe_writes().full_stripe, 0u);
  }
}

// A write of a whole stripe computes parity from what it writes: k + m
// chunk writes, no reads.
TEST(ClusterErasureTest, AFullStripeWriteReadsNothing) {
  auto c = MakeEcCluster(4, 3, 1);
  std::vector<std::byte> data(3 * 2 * kChunk);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 31 + 7);
  ASSERT_EQ(Do(*c, 1, IoRequest{IoOp::kWrite, 0, 3 * kChunk, data.size(), data.data()}),
            Status::kOk);  // stripes 1 and 2
  EXPECT_EQ(Sum(*c, &DeviceStats::read_ops), 0u);
  EXPECT_EQ(Sum(*c, &DeviceStats::write_ops), 2u * 4);
  EXPECT_EQ(Sum(*c, &DeviceStats::write_bytes), 2u * 4 * kChunk);
  EXPECT_EQ(c->target->stripe_writes().full_stripe, 2u);
  EXPECT_EQ(StripesWithWrongParity(*c, 3), 0);
  std::vector<std::byte> back(data.size());
  ASSERT_EQ(Do(*c, 3, IoRequest{IoOp::kRead, 0, 3 * kChunk, back.size(), back.data()}),
            Status::kOk);
  EXPECT_EQ(back, data);
}

// 8 KiB across a chunk boundary touches columns that do not meet (the last
// 4 KiB of one chunk, the first of the next): two 4 KiB updates, never a
// chunk's worth of parity.
TEST(ClusterErasureTest, ASmallWriteAcrossAChunkBoundaryIsTwoSmallUpdates) {
  auto c = MakeEcCluster(4, 3, 1);
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, kChunk - 4096, 8192, nullptr}), Status::kOk);
  EXPECT_EQ(Sum(*c, &DeviceStats::read_ops), 4u);
  EXPECT_EQ(Sum(*c, &DeviceStats::read_bytes), 4u * 4096);
  EXPECT_EQ(Sum(*c, &DeviceStats::write_bytes), 4u * 4096);
  EXPECT_EQ(c->target->stripe_writes().read_modify_write, 2u);
  // The second half of chunk 1 and the first half of chunk 2 and 4 KiB
  // more: the columns meet, one update whose parity covers the chunk.
  ASSERT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, 3 * kChunk / 2, kChunk + 4096, nullptr}),
            Status::kOk);
  EXPECT_EQ(c->target->stripe_writes().read_modify_write, 3u);
  EXPECT_EQ(Sum(*c, &DeviceStats::read_bytes), 4u * 4096 + (kChunk + 4096) + kChunk);
}

// A read goes to the node of its data chunk, remote or local, and nowhere
// else: reads are not amplified.
TEST(ClusterErasureTest, AReadGoesToItsDataChunksNode) {
  auto c = MakeEcCluster(5, 3, 1);
  const ClusterPlacement& p = c->target->placement();
  std::vector<std::uint64_t> want(5, 0);
  for (std::uint64_t i = 0; i < 200; ++i) {
    const std::uint64_t off = (i * 7919 * 4096) % c->target->Size();
    ASSERT_EQ(Do(*c, 2, IoRequest{IoOp::kRead, 0, off, 4096, nullptr}), Status::kOk);
    ++want[p.Locate(off / (3 * kChunk), static_cast<std::uint32_t>(off % (3 * kChunk) / kChunk))
               .node];
  }
  for (std::uint32_t n = 0; n < 5; ++n) {
    EXPECT_EQ(c->disks[n]->stats().read_ops, want[n]) << "node " << n;
  }
}

// Two clients update different chunks of one stripe at the same moment, at
// the same columns: both read-modify-writes change the same parity bytes,
// so without the stripe's lock the second would write parity computed
// from what it read before the first wrote, and lose the first's change.
TEST(ClusterErasureTest, ConcurrentUpdatesOfOneStripeKeepItsParity) {
  auto c = MakeEcCluster(4, 3, 1);
  std::vector<std::byte> a(4096, std::byte{0x5a}), b(4096, std::byte{0xc3});
  int done = 0;
  c->target->ClientView(0).Submit(IoRequest{IoOp::kWrite, 0, 8192, 4096, a.data()},
                                  [&](Status st) { done += st == Status::kOk; });
  c->target->ClientView(1).Submit(IoRequest{IoOp::kWrite, 0, kChunk + 8192, 4096, b.data()},
                                  [&](Status st) { done += st == Status::kOk; });
  c->e.Run();
  ASSERT_EQ(done, 2);
  EXPECT_EQ(StripesWithWrongParity(*c, 1), 0);
}

// Discard completes not-supported and touches nothing: a dropped chunk
// could read back other bytes than its parity was made from.
TEST(ClusterErasureTest, DiscardIsNotSupported) {
  auto c = MakeEcCluster(4, 3, 1);
  EXPECT_EQ(Do(*c, 0, IoRequest{IoOp::kDiscard, 0, 0, 3 * kChunk, nullptr}), Status::kNotSupported);
  EXPECT_EQ(Sum(*c, &DeviceStats::discard_ops), 0u);
}

// A node whose disk fails: a read of its chunk fails (no degraded read
// yet), and a write whose old data or parity cannot be read writes
// nothing at all, so no stripe is left with parity that disagrees.
TEST(ClusterErasureTest, ALostChunkIsAnErrorNeverWrongData) {
  auto c = MakeEcCluster(4, 3, 1);
  const ClusterPlacement& p = c->target->placement();
  const std::uint32_t data_node = p.Locate(0, 0).node;
  const std::uint32_t parity_node = p.Locate(0, 3).node;
  c->faults[data_node]->FailAll(true);
  std::vector<std::byte> buf(4096);
  EXPECT_EQ(Do(*c, 0, IoRequest{IoOp::kRead, 0, 0, 4096, buf.data()}), Status::kIoError);
  c->faults[data_node]->FailAll(false);
  c->faults[parity_node]->FailAll(true);
  std::vector<std::byte> fresh(4096, std::byte{0x77});
  EXPECT_EQ(Do(*c, 0, IoRequest{IoOp::kWrite, 0, kChunk, 4096, fresh.data()}), Status::kIoError);
  EXPECT_EQ(Sum(*c, &DeviceStats::write_ops), 0u);
  c->faults[parity_node]->FailAll(false);
  EXPECT_EQ(StripesWithWrongParity(*c, 1), 0);
}

}  // namespace
}  // namespace tierlab
