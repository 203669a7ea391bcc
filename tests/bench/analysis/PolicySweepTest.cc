#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bench/analysis/PolicySweep.h"
#include "bench/analysis/StackDistanceMrc.h"
#include "policies/CacheSimulator.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kLine = 4096;

TraceRecord Read(std::uint64_t line, std::uint32_t lines = 1) {
  return {0, IoOp::kRead, line * kLine, static_cast<std::uint32_t>(lines * kLine)};
}
TraceRecord Write(std::uint64_t line, std::uint32_t lines = 1) {
  return {0, IoOp::kWrite, line * kLine, static_cast<std::uint32_t>(lines * kLine)};
}

SweepTrace Load(const std::vector<TraceRecord>& records, bool object = false) {
  auto t = SweepTrace::FromRecords(records, {kLine, object}, "test");
  EXPECT_TRUE(t.ok());
  return std::move(*t);
}

SweepCounts Cell(const SweepTrace& t, const char* policy, std::uint64_t size,
                 SweepWriteMode writes = SweepWriteMode::kNone, const char* admission = nullptr) {
  auto spec = ParseReplacementSpec(policy);
  EXPECT_TRUE(spec.ok());
  auto p = spec->make(std::min<std::uint64_t>(size, t.unique_lines()), 1);
  std::unique_ptr<AdmissionPolicy> a;
  if (admission != nullptr) a = MakeAdmissionPolicy(admission, kLine);
  return SimulateCell(t, *p, size, a.get(), writes);
}

// A B C A B D A B C D, one line each: worked by hand.
std::vector<TraceRecord> Abcabdabcd() {
  std::vector<TraceRecord> r;
  for (std::uint64_t k : {0, 1, 2, 0, 1, 3, 0, 1, 2, 3}) r.push_back(Read(k));
  return r;
}

TEST(PolicySweepTest, LruAndFifoByHand) {
  const SweepTrace t = Load(Abcabdabcd());
  EXPECT_EQ(t.unique_lines(), 4U);
  // LRU, 2 lines: every reference misses (each returns after two others).
  EXPECT_EQ(Cell(t, "lru", 2).read_misses, 10U);
  // LRU, 3 lines: A B C miss, A B hit, D misses (evicts C), A B hit, C
  // misses (evicts D), D misses (evicts A).
  SweepCounts c = Cell(t, "lru", 3);
  EXPECT_EQ(c.read_misses, 6U);
  EXPECT_EQ(c.evictions, 3U);
  // FIFO, 3 lines: A B C miss, A B hit, D misses (evicts A), A misses
  // (evicts B), B misses (evicts C), C misses (evicts D), D misses.
  c = Cell(t, "fifo", 3);
  EXPECT_EQ(c.read_misses, 8U);
  EXPECT_EQ(c.evictions, 5U);
  // 4 lines hold everything: the 4 cold misses only, whatever the policy.
  for (const std::string& p : ReplacementPolicyNames()) {
    EXPECT_EQ(Cell(t, p.c_str(), 4).read_misses, 4U) << p;
    EXPECT_EQ(Cell(t, p.c_str(), 100).evictions, 0U) << p;
  }
}

// Every policy in the sweep against the checked reference simulator on the
// same key stream: the sweep's dense slots and array index must not change
// what a policy decides.
TEST(PolicySweepTest, EveryPolicyMatchesTheReferenceSimulator) {
  std::mt19937_64 rng(7);
  std::vector<TraceRecord> recs;
  std::vector<std::uint64_t> keys;
  for (int i = 0; i < 20000; ++i) {
    // A skewed stream over 2,000 keys: a hot tenth gets half the references.
    const std::uint64_t k = rng() % 2 == 0 ? rng() % 200 : rng() % 2000;
    keys.push_back(k);
    recs.push_back(Read(k));
  }
  const SweepTrace t = Load(recs);
  for (const std::string& p : ReplacementPolicyNames()) {
    for (std::uint64_t size : {50, 300, 1000}) {
      auto ref_policy = MakeReplacementPolicy(p, size, 1);
      CacheSimulator sim(ref_policy.get(), size);
      for (std::uint64_t k : keys) sim.Access(k);
      ASSERT_EQ(sim.Violations(), 0U) << p;
      const SweepCounts c = Cell(t, p.c_str(), size);
      EXPECT_EQ(c.read_misses, sim.Misses()) << p << " at " << size;
      EXPECT_EQ(c.read_refs, keys.size());
    }
  }
}

