// BlockDevice::QueryAllocation: the contract's normalisation (whole blocks,
// merged neighbours, prefixes, bad queries), the RAM device's holes, and the
// mapping targets (linear, stripe, the single-child targets) against per-block answers of their
// leaves. The safety property throughout: a block reported as a hole reads
// back as zeros.

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/SyncIo.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/FaultTarget.h"
#include "tiering/targets/FuaFlushTarget.h"
#include "tiering/targets/LinearTarget.h"
#include "tiering/targets/SliceTarget.h"
#include "tiering/targets/StripeTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;

// A device whose AllocationImpl returns a scripted answer, to test what
// QueryAllocation makes of it.
class ScriptedDevice final : public BlockDevice {
 public:
  ScriptedDevice(Engine& e, std::uint64_t size, std::uint32_t bs, AllocationMap answer)
      : BlockDevice(e, "scripted"), size_(size), bs_(bs), answer_(std::move(answer)) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return bs_; }
  std::string Kind() const override { return "scripted"; }

 protected:
  void SubmitImpl(const IoRequest&, IoCallback done) override {
    FinishAsync(std::move(done), Status::kOk);
  }
  void AllocationImpl(std::uint64_t, std::uint64_t, std::size_t,
                      AllocationMap& out) const override {
    out = answer_;
  }

 private:
  std::uint64_t size_;
  std::uint32_t bs_;
  AllocationMap answer_;
};

// A device that keeps the default answer.
class PlainDevice final : public BlockDevice {
 public:
  PlainDevice(Engine& e, std::uint64_t size) : BlockDevice(e, "plain"), size_(size) {}
  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return 512; }
  std::string Kind() const override { return "plain"; }

 protected:
  void SubmitImpl(const IoRequest&, IoCallback done) override {
    FinishAsync(std::move(done), Status::kOk);
  }

 private:
  std::uint64_t size_;
};

using testing::SubmitAndRun;

void Fill(SimEngine& e, BlockDevice& d, std::uint64_t offset, std::uint64_t length,
          std::uint8_t value = 0xab) {
  std::vector<std::byte> buf(length, std::byte{value});
  ASSERT_EQ(SubmitAndRun(e, d, IoOp::kWrite, offset, length, buf.data()), Status::kOk);
}

// One bool per block of [offset, offset + length): hole?
std::vector<bool> Expand(const AllocationMap& map, std::uint64_t bs) {
  std::vector<bool> v;
  for (const AllocationExtent& e : map) {
    EXPECT_EQ(e.length % bs, 0u);
    v.insert(v.end(), e.length / bs, e.hole);
  }
  return v;
}

AllocationMap Query(const BlockDevice& d, std::uint64_t offset, std::uint64_t length,
                    std::size_t max_extents = 1u << 20) {
  AllocationMap m;
  EXPECT_EQ(d.QueryAllocation(offset, length, max_extents, &m), Status::kOk);
  return m;
}

void ExpectWellFormed(const AllocationMap& m, std::uint64_t length, std::uint64_t bs,
                      std::size_t max_extents) {
  ASSERT_FALSE(m.empty());
  EXPECT_LE(m.size(), max_extents);
  EXPECT_LE(CoveredBytes(m), length);
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_GT(m[i].length, 0u);
    EXPECT_EQ(m[i].length % bs, 0u);
    if (i > 0) {
      EXPECT_NE(m[i].hole, m[i - 1].hole) << "neighbours not merged at " << i;
    }
  }
}

TEST(AllocationTest, DefaultIsAllData) {
  SimEngine e;
  PlainDevice d(e, 1 * kMiB);
  const AllocationMap m = Query(d, 4096, 64 * kKiB);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].length, 64 * kKiB);
  EXPECT_FALSE(m[0].hole);
}

