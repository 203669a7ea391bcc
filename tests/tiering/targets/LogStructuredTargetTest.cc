// The log-structured target: data written through it reads back while the
// cleaner runs constantly (the verification harness on a pool of a dozen
// segments); never-written blocks read zeros without I/O; many overwrites
// of one block keep the last; segment writes to a parity array are all
// full-stripe writes; configurations the cleaner could not work in are
// refused; write amplification under uniform random overwrites matches
// what a greedy cleaner is expected to cost; the on-media formats (label,
// segment header, NVRAM record) round-trip and detect damage; recovery
// after a Drain, after crashes at random moments (acknowledged writes
// replayed from the NVRAM records), and only of its own log's devices.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "tests/support/BorrowedDevice.h"
#include "tests/support/PowerCutDevice.h"
#include "tests/support/VerifyHarness.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/targets/FaultTarget.h"
#include "tiering/targets/LogSegmentFormat.h"
#include "tiering/targets/LogStructuredTarget.h"
#include "tiering/targets/ParityTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kBlock = 4096;

Status Do(Engine& e, BlockDevice& d, IoOp op, std::uint64_t off, std::uint64_t len,
          std::byte* data) {
  Status got = Status::kShutdown;
  int calls = 0;
  d.Submit({op, 0, off, len, data}, [&](Status st) {
    got = st;
    ++calls;
  });
  EXPECT_EQ(calls, 0) << "completed inside Submit";
  e.Run();
  EXPECT_EQ(calls, 1);
  return got;
}

// A pool of `segments` segments of 128 KiB (one header block, 31 data
// slots) on a RAM capacity device, with a RAM NVRAM log.
std::unique_ptr<LogStructuredTarget> SmallLog(Engine& e, std::uint32_t segments,
                                              std::uint64_t nvram_bytes, double usable,
                                              std::uint32_t writes_in_flight = 1) {
  LogStructuredOptions o;
  o.segment_bytes = 128 * kKiB;
  o.usable = usable;
  o.cleaner_start = 0.75;
  o.cleaner_reads_in_flight = 2;
  o.segment_writes_in_flight = writes_in_flight;
  return std::make_unique<LogStructuredTarget>(
      e, "log", std::make_unique<RamDevice>(e, "nvram", nvram_bytes),
      std::make_unique<RamDevice>(e, "cap", segments * o.segment_bytes), o);
}

TEST(LogSegmentFormat, HeaderRoundTripsAndDetectsDamage) {
  const std::uint32_t blocks = LogSegmentHeaderBlocks(1152);  // 4.5 MiB of 4 KiB blocks
  EXPECT_EQ(blocks, 3u);                                      // 48 + 8 * 1152 bytes
  LogSegmentHeader h;
  h.log_id = 0x1234567890abcdefull;
  h.sequence = 77;
  h.data_slots = 1149;
  h.data_crc = 0xdeadbeef;
  for (std::uint64_t i = 0; i < 1000; ++i) h.volume_blocks.push_back(i * 7919);
  std::vector<std::byte> buf(blocks * kBlock);
  EncodeLogSegmentHeader(h, blocks, buf);
  LogSegmentHeader back;
  ASSERT_TRUE(DecodeLogSegmentHeader(buf, &back));
  EXPECT_EQ(back.log_id, h.log_id);
  EXPECT_EQ(back.sequence, 77u);
  EXPECT_EQ(back.data_slots, 1149u);
  EXPECT_EQ(back.data_crc, 0xdeadbeefu);
  EXPECT_EQ(back.volume_blocks, h.volume_blocks);
  buf[48 + 8 * 500] ^= std::byte{1};  // one block number damaged
  EXPECT_FALSE(DecodeLogSegmentHeader(buf, &back));
  std::vector<std::byte> zeros(blocks * kBlock);
  EXPECT_FALSE(DecodeLogSegmentHeader(zeros, &back));  // a slot never written
}

TEST(LogSegmentFormat, NvramRecordAndLabelRoundTripAndDetectDamage) {
  NvramRecordHeader r;
  r.log_id = 9;
  r.position = (1ull << 40) + 3;
  r.sequence = 123456;
  r.segment_offset = 1100;
  r.blocks = 32;
  r.first_volume_block = 7'000'000'000ull;
  r.data_crc = 0xfeedface;
  r.unit_bytes = 512;
  std::vector<std::byte> unit(512);
  EncodeNvramRecordHeader(r, unit);
  NvramRecordHeader rb;
  ASSERT_TRUE(DecodeNvramRecordHeader(unit, &rb));
  EXPECT_EQ(rb.log_id, 9u);
  EXPECT_EQ(rb.position, r.position);
  EXPECT_EQ(rb.sequence, r.sequence);
  EXPECT_EQ(rb.segment_offset, r.segment_offset);
  EXPECT_EQ(rb.blocks, r.blocks);
  EXPECT_EQ(rb.first_volume_block, r.first_volume_block);
  EXPECT_EQ(rb.data_crc, r.data_crc);
  EXPECT_EQ(rb.unit_bytes, 512u);
  for (std::size_t at : {0u, 12u, 24u, 48u, 60u}) {  // magic, blocks, position, block, CRC
    std::vector<std::byte> bad = unit;
    bad[at] ^= std::byte{0x10};
    EXPECT_FALSE(DecodeNvramRecordHeader(bad, &rb)) << at;
  }
  r.blocks = 0;  // a record holds at least one block
  EncodeNvramRecordHeader(r, unit);
  EXPECT_FALSE(DecodeNvramRecordHeader(unit, &rb));

  LogLabel l{42, 4096, 4608 * 1024, 1149};
  std::vector<std::byte> label(kBlock);
  EncodeLogLabel(l, label);
  LogLabel lb;
  ASSERT_TRUE(DecodeLogLabel(label, &lb));
  EXPECT_EQ(lb.log_id, 42u);
  EXPECT_EQ(lb.unit_bytes, 4096u);
  EXPECT_EQ(lb.segment_bytes, 4608u * 1024);
  EXPECT_EQ(lb.data_slots, 1149u);
  label[20] ^= std::byte{1};
  EXPECT_FALSE(DecodeLogLabel(label, &lb));
  EXPECT_FALSE(DecodeLogLabel(std::vector<std::byte>(kBlock), &lb));  // never labelled
}