// LRU over block references is the stack-distance MRC, exactly, with
// multi-line requests, reads and writes: all references when writes are
// references (none, writethrough, writeback), reads alone for the read
// miss ratio.
TEST(PolicySweepTest, LruEqualsTheStackDistanceCurve) {
  std::mt19937_64 rng(11);
  std::vector<TraceRecord> recs;
  for (int i = 0; i < 30000; ++i) {
    const std::uint64_t line = rng() % 5000;
    const auto lines = static_cast<std::uint32_t>(1 + rng() % 4);
    recs.push_back(rng() % 10 < 7 ? Read(line, lines) : Write(line, lines));
  }
  // A request that is not line-aligned: 3 KiB from 2 KiB touches 2 lines.
  recs.push_back({0, IoOp::kRead, 2048, 3072});
  StackDistanceMrc mrc(kLine);
  for (const TraceRecord& r : recs) mrc.Add(r);
  const SweepTrace t = Load(recs);
  ASSERT_EQ(t.ids().size(), mrc.references());
  for (std::uint64_t size : {1, 100, 1000, 2500, 4999, 6000}) {
    for (SweepWriteMode m :
         {SweepWriteMode::kNone, SweepWriteMode::kWriteThrough, SweepWriteMode::kWriteBack}) {
      const SweepCounts c = Cell(t, "lru", size, m);
      EXPECT_EQ(c.read_misses + c.write_misses, mrc.Misses(size)) << size << ToString(m);
      EXPECT_EQ(c.read_misses, mrc.ReadMisses(size)) << size << ToString(m);
    }
  }
}

TEST(PolicySweepTest, WriteModesDoWhatTheCacheModesDo) {
  // W0 R0 W1 R1 R2 W2 R0, 2 lines of LRU.
  const SweepTrace t = Load({Write(0), Read(0), Write(1), Read(1), Read(2), Write(2), Read(0)});
  // writeback: W0 miss (dirty), R0 hit, W1 miss (dirty), R1 hit, R2 miss
  // evicts dirty 0, W2 hit, R0 miss evicts dirty 1.
  SweepCounts c = Cell(t, "lru", 2, SweepWriteMode::kWriteBack);
  EXPECT_EQ(c.write_misses, 2U);
  EXPECT_EQ(c.read_misses, 2U);
  EXPECT_EQ(c.evictions, 2U);
  EXPECT_EQ(c.dirty_evictions, 2U);
  // writethrough: the same hits, nothing dirty.
  c = Cell(t, "lru", 2, SweepWriteMode::kWriteThrough);
  EXPECT_EQ(c.read_misses, 2U);
  EXPECT_EQ(c.dirty_evictions, 0U);
  // writearound: writes insert nothing, so every read misses; R2 evicts 0,
  // W2 finds R2's line and invalidates it, and the last R0 takes its slot
  // without an eviction.
  c = Cell(t, "lru", 2, SweepWriteMode::kWriteAround);
  EXPECT_EQ(c.read_misses, 4U);
  EXPECT_EQ(c.write_misses, 2U);
  EXPECT_EQ(c.evictions, 1U);
  EXPECT_EQ(c.dirty_evictions, 0U);
  // writeonly: reads insert nothing: R0 and R1 hit the written lines, R2
  // misses, W2 misses and evicts dirty 0 (LRU), R0 misses.
  c = Cell(t, "lru", 2, SweepWriteMode::kWriteOnly);
  EXPECT_EQ(c.read_misses, 2U);
  EXPECT_EQ(c.write_misses, 3U);
  EXPECT_EQ(c.dirty_evictions, 1U);
  // Byte ratios follow the line ratios for whole-line requests.
  EXPECT_DOUBLE_EQ(c.ByteMissRatio(), c.MissRatio());
}