TEST(AllocationTest, BadQueriesAreInvalidAndLeaveTheAnswerAlone) {
  SimEngine e;
  PlainDevice d(e, 1 * kMiB);
  AllocationMap m{{123, true}};
  EXPECT_EQ(d.QueryAllocation(0, 0, 8, &m), Status::kInvalid);              // empty
  EXPECT_EQ(d.QueryAllocation(100, 512, 8, &m), Status::kInvalid);          // misaligned
  EXPECT_EQ(d.QueryAllocation(0, 1000, 8, &m), Status::kInvalid);           // misaligned length
  EXPECT_EQ(d.QueryAllocation(1 * kMiB, 512, 8, &m), Status::kInvalid);     // past the end
  EXPECT_EQ(d.QueryAllocation(kMiB - 512, 1024, 8, &m), Status::kInvalid);  // across it
  EXPECT_EQ(d.QueryAllocation(0, 512, 0, &m), Status::kInvalid);            // no room
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].length, 123u);
}

TEST(AllocationTest, PartialBlocksOfAHoleBecomeDataAndNeighboursMerge) {
  SimEngine e;
  // Blocks of 4 KiB: data 1000 B, hole to 10000 (partial blocks both ends),
  // hole again (merges), data, then a hole covering less than a block.
  ScriptedDevice d(e, 1 * kMiB, 4096,
                   {{1000, false}, {9000, true}, {6384, true}, {4096, false}, {3000, true}});
  const AllocationMap m = Query(d, 0, 64 * kKiB);
  ExpectWellFormed(m, 64 * kKiB, 4096, 1u << 20);
  // Bytes [1000, 16384) are hole: whole blocks 1..3 ([4096, 16384)).
  // [16384, 20480) data; [20480, 23480) hole but partial: data, and the
  // answer (a prefix) ends rounded up to the block, 24576.
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].length, 4096u);
  EXPECT_FALSE(m[0].hole);
  EXPECT_EQ(m[1].length, 3 * 4096u);
  EXPECT_TRUE(m[1].hole);
  EXPECT_EQ(m[2].length, 2 * 4096u);
  EXPECT_FALSE(m[2].hole);
}

TEST(AllocationTest, AnswersLongerThanTheQueryAreCutAndEmptyOnesAreData) {
  SimEngine e;
  ScriptedDevice longer(e, 1 * kMiB, 512, {{1 * kMiB, true}});
  AllocationMap m = Query(longer, 0, 8 * kKiB);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].length, 8 * kKiB);
  EXPECT_TRUE(m[0].hole);
  ScriptedDevice empty(e, 1 * kMiB, 512, {});
  m = Query(empty, 0, 8 * kKiB);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].length, 8 * kKiB);
  EXPECT_FALSE(m[0].hole);
}

TEST(AllocationTest, MaxExtentsGivesAPrefix) {
  SimEngine e;
  ScriptedDevice d(e, 1 * kMiB, 512,
                   {{512, false}, {512, true}, {512, false}, {512, true}, {512, false}});
  const AllocationMap m = Query(d, 0, 4 * kKiB, 3);
  ExpectWellFormed(m, 4 * kKiB, 512, 3);
  EXPECT_EQ(CoveredBytes(m), 3 * 512u);
}

