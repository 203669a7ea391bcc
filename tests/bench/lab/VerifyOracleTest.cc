// fio's verify in tierlab: the oracle of what each block should hold, and
// a job's verify phase on a volume that carries data. Before, verify was
// refused, so a job file checking its data could not run at all.

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "bench/lab/Runner.h"
#include "bench/lab/VerifyOracle.h"
#include "tests/support/SyncIo.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/targets/FaultTarget.h"

namespace tierlab {
namespace {

TEST(VerifyOracleTest, WhatWasWrittenChecksAndADamagedBlockIsNamed) {
  VerifyOracle o(512);
  std::vector<std::byte> buf(4096);
  o.RecordWrite(7, 8192, 4096, buf.data());
  std::uint64_t checked = 0;
  EXPECT_FALSE(o.Check(8192, 4096, buf.data(), &checked).has_value());
  EXPECT_EQ(checked, 4096u);
  buf[3 * 512 + 100] ^= std::byte{1};
  EXPECT_EQ(o.Check(8192, 4096, buf.data()), std::optional<std::uint64_t>(8192 + 3 * 512));
}

TEST(VerifyOracleTest, TheNewestWriteOfABlockIsWhatItMustHold) {
  VerifyOracle o(512);
  std::vector<std::byte> a(4096), b(1024), c(4096);
  o.RecordWrite(1, 0, 4096, a.data());
  o.RecordWrite(1, 1024, 1024, b.data());  // overwrites blocks 2 and 3
  // What a read of [0, 4096) must return: a, then b, then a again.
  std::memcpy(c.data(), a.data(), 4096);
  EXPECT_EQ(o.Check(0, 4096, c.data()), std::optional<std::uint64_t>(1024));  // stale a
  std::memcpy(c.data() + 1024, b.data(), 1024);
  EXPECT_FALSE(o.Check(0, 4096, c.data()).has_value());
  // The same block content from another place or another write differs.
  EXPECT_NE(std::memcmp(a.data(), a.data() + 512, 512), 0);
  // A write the oracle does not know makes its blocks unchecked.
  o.Forget(0, 2048);
  std::uint64_t checked = 0;
  std::vector<std::byte> zeros(4096);
  EXPECT_EQ(o.Check(0, 4096, zeros.data(), &checked), std::optional<std::uint64_t>(2048));
  EXPECT_EQ(checked, 512u);  // only block 4 was compared before the mismatch
}

TEST(WrittenExtentsTest, OverlapsKeepOnePieceEachInOffsetOrder) {
  WrittenExtents w;
  w.Add(8192, 4096);
  w.Add(0, 4096);
  w.Add(2048, 8192);  // covers the tail of the first and the head of the second
  using P = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(w.Pieces(4096), (std::vector<P>{{0, 2048}, {2048, 4096}, {6144, 4096}, {10240, 2048}}));
}

// With fio's random map, fio reads back in the order written (its log is
// a list): the oldest write first, what later writes cut from it skipped,
// a split one's tail where its head was.
TEST(WrittenExtentsTest, InWriteOrderTheOldestComesFirst) {
  using P = std::pair<std::uint64_t, std::uint64_t>;
  WrittenExtents w(/*in_write_order=*/true);
  const std::uint64_t a = w.Add(8192, 8192);  // [8k, 16k)
  const std::uint64_t b = w.Add(0, 4096);
  const std::uint64_t c = w.Add(10240, 2048);  // splits the first: [8k, 10k) and [12k, 16k)
  EXPECT_EQ(w.Pieces(4096),
            (std::vector<P>{{8192, 2048}, {12288, 4096}, {0, 4096}, {10240, 2048}}));
  EXPECT_EQ(w.TakeFirst(), std::nullopt);  // the oldest write is still in flight
  w.Landed(a);
  EXPECT_EQ(w.TakeFirst(), (std::optional<P>{{8192, 2048}}));
  EXPECT_EQ(w.TakeFirst(), (std::optional<P>{{12288, 4096}}));
  EXPECT_EQ(w.TakeFirst(), std::nullopt);
  w.Landed(c);
  EXPECT_EQ(w.TakeFirst(), std::nullopt);  // b, older than c, waits
  w.Landed(b);
  EXPECT_EQ(w.TakeFirst(), (std::optional<P>{{0, 4096}}));
  EXPECT_EQ(w.TakeFirst(), (std::optional<P>{{10240, 2048}}));
  EXPECT_TRUE(w.empty());
}

struct DataVolume {
  SimEngine e;
  FaultTarget* fault = nullptr;
  std::unique_ptr<BlockDevice> top;
  DataVolume() {
    ModelOptions mo;
    mo.capacity = 64 << 20;
    mo.with_data = true;
    auto ssd = MakeModelDevice(e, *FindPreset("ssd-hk4e"), "ssd", mo);
    auto f = std::make_unique<FaultTarget>(e, "fault", std::move(ssd));
    fault = f.get();
    top = std::move(f);
  }
  void CorruptReadsOfTheBlockAt64k() {
    FaultRule rule;
    rule.op_mask = FaultRule::Ops({IoOp::kRead});
    rule.start = 65536;
    rule.end = 65536 + 4096;
    rule.action = FaultAction::kCorruptRead;
    fault->SetRules({rule});
  }
};

Profile WriteAndVerify() {
  Profile p;
  p.name = "wv";
  p.rw = RwMode::kWrite;
  p.bs = 4096;
  p.iodepth = 8;
  p.has_size = true;
  p.size = SizeSpec{1 << 20, 0, false};
  p.verify = "crc32c";
  return p;
}

TEST(VerifyRunTest, AWritingJobReadsBackEveryBlockItWroteAndFindsNothingWrong) {
  DataVolume v;
  auto r = RunWorkload(v.e, *v.top, WriteAndVerify());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->verify.checked);
  EXPECT_EQ(r->verify.reads, 256u);  // 1 MiB in 4 KiB blocks, as fio's verify phase reads it
  EXPECT_EQ(r->verify.bytes_checked, 1u << 20);
  EXPECT_EQ(r->verify.mismatches, 0u);
  EXPECT_EQ(r->issued_by_size[0].at(4096), 256u);  // the reads count as reads, as in fio
  EXPECT_EQ(r->issued_by_size[1].at(4096), 256u);
  EXPECT_EQ(r->metrics.read().ops, 256u);
}

TEST(VerifyRunTest, DamagedReadsAreFoundWithTheirOffsets) {
  DataVolume v;
  v.CorruptReadsOfTheBlockAt64k();
  auto r = RunWorkload(v.e, *v.top, WriteAndVerify());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->verify.mismatches, 1u);
  EXPECT_EQ(r->verify.first_bad, std::vector<std::uint64_t>{65536});
}