TEST(PolicySweepTest, ObjectViewCountsRequestsNotLines) {
  // Two 64 KiB reads of the same start and one of another: three
  // references, two objects.
  const SweepTrace t = Load({Read(0, 16), Read(0, 16), Read(100, 16)}, /*object=*/true);
  EXPECT_EQ(t.unique_lines(), 2U);
  const SweepCounts c = Cell(t, "lru", 1);
  EXPECT_EQ(c.read_refs, 3U);
  EXPECT_EQ(c.read_misses, 2U);
  // The block view of the same requests: 48 references, 32 lines.
  const SweepTrace b = Load({Read(0, 16), Read(0, 16), Read(100, 16)});
  EXPECT_EQ(b.unique_lines(), 32U);
  EXPECT_EQ(Cell(b, "lru", 32).read_misses, 32U);
}

TEST(PolicySweepTest, AdmissionAndDiscards) {
  // nhit:2 admits a line on its second miss.
  const SweepTrace t = Load({Read(0), Read(0), Read(0), Read(1)});
  SweepCounts c = Cell(t, "lru", 4, SweepWriteMode::kWriteBack, "nhit:2");
  EXPECT_EQ(c.read_misses, 3U);  // 0 twice (admitted then), 1 once
  // A discard drops the line: the next read misses again.
  const SweepTrace d = Load({Read(0), {0, IoOp::kDiscard, 0, 4096}, Read(0)});
  c = Cell(d, "lru", 4);
  EXPECT_EQ(c.read_misses, 1U);  // none: discards ignored, as a reference stream
  c = Cell(d, "lru", 4, SweepWriteMode::kWriteBack);
  EXPECT_EQ(c.read_misses, 2U);
  EXPECT_EQ(c.requests, 2U);
}

TEST(PolicySweepTest, RunSweepRunsEveryCellInParallel) {
  const SweepTrace t = Load(Abcabdabcd());
  SweepOptions o;
  for (const char* p : {"lru", "fifo"}) o.policies.push_back(*ParseReplacementSpec(p));
  o.sizes_lines = {2, 3, 4};
  o.threads = 3;
  auto r = RunSweep(t, o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 6U);
  EXPECT_EQ((*r)[1].policy, "lru");
  EXPECT_EQ((*r)[1].size_lines, 3U);
  EXPECT_EQ((*r)[1].size_bytes, 3 * kLine);
  EXPECT_EQ((*r)[1].counts.read_misses, 6U);
  EXPECT_EQ((*r)[4].policy, "fifo");
  EXPECT_EQ((*r)[4].counts.read_misses, 8U);
}

TEST(PolicySweepTest, SizesParse) {
  auto s = ParseSweepSizes("10%,64k,3,100%", kLine, 200);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::vector<std::uint64_t>{3, 16, 20, 200}));
  EXPECT_EQ(*ParseSweepSizes("0.1%", kLine, 200), std::vector<std::uint64_t>{1});
  for (const char* bad : {"", "5,", "0", "-1", "150%", "12q", "1.5"}) {
    auto e = ParseSweepSizes(bad, kLine, 200);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error().message.find("size \""), std::string::npos) << e.error().message;
  }
  EXPECT_FALSE(ParseSweepWriteMode("back").ok());
  EXPECT_EQ(*ParseSweepWriteMode("writearound"), SweepWriteMode::kWriteAround);
}

}  // namespace
}  // namespace tierlab