TEST(AllocationTest, RamDeviceReportsPagesNeverWrittenAsHoles) {
  SimEngine e;
  RamDevice d(e, "ram", 1 * kMiB, 512);
  EXPECT_EQ(Expand(Query(d, 0, 1 * kMiB), 512), std::vector<bool>(2048, true));
  Fill(e, d, 8 * kKiB, 512);  // page 2 becomes data (4 KiB pages)
  Fill(e, d, 64 * kKiB, 8 * kKiB);
  std::vector<bool> want(2048, true);
  for (int b = 16; b < 24; ++b) want[b] = false;    // page 2: [8 KiB, 12 KiB)
  for (int b = 128; b < 144; ++b) want[b] = false;  // [64 KiB, 72 KiB)
  EXPECT_EQ(Expand(Query(d, 0, 1 * kMiB), 512), want);
  // A whole-page discard makes a hole again; a partial one leaves data.
  ASSERT_EQ(SubmitAndRun(e, d, IoOp::kDiscard, 64 * kKiB, 4 * kKiB), Status::kOk);
  ASSERT_EQ(SubmitAndRun(e, d, IoOp::kDiscard, 8 * kKiB, 512), Status::kOk);
  for (int b = 128; b < 136; ++b) want[b] = true;
  EXPECT_EQ(Expand(Query(d, 0, 1 * kMiB), 512), want);
  // A query inside one page, and one starting mid-page.
  EXPECT_EQ(Expand(Query(d, 9 * kKiB, 1 * kKiB), 512), std::vector<bool>(2, false));
  EXPECT_EQ(Expand(Query(d, 70 * kKiB, 4 * kKiB), 512),
            (std::vector<bool>{false, false, false, false, true, true, true, true}));
}

TEST(AllocationTest, RamDeviceScansResidentPagesForLargeRanges) {
  SimEngine e;
  RamDevice d(e, "ram", 256 * kMiB, 4096);
  Fill(e, d, 200 * kMiB, 4096);
  Fill(e, d, 3 * kMiB, 4096);
  // 65536 pages in range, 2 resident: the other lookup path, same answer.
  const AllocationMap m = Query(d, 0, 256 * kMiB);
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].length, 3 * kMiB);
  EXPECT_TRUE(m[0].hole);
  EXPECT_EQ(m[1].length, 4096u);
  EXPECT_FALSE(m[1].hole);
  EXPECT_EQ(m[3].length, 4096u);
  EXPECT_FALSE(m[3].hole);
  EXPECT_EQ(CoveredBytes(m), 256 * kMiB);
}

// Random writes and discards on `top` (over RAM leaves), then: every block
// the top reports as a hole reads as zeros, and the answer matches
// `expected(block)`, the leaves' own per-block answer through the mapping.
template <typename Expected>
void CheckStack(SimEngine& e, BlockDevice& top, std::uint64_t seed, Expected expected) {
  const std::uint64_t bs = top.BlockSize();
  const std::uint64_t blocks = top.Size() / bs;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t len = (1 + rng() % 64) * bs;
    const std::uint64_t off = rng() % (blocks - len / bs) * bs;
    if (rng() % 4 == 0) {
      ASSERT_EQ(SubmitAndRun(e, top, IoOp::kDiscard, off, len), Status::kOk);
    } else {
      Fill(e, top, off, len, static_cast<std::uint8_t>(1 + rng() % 255));
    }
  }
  const std::vector<bool> got = Expand(Query(top, 0, top.Size()), bs);
  ASSERT_EQ(got.size(), blocks);
  std::vector<std::byte> buf(bs);
  std::uint64_t holes = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    ASSERT_EQ(got[b], expected(b)) << "block " << b;
    if (!got[b]) continue;
    ++holes;
    ASSERT_EQ(SubmitAndRun(e, top, IoOp::kRead, b * bs, bs, buf.data()), Status::kOk);
    ASSERT_EQ(std::count(buf.begin(), buf.end(), std::byte{0}), static_cast<long>(bs))
        << "hole at block " << b << " holds data";
  }
  EXPECT_GT(holes, 0u);
  EXPECT_LT(holes, blocks);
  // One extent asked for (NBD's REQ_ONE): the whole first extent, wherever
  // the query starts.
  for (std::uint64_t b = 0; b < blocks; b += 37) {
    const AllocationMap one = Query(top, b * bs, top.Size() - b * bs, 1);
    const AllocationMap full = Query(top, b * bs, top.Size() - b * bs);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].length, full[0].length) << "from block " << b;
    EXPECT_EQ(one[0].hole, full[0].hole);
  }
  // Prefix answers with few extents chain up to the same map.
  std::vector<bool> chained;
  for (std::uint64_t off = 0; off < top.Size();) {
    const AllocationMap m = Query(top, off, top.Size() - off, 2);
    ExpectWellFormed(m, top.Size() - off, bs, 2);
    const std::vector<bool> part = Expand(m, bs);
    chained.insert(chained.end(), part.begin(), part.end());
    off += CoveredBytes(m);
  }
  ASSERT_EQ(chained.size(), got.size());
  for (std::size_t b = 0; b < got.size(); ++b) ASSERT_EQ(chained[b], got[b]) << "block " << b;
}