TEST(LogStructuredTarget, RefusesConfigurationsWithoutCleanerRoom) {
  SimEngine e;
  // 12 segments of 31 slots, one written at a time: 9 segments' data (279
  // blocks) is the most that may be live; 80% is 297 blocks.
  auto tight = SmallLog(e, 12, 1 * kMiB, 0.8);
  EXPECT_EQ(tight->Size(), 0u);
  EXPECT_NE(tight->config_error().find("cleaner no room"), std::string::npos)
      << tight->config_error();
  std::vector<std::byte> buf(kBlock);
  EXPECT_EQ(Do(e, *tight, IoOp::kWrite, 0, kBlock, buf.data()), Status::kInvalid);
  auto ok = SmallLog(e, 12, 1 * kMiB, 0.7);
  EXPECT_TRUE(ok->config_error().empty()) << ok->config_error();
  EXPECT_EQ(ok->Size(), 260 * kBlock);  // floor(0.7 * 12 * 31) blocks
  EXPECT_EQ(ok->header_blocks(), 1u);
  EXPECT_EQ(ok->data_slots(), 31u);
  // 4 bytes forward per volume block, 4 back per slot.
  EXPECT_NEAR(ok->IndexBytesPerBlock(), 4.0 + 4.0 * 372 / 260, 1e-9);
}

TEST(LogStructuredTarget, NeverWrittenBlocksReadZerosWithoutIo) {
  SimEngine e;
  auto log = SmallLog(e, 12, 1 * kMiB, 0.7);
  std::vector<std::byte> buf(64 * kKiB, std::byte{0x5a});
  ASSERT_EQ(Do(e, *log, IoOp::kRead, 8 * kBlock, buf.size(), buf.data()), Status::kOk);
  for (std::byte b : buf) ASSERT_EQ(b, std::byte{0});
  EXPECT_EQ(log->nvram().stats().read_ops + log->capacity().stats().read_ops, 0u);
  // One written block in the middle: the rest still zeros, still no
  // capacity read (the block is in the open segment's memory).
  std::vector<std::byte> one(kBlock, std::byte{0x11});
  ASSERT_EQ(Do(e, *log, IoOp::kWrite, 10 * kBlock, kBlock, one.data()), Status::kOk);
  std::fill(buf.begin(), buf.end(), std::byte{0x5a});
  ASSERT_EQ(Do(e, *log, IoOp::kRead, 8 * kBlock, buf.size(), buf.data()), Status::kOk);
  for (std::size_t i = 0; i < buf.size(); ++i) {
    const bool written = i >= 2 * kBlock && i < 3 * kBlock;
    ASSERT_EQ(buf[i], written ? std::byte{0x11} : std::byte{0}) << i;
  }
  EXPECT_EQ(log->capacity().stats().read_ops, 0u);
  // Discarded, it reads zeros again.
  ASSERT_EQ(Do(e, *log, IoOp::kDiscard, 10 * kBlock, kBlock, nullptr), Status::kOk);
  ASSERT_EQ(Do(e, *log, IoOp::kRead, 10 * kBlock, kBlock, one.data()), Status::kOk);
  for (std::byte b : one) ASSERT_EQ(b, std::byte{0});
}