TEST(VerifyRunTest, AReadingJobChecksWhatAVerifyingJobWroteBeforeIt) {
  DataVolume v;
  Profile w = WriteAndVerify();
  w.do_verify = false;
  Profile rd = WriteAndVerify();
  rd.name = "rd";
  rd.rw = RwMode::kRandRead;
  rd.number_ios = 1000;
  rd.has_io_size = true;
  rd.io_size = 64 << 20;
  // The job goes on after each mismatch (fio's default would end it at the first).
  ASSERT_TRUE(ParseContinueOnError("verify", rd.continue_on_error).ok());
  VerifyOracle oracle(v.top->BlockSize());
  auto first = RunSections(v.e, *v.top, {SectionWork{&w, {}, {}, &oracle}});
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*first)[0].verify.reads, 0u);  // do_verify=0: no verify phase
  FaultRule rule;
  rule.op_mask = FaultRule::Ops({IoOp::kRead});
  rule.action = FaultAction::kCorruptRead;
  rule.max_triggers = 3;
  v.fault->SetRules({rule});
  auto second = RunSections(v.e, *v.top, {SectionWork{&rd, {}, {}, &oracle}});
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ((*second)[0].verify.reads, 0u);  // its own reads are the checks
  // A damaged read is checked up to its first bad block (fio stops there too).
  EXPECT_EQ((*second)[0].verify.bytes_checked, 997u * 4096 + 3 * 512);
  EXPECT_EQ((*second)[0].verify.mismatches, 3u);
  EXPECT_EQ((*second)[0].errors.total, 3u);
  EXPECT_EQ((*second)[0].errors.error, EILSEQ);
  EXPECT_FALSE((*second)[0].errors.ended_job);
}

TEST(VerifyRunTest, AMismatchEndsTheJobByDefaultAsFiosDoes) {
  DataVolume v;
  v.CorruptReadsOfTheBlockAt64k();
  Profile p = WriteAndVerify();
  p.iodepth = 1;
  auto r = RunWorkload(v.e, *v.top, p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->verify.mismatches, 1u);
  EXPECT_EQ(r->verify.reads, 17u);  // read back in offset order up to the bad block
  EXPECT_EQ(r->errors.error, EILSEQ);
  EXPECT_TRUE(r->errors.ended_job);
}