bool LeafHole(const BlockDevice& leaf, std::uint64_t offset, std::uint64_t bs) {
  const AllocationMap m = Query(leaf, offset, bs, 1);
  return m.size() == 1 && m[0].hole;
}

TEST(AllocationTest, LinearTargetMapsItsChildren) {
  SimEngine e;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  kids.push_back(std::make_unique<RamDevice>(e, "a", 1 * kMiB, 4096));
  kids.push_back(std::make_unique<RamDevice>(e, "b", 2 * kMiB, 4096));
  kids.push_back(std::make_unique<RamDevice>(e, "c", 512 * kKiB, 4096));
  std::vector<BlockDevice*> raw{kids[0].get(), kids[1].get(), kids[2].get()};
  LinearTarget lin(e, "lin", std::move(kids));
  CheckStack(e, lin, 7, [&](std::uint64_t b) {
    std::uint64_t off = b * 4096;
    for (BlockDevice* k : raw) {
      if (off < k->Size()) return LeafHole(*k, off, 4096);
      off -= k->Size();
    }
    return false;
  });
}

TEST(AllocationTest, StripeTargetInterleavesItsChildren) {
  SimEngine e;
  constexpr std::uint64_t kChunk = 16 * kKiB;
  std::vector<std::unique_ptr<BlockDevice>> kids;
  for (const char* name : {"s0", "s1", "s2"}) {
    kids.push_back(std::make_unique<RamDevice>(e, name, 1 * kMiB, 4096));
  }
  std::vector<BlockDevice*> raw{kids[0].get(), kids[1].get(), kids[2].get()};
  StripeTarget st(e, "stripe", std::move(kids), kChunk);
  CheckStack(e, st, 11, [&](std::uint64_t b) {
    const std::uint64_t off = b * 4096;
    const std::uint64_t chunk = off / kChunk;
    return LeafHole(*raw[chunk % 3], (chunk / 3) * kChunk + off % kChunk, 4096);
  });
}

TEST(AllocationTest, SliceAndFuaFlushPassTheChildsAnswer) {
  SimEngine e;
  auto ram = std::make_unique<RamDevice>(e, "ram", 2 * kMiB, 4096);
  BlockDevice* leaf = ram.get();
  auto slice = std::make_unique<SliceTarget>(e, "slice", std::move(ram), 1 * kMiB + 64 * kKiB);
  FuaFlushTarget top(e, "fua", std::move(slice));
  CheckStack(e, top, 13, [&](std::uint64_t b) { return LeafHole(*leaf, b * 4096, 4096); });
}

// Delay and fault targets hold or break requests but keep the child's
// offsets, so they answer as the child does (ForwardingTarget), not "all data".
TEST(AllocationTest, DelayAndFaultPassTheChildsAnswer) {
  SimEngine e;
  auto ram = std::make_unique<RamDevice>(e, "ram", 1 * kMiB, 4096);
  BlockDevice* leaf = ram.get();
  auto delay =
      std::make_unique<DelayTarget>(e, "delay", std::move(ram), DelayConfig{1000, 2000, 0});
  FaultTarget top(e, "fault", std::move(delay));
  CheckStack(e, top, 17, [&](std::uint64_t b) { return LeafHole(*leaf, b * 4096, 4096); });
}

}  // namespace
}  // namespace tierlab