TEST(LogStructuredTarget, ManyOverwritesOfOneBlockKeepTheLast) {
  SimEngine e;
  auto log = SmallLog(e, 12, 256 * kKiB, 0.7);
  std::vector<std::byte> other(kBlock, std::byte{0x77});
  ASSERT_EQ(Do(e, *log, IoOp::kWrite, 3 * kBlock, kBlock, other.data()), Status::kOk);
  std::vector<std::byte> buf(kBlock);
  // 1000 versions: 32 segments' worth, so the log wraps the 12 slots and
  // the cleaner moves block 3 forward several times.
  for (std::uint32_t v = 1; v <= 1000; ++v) {
    std::memcpy(buf.data(), &v, sizeof v);
    std::memset(buf.data() + sizeof v, static_cast<int>(v & 0xff), kBlock - sizeof v);
    ASSERT_EQ(Do(e, *log, IoOp::kWrite, 5 * kBlock, kBlock, buf.data()), Status::kOk);
    if (v % 97 == 0) {
      std::vector<std::byte> got(kBlock);
      ASSERT_EQ(Do(e, *log, IoOp::kRead, 5 * kBlock, kBlock, got.data()), Status::kOk);
      ASSERT_EQ(std::memcmp(got.data(), buf.data(), kBlock), 0) << "version " << v;
    }
  }
  std::vector<std::byte> got(kBlock);
  ASSERT_EQ(Do(e, *log, IoOp::kRead, 5 * kBlock, kBlock, got.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(got.data(), buf.data(), kBlock), 0);
  ASSERT_EQ(Do(e, *log, IoOp::kRead, 3 * kBlock, kBlock, got.data()), Status::kOk);
  EXPECT_EQ(std::memcmp(got.data(), other.data(), kBlock), 0);
  const LogStructuredStats s = log->log_stats();
  EXPECT_GE(s.segments_written, 32u);
  EXPECT_GT(s.segments_cleaned, 20u);
  // Every victim held at most the two live blocks: the cleaner copied few.
  EXPECT_LE(s.cleaner_bytes_written, 2 * s.segments_cleaned * kBlock);
}

// The harness on a pool where the cleaner never rests: 12 segments, 70%
// of the slots in the volume, writes of up to 8 blocks eight at a time.
struct PoolCase {
  const char* name;
  std::uint64_t nvram_bytes;
  std::uint32_t writes_in_flight;
  double usable;
};

class LogVerify : public ::testing::TestWithParam<PoolCase> {};

TEST_P(LogVerify, HarnessPassesWhileTheCleanerRuns) {
  SimEngine e;
  auto log =
      SmallLog(e, 12, GetParam().nvram_bytes, GetParam().usable, GetParam().writes_in_flight);
  ASSERT_TRUE(log->config_error().empty()) << log->config_error();
  testing::VerifyOptions o;
  o.ops = 4000;
  o.seed = 21;
  o.max_in_flight = 8;
  o.max_length = 32 * kKiB;
  auto r = testing::RunVerify(e, *log, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(r.discards, 0u);
  EXPECT_GT(r.flushes, 0u);
  const LogStructuredStats s = log->log_stats();
  // About 1800 writes of 4.5 blocks on average: some 260 segments' worth,
  // through 12 slots.
  EXPECT_GT(s.segments_cleaned, 100u);
  EXPECT_GT(s.cleaner_bytes_written, 0u);
  // Copies are of blocks read; a block overwritten while it was read is not copied.
  EXPECT_GE(s.cleaner_bytes_read, s.cleaner_bytes_written);
  EXPECT_EQ(s.segment_write_errors + s.cleaner_errors, 0u);
  if (GetParam().nvram_bytes < 128 * kKiB) {
    EXPECT_GT(s.segments_sealed_early, 0u);
  }
  // The cleaner could not always keep up: writes waited, and none failed.
  EXPECT_GT(s.write_waits, 0u);
  EXPECT_EQ(log->capacity().stats().write_bytes, s.segment_bytes_written);
  // Each NVRAM record is the blocks behind one 512-byte header unit.
  EXPECT_EQ(log->nvram().stats().write_bytes, s.nvram_bytes_written);
  EXPECT_GT(s.nvram_bytes_written, s.user_bytes_written);
  EXPECT_LE(s.nvram_bytes_written - s.user_bytes_written, s.user_bytes_written / kBlock * 512);
}

INSTANTIATE_TEST_SUITE_P(
    Pools, LogVerify,
    ::testing::Values(PoolCase{"roomy_nvram", 1 * kMiB, 1, 0.7},
                      // Smaller than a segment: every segment is sealed early.
                      PoolCase{"tiny_nvram", 64 * kKiB, 1, 0.7},
                      // One segment more in flight: one less may hold live data.
                      PoolCase{"two_segment_writes", 1 * kMiB, 2, 0.6}),
    [](const auto& info) { return std::string(info.param.name); });

// The same over device models with data (an HDD's positioning times, an
// NVMe NVRAM): segment writes, cleaner reads and foreground reads complete
// in other orders than on RAM devices.
TEST(LogStructuredTarget, HarnessPassesOverDeviceModels) {
  SimEngine e;
  LogStructuredOptions lo;
  lo.segment_bytes = 128 * kKiB;
  lo.usable = 0.6;
  lo.cleaner_start = 0.75;
  ModelOptions mo;
  mo.with_data = true;
  mo.capacity = 12 * lo.segment_bytes;
  ModelOptions nv = mo;
  nv.capacity = 512 * kKiB;
  LogStructuredTarget log(e, "log", MakeModelDevice(e, FindPreset("nvme-pm1725").value(), "nv", nv),
                          MakeModelDevice(e, FindPreset("hdd-7200").value(), "cap", mo), lo);
  ASSERT_TRUE(log.config_error().empty()) << log.config_error();
  testing::VerifyOptions o;
  o.ops = 3000;
  o.seed = 8;
  o.max_in_flight = 12;
  o.max_length = 48 * kKiB;
  auto r = testing::RunVerify(e, log, o);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_GT(log.log_stats().segments_cleaned, 50u);
}

TEST(LogStructuredTarget, SegmentWritesToAParityArrayAreFullStripeWrites) {
  SimEngine e;
  // RAID-6, 4 + 2, 16 KiB chunks: 64 KiB stripes. A 100 KiB segment is
  // rounded up to two stripes.
  std::vector<std::unique_ptr<BlockDevice>> members;
  for (int i = 0; i < 6; ++i) {
    members.push_back(std::make_unique<RamDevice>(e, "m" + std::to_string(i), 512 * kKiB));
  }
  auto raid = std::make_unique<ParityTarget>(e, "raid6", std::move(members), 2, 16 * kKiB);
  ParityTarget* array = raid.get();
  LogStructuredOptions o;
  o.segment_bytes = 100 * kKiB;
  o.usable = 0.6;
  o.segment_writes_in_flight = 1;
  LogStructuredTarget log(e, "log", std::make_unique<RamDevice>(e, "nvram", 256 * kKiB),
                          std::move(raid), o);
  ASSERT_TRUE(log.config_error().empty()) << log.config_error();
  EXPECT_EQ(log.segment_bytes(), 128 * kKiB);
  EXPECT_EQ(log.segments(), 16u);  // 2 MiB of data in the array
  testing::VerifyOptions v;
  v.ops = 2000;
  v.seed = 5;
  v.max_length = 16 * kKiB;
  auto r = testing::RunVerify(e, log, v);
  EXPECT_TRUE(r.ok()) << r.first_problem;
  const LogStructuredStats s = log.log_stats();
  ASSERT_GT(s.segments_written, 16u);  // the log wrapped: the cleaner ran
  ASSERT_GT(s.segments_cleaned, 0u);
  const ParityStats& p = array->parity_stats();
  EXPECT_EQ(p.full_stripe_writes, 2 * s.segments_written);
  EXPECT_EQ(p.rmw_writes + p.reconstruct_writes + p.degraded_writes, 0u);
}

// A log over a fault target (capacity) and a RAM NVRAM log; `fault` is
// left pointing at the fault target.
std::unique_ptr<LogStructuredTarget> FaultyLog(Engine& e, FaultTarget** fault) {
  LogStructuredOptions o;
  o.segment_bytes = 128 * kKiB;
  o.usable = 0.7;
  o.cleaner_start = 0.75;
  o.segment_writes_in_flight = 1;
  auto f = std::make_unique<FaultTarget>(
      e, "fault", std::make_unique<RamDevice>(e, "cap", 12 * o.segment_bytes));
  *fault = f.get();
  return std::make_unique<LogStructuredTarget>(
      e, "log", std::make_unique<RamDevice>(e, "nvram", 1 * kMiB), std::move(f), o);
}

// Fills volume blocks [first, first + n) with bytes derived from the block
// number and `version`, one write each, in `image` too.
void WriteBlocks(Engine& e, BlockDevice& d, std::vector<std::byte>& image, std::uint64_t first,
                 std::uint64_t n, std::uint8_t version) {
  std::vector<std::byte> buf(kBlock);
  for (std::uint64_t b = first; b < first + n; ++b) {
    std::memset(buf.data(), static_cast<int>((b * 31 + version) & 0xff), kBlock);
    ASSERT_EQ(Do(e, d, IoOp::kWrite, b * kBlock, kBlock, buf.data()), Status::kOk) << b;
    std::memcpy(image.data() + b * kBlock, buf.data(), kBlock);
  }
}

std::uint64_t WrongBlocks(Engine& e, BlockDevice& d, const std::vector<std::byte>& image) {
  std::uint64_t wrong = 0;
  std::vector<std::byte> buf(kBlock);
  for (std::uint64_t off = 0; off < image.size(); off += kBlock) {
    if (Do(e, d, IoOp::kRead, off, kBlock, buf.data()) != Status::kOk ||
        std::memcmp(buf.data(), image.data() + off, kBlock) != 0) {
      ++wrong;
    }
  }
  return wrong;
}

TEST(LogStructuredTarget, FailedSegmentWritesAreRetriedThenStopWritesButNotReads) {
  SimEngine e;
  FaultTarget* fault = nullptr;
  auto log = FaultyLog(e, &fault);
  std::vector<std::byte> image(log->Size());
  FaultRule once;
  once.op_mask = FaultRule::Ops({IoOp::kWrite});
  once.max_triggers = 1;
  fault->SetRules({once});
  WriteBlocks(e, *log, image, 0, 31, 1);  // one segment: its write fails once
  EXPECT_EQ(log->log_stats().segment_write_errors, 1u);
  EXPECT_EQ(log->log_stats().segments_written, 1u);
  EXPECT_FALSE(log->failed());
  EXPECT_EQ(WrongBlocks(e, *log, image), 0u);
  EXPECT_GT(log->capacity().stats().read_ops, 0u);  // read from the committed segment

  FaultRule always;
  always.op_mask = FaultRule::Ops({IoOp::kWrite});
  fault->SetRules({always});
  WriteBlocks(e, *log, image, 31, 31, 1);  // acknowledged from NVRAM; the segment fails 3 times
  EXPECT_EQ(log->log_stats().segment_write_errors, 4u);
  EXPECT_TRUE(log->failed());
  std::vector<std::byte> buf(kBlock);
  EXPECT_EQ(Do(e, *log, IoOp::kWrite, 100 * kBlock, kBlock, buf.data()), Status::kIoError);
  EXPECT_EQ(Do(e, *log, IoOp::kFlush, 0, 0, nullptr), Status::kIoError);
  // Everything acknowledged still reads back, the failed segment from memory.
  EXPECT_EQ(WrongBlocks(e, *log, image), 0u);
}

TEST(LogStructuredTarget, FailedCleanerReadKeepsTheVictimAndTheData) {
  SimEngine e;
  FaultTarget* fault = nullptr;
  auto log = FaultyLog(e, &fault);
  std::vector<std::byte> image(log->Size());
  FaultRule once;
  once.op_mask = FaultRule::Ops({IoOp::kRead});
  once.max_triggers = 1;
  fault->SetRules({once});  // no foreground read until the check: the cleaner's first read fails
  const std::uint64_t blocks = log->Size() / kBlock;
  WriteBlocks(e, *log, image, 0, blocks, 1);
  std::mt19937_64 rng(4);
  for (int round = 2; round < 8; ++round) {
    for (int i = 0; i < 200; ++i) WriteBlocks(e, *log, image, rng() % blocks, 1, round);
  }
  const LogStructuredStats s = log->log_stats();
  EXPECT_EQ(fault->rules()[0].triggered, 1u);
  EXPECT_EQ(s.cleaner_errors, 1u);
  EXPECT_GT(s.segments_cleaned, 10u);  // it went on with other victims
  EXPECT_EQ(WrongBlocks(e, *log, image), 0u);
}

// Transient cleaner read errors (here the only capacity reads until the
// check) return the victim to the pool and are retried: the writes go on,
// none hangs or fails, and everything reads back. Before, each failed
// victim was lost to the pool for good and two errors were enough to wedge
// the cleaner in a loop around write 1042.
TEST(LogStructuredTarget, TransientCleanerReadErrorsAreRetried) {
  for (const std::uint64_t errors : {2u, 10u}) {
    SCOPED_TRACE(errors);
    SimEngine e;
    FaultTarget* fault = nullptr;
    auto log = FaultyLog(e, &fault);
    std::vector<std::byte> image(log->Size());
    FaultRule transient;
    transient.op_mask = FaultRule::Ops({IoOp::kRead});
    transient.max_triggers = errors;
    fault->SetRules({transient});
    const std::uint64_t blocks = log->Size() / kBlock;
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3000; ++i)
      WriteBlocks(e, *log, image, rng() % blocks, 1, static_cast<std::uint8_t>(1 + i % 200));
    const LogStructuredStats s = log->log_stats();
    EXPECT_EQ(fault->rules()[0].triggered, errors);
    EXPECT_GE(s.cleaner_errors, 1u);
    EXPECT_LE(s.cleaner_errors, errors);
    EXPECT_FALSE(log->failed());
    EXPECT_GT(s.segments_cleaned, 50u);
    EXPECT_GE(log->free_segments(), 1u);
    EXPECT_EQ(WrongBlocks(e, *log, image), 0u);
  }
}

// A capacity device whose reads always fail: the cleaner gives up, the
// target fails, and the waiting write ends with kIoError instead of
// waiting for ever.
TEST(LogStructuredTarget, PersistentCleanerReadErrorsFailWritesInsteadOfHanging) {
  SimEngine e;
  FaultTarget* fault = nullptr;
  auto log = FaultyLog(e, &fault);
  FaultRule always;
  always.op_mask = FaultRule::Ops({IoOp::kRead});
  fault->SetRules({always});
  const std::uint64_t blocks = log->Size() / kBlock;
  std::mt19937_64 rng(7);
  std::vector<std::byte> buf(kBlock, std::byte{1});
  Status st = Status::kOk;
  int i = 0;
  for (; i < 5000 && st == Status::kOk; ++i) {
    st = Do(e, *log, IoOp::kWrite, (rng() % blocks) * kBlock, kBlock, buf.data());
  }
  EXPECT_EQ(st, Status::kIoError);
  EXPECT_TRUE(log->failed());
  EXPECT_EQ(log->log_stats().cleaner_errors, 16u);
}

Status RunToEnd(Engine& e, const std::function<void(std::function<void(Status)>)>& call) {
  Status got = Status::kShutdown;
  int calls = 0;
  call([&](Status st) {
    got = st;
    ++calls;
  });
  EXPECT_EQ(calls, 0) << "completed inside the call";
  e.Run();
  EXPECT_EQ(calls, 1);
  return got;
}

// The recovery tests' log: 12 segments of 128 KiB on a capacity device and
// a 256 KiB NVRAM the test owns and lends to each target in turn (a new
// target recovers what the last one wrote).
constexpr std::uint64_t kRecoverySegmentBytes = 128 * kKiB;
constexpr std::uint64_t kRecoveryNvramBytes = 256 * kKiB;
std::unique_ptr<LogStructuredTarget> LogOverLentDevices(Engine& e, BlockDevice& nvram,
                                                        BlockDevice& cap, const char* name,
                                                        std::uint64_t log_id = 0) {
  LogStructuredOptions o;
  o.segment_bytes = kRecoverySegmentBytes;
  o.usable = 0.7;
  o.cleaner_start = 0.75;
  o.segment_writes_in_flight = 1;
  o.log_id = log_id;
  return std::make_unique<LogStructuredTarget>(
      e, name, std::make_unique<testing::BorrowedDevice>(e, nvram),
      std::make_unique<testing::BorrowedDevice>(e, cap), o);
}

TEST(LogStructuredTarget, DrainedLogIsRecoveredFromTheCapacityDeviceAlone) {
  SimEngine e;
  RamDevice nvram(e, "nvram", kRecoveryNvramBytes);
  RamDevice cap(e, "cap", 12 * kRecoverySegmentBytes);
  auto make = [&](const char* name) { return LogOverLentDevices(e, nvram, cap, name); };
  std::vector<std::byte> image;
  std::mt19937_64 rng(12);
  {
    auto a = make("a");
    ASSERT_EQ(RunToEnd(e, [&](auto done) { a->Recover(std::move(done)); }), Status::kOk);
    EXPECT_EQ(a->recovered_segments(), 0u);  // new devices: labelled, nothing to recover
    image.resize(a->Size());
    const std::uint64_t blocks = a->Size() / kBlock;
    WriteBlocks(e, *a, image, 0, blocks, 1);
    for (int i = 0; i < 600; ++i) WriteBlocks(e, *a, image, rng() % blocks, 1, 2);
    EXPECT_GT(a->log_stats().segments_cleaned, 10u);
    ASSERT_EQ(RunToEnd(e, [&](auto done) { a->Drain(std::move(done)); }), Status::kOk);
  }
  auto b = make("b");
  ASSERT_EQ(RunToEnd(e, [&](auto done) { b->Recover(std::move(done)); }), Status::kOk);
  EXPECT_GT(b->recovered_segments(), 0u);
  EXPECT_EQ(b->skipped_segments(), 0u);
  EXPECT_EQ(WrongBlocks(e, *b, image), 0u);
  EXPECT_EQ(b->log_stats().cleaner_bytes_read, 0u);  // read from the index, not scanned again
  // The recovered log goes on: more overwrites, the cleaner running.
  const std::uint64_t blocks = b->Size() / kBlock;
  for (int i = 0; i < 600; ++i) WriteBlocks(e, *b, image, rng() % blocks, 1, 3);
  EXPECT_GT(b->log_stats().segments_cleaned, 10u);
  EXPECT_EQ(WrongBlocks(e, *b, image), 0u);
  ASSERT_EQ(RunToEnd(e, [&](auto done) { b->Drain(std::move(done)); }), Status::kOk);
  b.reset();

  // A torn segment write: one data block of segment 0 damaged. Recovery
  // skips that segment (its data CRC fails) and keeps the others.
  auto c = make("c");
  ASSERT_EQ(RunToEnd(e, [&](auto done) { c->Recover(std::move(done)); }), Status::kOk);
  const std::uint32_t whole = c->recovered_segments();
  EXPECT_EQ(whole, 12u);  // every slot was written at least once
  c.reset();
  std::vector<std::byte> garbage(kBlock, std::byte{0xee});
  ASSERT_EQ(Do(e, cap, IoOp::kWrite, 1 * kBlock, kBlock, garbage.data()), Status::kOk);
  auto d = make("d");
  ASSERT_EQ(RunToEnd(e, [&](auto done) { d->Recover(std::move(done)); }), Status::kOk);
  EXPECT_EQ(d->skipped_segments(), 1u);
  EXPECT_EQ(d->recovered_segments(), whole - 1);
  // A target that has taken requests refuses to recover.
  std::vector<std::byte> one(kBlock);
  ASSERT_EQ(Do(e, *d, IoOp::kWrite, 0, kBlock, one.data()), Status::kOk);
  EXPECT_EQ(RunToEnd(e, [&](auto done) { d->Recover(std::move(done)); }), Status::kInvalid);
}

// Requests that arrive while Recover() rebuilds the index are refused
// (kInvalid) and change nothing: before, a write took a slot whose index
// entry the recovered segments then overwrote.
TEST(LogStructuredTarget, RequestsDuringRecoveryAreRefused) {
  SimEngine e;
  RamDevice nvram(e, "nvram", kRecoveryNvramBytes);
  RamDevice cap(e, "cap", 12 * kRecoverySegmentBytes);
  auto make = [&](const char* name) { return LogOverLentDevices(e, nvram, cap, name); };
  std::vector<std::byte> image;
  {
    auto a = make("a");
    ASSERT_EQ(RunToEnd(e, [&](auto done) { a->Recover(std::move(done)); }), Status::kOk);
    image.resize(a->Size());
    WriteBlocks(e, *a, image, 0, 100, 1);
    ASSERT_EQ(RunToEnd(e, [&](auto done) { a->Drain(std::move(done)); }), Status::kOk);
  }
  auto b = make("b");
  Status recovered = Status::kShutdown;
  b->Recover([&](Status st) { recovered = st; });
  std::vector<std::byte> other(kBlock, std::byte{0x77});
  Status write = Status::kShutdown;
  Status read = Status::kShutdown;
  std::vector<std::byte> got(kBlock);
  b->Submit({IoOp::kWrite, 0, 0, kBlock, other.data()}, [&](Status st) { write = st; });
  b->Submit({IoOp::kRead, 0, kBlock, kBlock, got.data()}, [&](Status st) { read = st; });
  e.Run();
  EXPECT_EQ(recovered, Status::kOk);
  EXPECT_EQ(write, Status::kInvalid);
  EXPECT_EQ(read, Status::kInvalid);
  EXPECT_EQ(b->log_stats().user_bytes_written, 0u);
  EXPECT_EQ(WrongBlocks(e, *b, image), 0u);  // block 0 is a's, not the refused write's
}

// Crash tests' block contents: the block number and the version of the
// write that put them there; version 0 (never written) is all zeros.
void FillVersion(std::byte* p, std::uint64_t block, std::uint64_t version) {
  std::memset(p, static_cast<int>(version & 0xff), kBlock);
  if (version == 0) return;
  std::memcpy(p, &block, 8);
  std::memcpy(p + 8, &version, 8);
}
// The version `p` holds of `block`, or ~0 if it holds no version of it.
std::uint64_t VersionOf(const std::byte* p, std::uint64_t block) {
  std::vector<std::byte> want(kBlock);
  std::uint64_t version = 0;
  std::uint64_t b = 0;
  std::memcpy(&b, p, 8);
  std::memcpy(&version, p + 8, 8);
  if (b != block) version = 0;
  FillVersion(want.data(), block, version);
  return std::memcmp(p, want.data(), kBlock) == 0 ? version : ~0ull;
}

// What the crash test expects of each block: the version its last
// acknowledged write left, or a newer one whose write was in flight at the
// crash (it may have landed: a write is not atomic across blocks).
struct CrashExpectation {
  std::vector<std::uint64_t> acknowledged;
  std::vector<std::uint64_t> in_flight;  // 0: none
};

// Writes of 1-4 blocks at `depth` in flight (never two to one block at
// once), each acknowledged into `x` as it completes, until `until`.
class VersionedWriter {
 public:
  VersionedWriter(Engine& e, BlockDevice& d, CrashExpectation& x, std::mt19937_64& rng,
                  std::uint64_t* version)
      : e_(e), d_(d), x_(x), rng_(rng), version_(version) {}
  void Run(int depth, Nanos until) {
    until_ = until;
    slots_.resize(depth);
    for (Slot& s : slots_) Issue(&s);
  }
  std::uint64_t acknowledged() const { return acknowledged_; }

 private:
  struct Slot {
    std::uint64_t first = 0, blocks = 0, version = 0;
    std::vector<std::byte> data;
  };
  void Issue(Slot* s) {
    if (e_.Now() >= until_) return;
    const std::uint64_t volume = x_.acknowledged.size();
    do {
      s->blocks = 1 + rng_() % 4;
      s->first = rng_() % (volume - s->blocks + 1);
    } while (Busy(s->first, s->blocks));
    s->version = ++*version_;
    s->data.resize(s->blocks * kBlock);
    for (std::uint64_t i = 0; i < s->blocks; ++i) {
      FillVersion(s->data.data() + i * kBlock, s->first + i, s->version);
      x_.in_flight[s->first + i] = s->version;
    }
    d_.Submit({IoOp::kWrite, 0, s->first * kBlock, s->blocks * kBlock, s->data.data()},
              [this, s](Status st) {
                ASSERT_EQ(st, Status::kOk);
                for (std::uint64_t i = 0; i < s->blocks; ++i) {
                  x_.acknowledged[s->first + i] = s->version;
                  x_.in_flight[s->first + i] = 0;
                }
                ++acknowledged_;
                Issue(s);
              });
  }
  bool Busy(std::uint64_t first, std::uint64_t blocks) const {
    for (std::uint64_t b = first; b < first + blocks; ++b) {
      if (x_.in_flight[b] != 0) return true;
    }
    return false;
  }
  Engine& e_;
  BlockDevice& d_;
  CrashExpectation& x_;
  std::mt19937_64& rng_;
  std::uint64_t* version_;
  Nanos until_ = 0;
  std::uint64_t acknowledged_ = 0;
  std::vector<Slot> slots_;
};

// SIGKILL in simulation: a log written at QD 8 with the cleaner running is
// crashed at a random moment (writes on their way to the NVRAM and to the
// disks land torn, or not at all; nothing completes after), a new target
// recovers from the devices, and every block holds its last acknowledged
// version or the one in flight; then the next round writes on and crashes
// again. Segment writes two at a time and a small NVRAM ring (512-byte
// units, so records wrap and pad) make segments commit out of order and
// records of uncommitted segments the only copy of acknowledged writes.
TEST(LogStructuredTarget, AcknowledgedWritesSurviveACrashAtAnyMoment) {
  SimEngine e;
  RamDevice nvram(e, "nvram", 96 * kKiB);
  RamDevice cap(e, "cap", 12 * kRecoverySegmentBytes);
  std::mt19937_64 rng(2026);
  CrashExpectation x;
  std::uint64_t version = 0;
  std::uint64_t acknowledged = 0, replayed = 0, records = 0, skipped = 0;
  const int rounds = 60;
  for (int round = 0; round < rounds; ++round) {
    testing::PowerSwitch power(rng());
    LogStructuredOptions o;
    o.segment_bytes = kRecoverySegmentBytes;
    o.usable = 0.6;
    o.cleaner_start = 0.75;
    o.segment_writes_in_flight = 2;
    o.log_id = 7;
    auto log = std::make_unique<LogStructuredTarget>(
        e, "log", std::make_unique<testing::PowerCutDevice>(e, nvram, power, 50'000),
        std::make_unique<testing::PowerCutDevice>(e, cap, power, 400'000), o);
    ASSERT_EQ(RunToEnd(e, [&](auto done) { log->Recover(std::move(done)); }), Status::kOk)
        << log->config_error() << log->recovery_error();
    replayed += log->replayed_blocks();
    records += log->nvram_records_found();
    skipped += log->skipped_segments();
    const std::uint64_t blocks = log->Size() / kBlock;
    if (round == 0) {
      x.acknowledged.assign(blocks, 0);
      x.in_flight.assign(blocks, 0);
    }
    std::uint64_t wrong = 0;
    std::vector<std::byte> buf(kBlock);
    for (std::uint64_t b = 0; b < blocks; ++b) {
      ASSERT_EQ(Do(e, *log, IoOp::kRead, b * kBlock, kBlock, buf.data()), Status::kOk);
      const std::uint64_t v = VersionOf(buf.data(), b);
      if (v != x.acknowledged[b] && (x.in_flight[b] == 0 || v != x.in_flight[b])) {
        if (++wrong <= 3) {
          ADD_FAILURE() << "round " << round << " block " << b << ": version " << v
                        << ", acknowledged " << x.acknowledged[b] << ", in flight "
                        << x.in_flight[b];
        }
      }
      x.acknowledged[b] = v;  // what the next crash must not lose
      x.in_flight[b] = 0;
    }
    ASSERT_EQ(wrong, 0u) << "round " << round;
    VersionedWriter w(e, *log, x, rng, &version);
    const Nanos cut_at = e.Now() + 2'000'000 + static_cast<Nanos>(rng() % 30'000'000);
    w.Run(8, cut_at);
    e.RunUntil(cut_at);
    power.Cut();
    e.Run();  // completions after the cut are dropped
    acknowledged += w.acknowledged();
  }
  // The rounds exercised what they are for: many acknowledged writes, and
  // recoveries that needed the NVRAM records.
  EXPECT_GT(acknowledged, 10'000u);
  EXPECT_GT(replayed, 100u);
  EXPECT_GT(records, replayed / 64);
  std::printf(
      "crash rounds %d: %llu writes acknowledged, %llu blocks replayed from NVRAM, "
      "%llu torn segments skipped\n",
      rounds, static_cast<unsigned long long>(acknowledged),
      static_cast<unsigned long long>(replayed), static_cast<unsigned long long>(skipped));
}

// A log's devices carry its id (the NVRAM label, every segment and
// record): a target with another id refuses them, and a log created on a
// new NVRAM over a reused capacity device ignores the old log's segments.
TEST(LogStructuredTarget, RecoveryKeepsToItsOwnLog) {
  SimEngine e;
  RamDevice nvram(e, "nvram", kRecoveryNvramBytes);
  RamDevice cap(e, "cap", 12 * kRecoverySegmentBytes);
  std::vector<std::byte> image;
  {
    auto a = LogOverLentDevices(e, nvram, cap, "a", 1);
    ASSERT_EQ(RunToEnd(e, [&](auto done) { a->Recover(std::move(done)); }), Status::kOk);
    image.resize(a->Size());
    WriteBlocks(e, *a, image, 0, 100, 1);  // three segments written, seven blocks in NVRAM only
  }
  auto same = LogOverLentDevices(e, nvram, cap, "same");  // id 0: the label's
  ASSERT_EQ(RunToEnd(e, [&](auto done) { same->Recover(std::move(done)); }), Status::kOk);
  EXPECT_EQ(same->log_id(), 1u);
  EXPECT_EQ(same->recovered_segments(), 3u);
  EXPECT_EQ(same->replayed_blocks(), 7u);
  EXPECT_EQ(WrongBlocks(e, *same, image), 0u);
  same.reset();

  auto other = LogOverLentDevices(e, nvram, cap, "other", 2);
  EXPECT_EQ(RunToEnd(e, [&](auto done) { other->Recover(std::move(done)); }), Status::kInvalid);
  EXPECT_NE(other->recovery_error().find("holds log 1"), std::string::npos)
      << other->recovery_error();

  RamDevice new_nvram(e, "nvram2", kRecoveryNvramBytes);
  std::vector<std::byte> fresh(image.size());
  {
    auto b = LogOverLentDevices(e, new_nvram, cap, "b");
    ASSERT_EQ(RunToEnd(e, [&](auto done) { b->Recover(std::move(done)); }), Status::kOk);
    EXPECT_NE(b->log_id(), 1u);
    EXPECT_EQ(b->recovered_segments(), 0u);
    EXPECT_EQ(WrongBlocks(e, *b, fresh), 0u);  // the old log's blocks are not this volume's
    WriteBlocks(e, *b, fresh, 50, 40, 2);      // one segment written over an old one, 9 in NVRAM
  }
  auto c = LogOverLentDevices(e, new_nvram, cap, "c");
  ASSERT_EQ(RunToEnd(e, [&](auto done) { c->Recover(std::move(done)); }), Status::kOk);
  EXPECT_EQ(c->recovered_segments(), 1u);
  EXPECT_EQ(c->replayed_blocks(), 9u);
  EXPECT_EQ(WrongBlocks(e, *c, fresh), 0u);
}

// Without buffers the target makes the same child requests as with them.
TEST(LogStructuredTarget, TimingOnlyMakesTheSameChildRequests) {
  auto drive = [](bool with_data) {
    SimEngine e;
    auto log = SmallLog(e, 12, 256 * kKiB, 0.7);
    std::mt19937_64 rng(9);
    const std::uint64_t blocks = log->Size() / kBlock;
    std::vector<std::byte> buf(8 * kBlock, std::byte{3});
    for (int i = 0; i < 600; ++i) {
      const std::uint64_t len = 1 + rng() % 8;
      const std::uint64_t b = rng() % (blocks - len);
      const IoOp op = rng() % 3 == 0 ? IoOp::kRead : IoOp::kWrite;
      EXPECT_EQ(Do(e, *log, op, b * kBlock, len * kBlock, with_data ? buf.data() : nullptr),
                Status::kOk);
    }
    return std::vector<DeviceStats>{log->nvram().stats(), log->capacity().stats()};
  };
  const auto with = drive(true);
  const auto without = drive(false);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(with[i].read_ops, without[i].read_ops) << i;
    EXPECT_EQ(with[i].read_bytes, without[i].read_bytes) << i;
    EXPECT_EQ(with[i].write_ops, without[i].write_ops) << i;
    EXPECT_EQ(with[i].write_bytes, without[i].write_bytes) << i;
  }
  EXPECT_GT(with[1].read_ops, 0u);
  EXPECT_GT(with[1].write_ops, 12u);
}

// 100 segments of 256 KiB (1 header block, 63 data slots), 80% usable,
// the cleaner keeping 3 free: the geometry the figures below work out.
std::unique_ptr<LogStructuredTarget> HundredSegmentLog(Engine& e) {
  LogStructuredOptions o;
  o.segment_bytes = 256 * kKiB;
  o.usable = 0.8;
  o.cleaner_start = 0.97;
  o.segment_writes_in_flight = 1;
  return std::make_unique<LogStructuredTarget>(
      e, "log", std::make_unique<RamDevice>(e, "nvram", 4 * kMiB),
      std::make_unique<RamDevice>(e, "cap", 100 * o.segment_bytes), o);
}

// 4 KiB timing-only writes, 8 in flight: the volume once in order, then at
// uniform random blocks.
class Overwriter {
 public:
  Overwriter(SimEngine& e, BlockDevice& d) : e_(e), d_(d), blocks_(d.Size() / kBlock) {}
  void Run(std::uint64_t writes) {
    target_ = issued_ + writes;
    for (int i = 0; i < 8; ++i) Next();
    e_.Run();
    EXPECT_EQ(completed_, issued_);
  }
  void SkipFill() { issued_ = completed_ = blocks_; }

 private:
  void Next() {
    if (issued_ >= target_) return;
    const std::uint64_t b = issued_ < blocks_ ? issued_ : rng_() % blocks_;
    ++issued_;
    d_.Submit({IoOp::kWrite, 0, b * kBlock, kBlock, nullptr}, [this](Status st) {
      EXPECT_EQ(st, Status::kOk);
      ++completed_;
      Next();
    });
  }
  SimEngine& e_;
  BlockDevice& d_;
  std::uint64_t blocks_;
  std::mt19937_64 rng_{3};
  std::uint64_t issued_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t target_ = 0;
};

// Blocks copied forward plus user blocks, per user block, over `writes`.
double CleanerWa(LogStructuredTarget& log, Overwriter& w, std::uint64_t writes) {
  const LogStructuredStats before = log.log_stats();
  w.Run(writes);
  const LogStructuredStats after = log.log_stats();
  const double user = static_cast<double>(after.user_bytes_written - before.user_bytes_written);
  const double copied =
      static_cast<double>(after.cleaner_bytes_written - before.cleaner_bytes_written);
  return (user + copied) / user;
}

// Uniform random 4 KiB overwrites of a full volume, timing-only, against
// the back-of-envelope for a greedy cleaner: in the large-segment limit of
// the greedy analysis, WA = (1 + r) / (2 r), r the spare factor (slots the
// data can spread over / live blocks - 1). The volume is 5040 blocks; of
// the 100 segments of 63 slots the cleaner keeps about 3 free (counting
// victims whose copies are about to commit) and one is open, half full on
// average: the data spreads over about 96.5 segments, r = 96.5 * 63 / 5040
// - 1 = 0.206, WA = 2.93; with r uncertain by a segment either way, 2.79
// to 3.08. Measured: 2.99 for data blocks, 3.04 with the header block
// (2.81 when the cleaner read live blocks only: how long a victim's slots
// take to come free moves the free space the data has). Tolerance: 2.93
// +- 0.17, the band above. (It catches a cleaner that copies dead blocks or
// misses live ones, not greedy against FIFO: under uniform writes FIFO's
// v = exp(-(1 - v) / u), WA = 1 / (1 - v) is 3.0 here, too close.)
constexpr double kGreedyWa = 2.93;
constexpr double kGreedyWaBand = 0.17;

TEST(LogStructuredTarget, WriteAmplificationUnderRandomOverwritesIsGreedys) {
  SimEngine e;
  auto log = HundredSegmentLog(e);
  ASSERT_TRUE(log->config_error().empty()) << log->config_error();
  const std::uint64_t blocks = log->Size() / kBlock;
  ASSERT_EQ(blocks, 5040u);
  Overwriter w(e, *log);
  w.Run(blocks);
  w.Run(10 * blocks);  // reach steady state
  const LogStructuredStats before = log->log_stats();
  const double wa = CleanerWa(*log, w, 10 * blocks);
  const LogStructuredStats after = log->log_stats();
  EXPECT_NEAR(wa, kGreedyWa, kGreedyWaBand);
  std::printf("greedy cleaner WA %.3f\n", wa);
  // What reached the disks: the same plus one header block in 64.
  const double segment_wa =
      static_cast<double>(after.segment_bytes_written - before.segment_bytes_written) /
      static_cast<double>(after.user_bytes_written - before.user_bytes_written);
  EXPECT_NEAR(segment_wa, wa * 64.0 / 63.0, 0.1);
  EXPECT_EQ(after.segments_sealed_early, 0u);
}

// Functional warming leaves the log as the same writes run in time would:
// the whole volume mapped (reads reach the disks), no I/O done, and
// segments fragmented as the greedy cleaner leaves them: the warm's own
// placements (written and copied blocks) per write come to the greedy
// write amplification, and a timed run right after it cleans at that rate
// from its first writes (an unfragmented log, every segment full, would
// start far from it); discards warm by unmapping.
TEST(LogStructuredTarget, WarmLeavesTheStateTheWritesWouldLeave) {
  SimEngine e;
  auto log = HundredSegmentLog(e);
  const std::uint64_t blocks = log->Size() / kBlock;
  std::uint64_t placed = 0;
  for (std::uint64_t b = 0; b < blocks; b += 16) {
    placed += log->Warm({IoOp::kWrite, 0, b * kBlock, 16 * kBlock, nullptr});
  }
  EXPECT_EQ(placed, blocks);  // nothing to clean yet
  std::mt19937_64 rng(5);
  auto overwrite = [&](std::uint64_t writes) {
    std::uint64_t n = 0;
    for (std::uint64_t i = 0; i < writes; ++i) {
      n += log->Warm({IoOp::kWrite, 0, (rng() % blocks) * kBlock, kBlock, nullptr});
    }
    return static_cast<double>(n) / static_cast<double>(writes);
  };
  overwrite(10 * blocks);
  const double warm_wa = overwrite(10 * blocks);
  EXPECT_NEAR(warm_wa, kGreedyWa, kGreedyWaBand);
  std::printf("warmed cleaner WA %.3f\n", warm_wa);
  EXPECT_EQ(log->nvram().stats().write_ops + log->capacity().stats().write_ops, 0u);
  EXPECT_EQ(log->log_stats().user_bytes_written, 0u);  // the counters describe the run
  EXPECT_GE(log->free_segments() + 1, 3u);             // the cleaner's 3, less the open one

  // Reads of the volume reach the capacity device, except the open
  // segment's blocks (at most 62), which are in memory.
  std::uint64_t read_blocks_done = 0;
  for (std::uint64_t b = 0; b < blocks; b += 16) {
    log->Submit({IoOp::kRead, 0, b * kBlock, 16 * kBlock, nullptr},
                [&](Status st) { read_blocks_done += st == Status::kOk ? 16 : 0; });
  }
  e.Run();
  EXPECT_EQ(read_blocks_done, blocks);
  EXPECT_GE(log->capacity().stats().read_bytes, (blocks - 62) * kBlock);

  Overwriter w(e, *log);
  w.SkipFill();
  const double wa = CleanerWa(*log, w, 2 * blocks);
  EXPECT_NEAR(wa, kGreedyWa, kGreedyWaBand);
  std::printf("cleaner WA over the first 2 volumes after warming %.3f\n", wa);

  // A warmed discard unmaps: its blocks read zeros without I/O.
  log->Warm({IoOp::kDiscard, 0, 0, 64 * kBlock, nullptr});
  const std::uint64_t reads_before = log->capacity().stats().read_ops;
  EXPECT_EQ(Do(e, *log, IoOp::kRead, 0, 64 * kBlock, nullptr), Status::kOk);
  EXPECT_EQ(log->capacity().stats().read_ops, reads_before);
}

}  // namespace
}  // namespace tierlab