TEST(VerifyRunTest, WithoutDataTheReadsAreIssuedAndNothingIsChecked) {
  SimEngine e;
  ModelOptions mo;
  mo.capacity = 64 << 20;
  auto ssd = MakeModelDevice(e, *FindPreset("ssd-hk4e"), "ssd", mo);
  auto r = RunWorkload(e, *ssd, WriteAndVerify());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->verify.checked);
  EXPECT_EQ(r->verify.reads, 256u);
  EXPECT_EQ(r->verify.bytes_checked, 0u);
}

// fio's verify_pattern: the device holds the pattern from each write's
// first byte (fio's bytes exactly with verify=pattern); other methods get
// tierlab's 8-byte header, the offset there, at every verify_interval.
TEST(VerifyRunTest, APatternJobWritesThePatternAndChecksIt) {
  DataVolume v;
  Profile p = WriteAndVerify();
  p.bs = 8192;
  p.size = SizeSpec{64 << 10, 0, false};
  ASSERT_TRUE(SetProfileOption(p, "verify", "pattern", true, 1024).ok());
  ASSERT_TRUE(SetProfileOption(p, "verify_pattern", "0xaa55\"x\"%o", true, 1024).ok());
  auto r = RunWorkload(v.e, *v.top, p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->verify.mismatches, 0u);
  EXPECT_EQ(r->verify.bytes_checked, 64u << 10);
  std::vector<std::byte> block(8192);
  ASSERT_EQ(testing::SubmitAndRun(v.e, *v.top, IoOp::kRead, 16384, block.size(), block.data()),
            Status::kOk);
  std::vector<std::byte> want(8192);
  FillFromPattern(*ParseFioPattern("0xaa55\"x\"%o", true), 16384, 0, want.data(), want.size());
  EXPECT_EQ(block, want);
  EXPECT_EQ(block[0], std::byte{0xaa});
  EXPECT_EQ(block[3], std::byte{0x00});  // the write's offset, 16384, little-endian
  EXPECT_EQ(block[4], std::byte{0x40});
  EXPECT_EQ(block[11], std::byte{0xaa});  // the next copy: 11 bytes each

  // verify=meta with an interval: the offset at every 512 bytes.
  Profile m = p;
  m.verify = "meta";
  m.verify_interval = 512;
  m.offset = SizeSpec{1 << 20, 0, false};
  auto mr = RunWorkload(v.e, *v.top, m);
  ASSERT_TRUE(mr.ok()) << mr.error().message;
  EXPECT_EQ(mr->verify.mismatches, 0u);
  ASSERT_EQ(
      testing::SubmitAndRun(v.e, *v.top, IoOp::kRead, (1 << 20) + 8192, block.size(), block.data()),
      Status::kOk);
  std::uint64_t header = 0;
  std::memcpy(&header, block.data() + 1536, 8);
  EXPECT_EQ(header, (1u << 20) + 8192 + 1536);
  EXPECT_EQ(block[11], std::byte{0xaa});  // the pattern goes on after the header
}

TEST(VerifyRunTest, APatternMismatchIsFound) {
  DataVolume v;
  v.CorruptReadsOfTheBlockAt64k();
  Profile p = WriteAndVerify();
  ASSERT_TRUE(SetProfileOption(p, "verify_pattern", "0x0102", true, 1024).ok());
  auto r = RunWorkload(v.e, *v.top, p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->verify.first_bad, std::vector<std::uint64_t>{65536});
}

// verify_write_sequence=0: a block that a write was landing on while it
// was read is not checked.
TEST(VerifyOracleTest, WithoutTheWriteSequenceBlocksARaceCouldReachAreNotChecked) {
  VerifyOracle o(4096);
  std::vector<std::byte> old_data(4096), new_data(4096);
  const std::uint64_t first = o.RecordWrite(1, 0, 4096, old_data.data());
  o.Landed(first, 0, 4096, 100);
  const std::uint64_t second = o.RecordWrite(1, 0, 4096, new_data.data());
  // A read issued at 150 returned the old data: the newer write had not landed.
  std::uint64_t checked = 0;
  EXPECT_TRUE(o.Check(0, 4096, old_data.data(), &checked).has_value());
  EXPECT_FALSE(o.Check(0, 4096, old_data.data(), &checked, Nanos{150}).has_value());
  EXPECT_EQ(checked, 0u);
  o.Landed(second, 0, 4096, 200);
  EXPECT_FALSE(o.Check(0, 4096, old_data.data(), &checked, Nanos{190}).has_value());
  EXPECT_TRUE(o.Check(0, 4096, old_data.data(), &checked, Nanos{250}).has_value());  // after it
  EXPECT_EQ(checked, 4096u);
}

}  // namespace
}  // namespace tierlab
