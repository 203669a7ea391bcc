// Per-format reader tests on small fixtures in tests/data/traces: exact
// records, "file:line:" errors, skip_bad counts.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "bench/trace/TraceFactory.h"
#include "tests/bench/trace/TraceTestUtil.h"

namespace tierlab {
namespace {

TraceRecord Rec(Nanos t, IoOp op, std::uint64_t offset, std::uint32_t length) {
  return TraceRecord{t, op, offset, length};
}

TEST(FioIologReaderTest, Version2AccumulatesWaitsInMicroseconds) {
  ReadResult r = ReadAll(Fixture("fio-v2.iolog"), {.format = TraceFormat::kFioIologV2});
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kWrite, 0, 4096),
      Rec(1000 * kMicro, IoOp::kRead, 8192, 512),
      Rec(1000 * kMicro, IoOp::kDiscard, 1048576, 65536),
      Rec(1000 * kMicro, IoOp::kFlush, 0, 0),
  };
  EXPECT_EQ(r.records, want);
}

TEST(FioIologReaderTest, Version3TimestampsAreMicrosecondsRelativeToFirstRecord) {
  ReadResult r = ReadAll(Fixture("fio-v3.iolog"));  // detected
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kWrite, 0, 16384),
      Rec(10 * kMicro, IoOp::kRead, 4096, 4096),
      Rec(622 * kMicro, IoOp::kDiscard, 65536, 8192),
      Rec(1122 * kMicro, IoOp::kFlush, 0, 0),
  };
  EXPECT_EQ(r.records, want);
}

TEST(FioIologReaderTest, MalformedLineNamesFileAndLine) {
  std::string path = Fixture("fio-v3-bad.iolog");
  ReadResult r = ReadAll(path);
  EXPECT_EQ(r.error, path + ":4: bad offset 'abc'");
  ASSERT_EQ(r.records.size(), 1u);
}

TEST(FioIologReaderTest, SkipBadCountsAndSkips) {
  ReadResult r = ReadAll(Fixture("fio-v3-bad.iolog"), {.skip_bad = true});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.bad, 3u);  // bad offset, unknown action, missing timestamp
  std::vector<TraceRecord> want = {Rec(0, IoOp::kWrite, 0, 4096),
                                   Rec(30 * kMicro, IoOp::kRead, 8192, 4096)};
  EXPECT_EQ(r.records, want);
}

TEST(FioIologReaderTest, WrongVersionHeaderIsFatalEvenWithSkipBad) {
  std::string path = Fixture("fio-v3.iolog");
  ReadResult r = ReadAll(path, {.format = TraceFormat::kFioIologV2, .skip_bad = true});
  EXPECT_EQ(r.error, path + ":1: expected the header 'fio version 2 iolog'");
}

TEST(BlkparseReaderTest, DefaultActionIsDispatch) {
  ReadResult r = ReadAll(Fixture("blkparse.txt"));
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kWrite, 223490ull * 512, 4096),
      Rec(1'098'000, IoOp::kRead, 1000 * 512, 8192),
      Rec(1'998'000, IoOp::kFlush, 0, 0),
      Rec(2'998'000, IoOp::kDiscard, 4096 * 512, 256 * 512),
  };
  EXPECT_EQ(r.records, want);
}

TEST(BlkparseReaderTest, QueueAndCompleteActions) {
  ReadResult q = ReadAll(Fixture("blkparse.txt"), {.blkparse_action = 'Q'});
  ASSERT_EQ(q.error, "");
  std::vector<TraceRecord> want_q = {Rec(0, IoOp::kWrite, 223490ull * 512, 4096),
                                     Rec(1'000'000, IoOp::kRead, 512000, 8192)};
  EXPECT_EQ(q.records, want_q);
  ReadResult c = ReadAll(Fixture("blkparse.txt"), {.blkparse_action = 'C'});
  ASSERT_EQ(c.error, "");
  std::vector<TraceRecord> want_c = {Rec(0, IoOp::kWrite, 223490ull * 512, 4096),
                                     Rec(3'950'000, IoOp::kRead, 512000, 8192)};
  EXPECT_EQ(c.records, want_c);
}

TEST(BlkparseReaderTest, InvalidActionOptionIsRejected) {
  auto reader = OpenTrace(Fixture("blkparse.txt"), {.blkparse_action = 'X'});
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().message.find("Q, D or C"), std::string::npos);
}

TEST(BlkparseReaderTest, BadLinesErrorOrSkip) {
  std::string path = Fixture("blkparse-bad.txt");
  ReadResult r = ReadAll(path, {.format = TraceFormat::kBlkparse});
  EXPECT_EQ(r.error, path + ":2: bad time '0.000abc000'");
  ReadResult s = ReadAll(path, {.format = TraceFormat::kBlkparse, .skip_bad = true});
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.bad, 2u);
  std::vector<TraceRecord> want = {Rec(0, IoOp::kWrite, 51200, 4096),
                                   Rec(200'000'000, IoOp::kWrite, 153600, 4096)};
  EXPECT_EQ(s.records, want);
}

TEST(MsrCsvReaderTest, RecordsErrorsAndDiskStride) {
  std::string path = Fixture("msr-bad.csv");
  ReadResult r = ReadAll(path, {.format = TraceFormat::kMsrCsv});
  EXPECT_EQ(r.error, path + ":2: bad Type 'Rread' (valid: Read, Write)");
  ReadResult s = ReadAll(path, {.format = TraceFormat::kMsrCsv, .skip_bad = true});
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.bad, 2u);
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kWrite, 9056014336ull, 2048),
      Rec((128166385295515300ull - 128166385295514663ull) * 100, IoOp::kRead,
          4096 + kTraceDeviceStride, 4096),
  };
  EXPECT_EQ(s.records, want);
}

TEST(MsrCsvReaderTest, FieldCountError) {
  std::string path = Fixture("msr-bad.csv");
  std::istringstream text("128166385295515175,hm,0,Write,5548077056\n");
  auto reader = OpenTrace(std::make_unique<std::istringstream>(text.str()), "mem.csv",
                          {.format = TraceFormat::kMsrCsv});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  auto more = (*reader)->Next(&rec);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().message,
            "mem.csv:1: expected 7 fields Timestamp,Hostname,DiskNumber,Type,Offset,Size,"
            "ResponseTime, got 5");
}

TEST(SpcCsvReaderTest, LbaUnitAsuAndSeconds) {
  ReadResult r = ReadAll(Fixture("spc.csv"));
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kWrite, 303567ull * 512, 3584),
      Rec(286'000, IoOp::kRead, 303575ull * 512, 512),
      Rec(73'786'000, IoOp::kRead, 100 * 512 + kTraceDeviceStride, 4096),
      Rec(173'786'000, IoOp::kWrite, 55 * 512, 1024),
  };
  EXPECT_EQ(r.records, want);
  ReadResult k = ReadAll(Fixture("spc.csv"), {.lba_unit = 4096});
  ASSERT_EQ(k.records.size(), 4u);
  EXPECT_EQ(k.records[0].offset, 303567ull * 4096);
}

TEST(SpcCsvReaderTest, BadLines) {
  std::string path = Fixture("spc-bad.csv");
  ReadResult r = ReadAll(path, {.format = TraceFormat::kSpcCsv});
  EXPECT_EQ(r.error, path + ":2: bad LBA 'abc'");
  ReadResult s = ReadAll(path, {.format = TraceFormat::kSpcCsv, .skip_bad = true});
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.bad, 3u);
  EXPECT_EQ(s.records.size(), 2u);
}

TEST(SpcCsvReaderTest, AFieldWithControlBytesIsQuotedOnOneLine) {
  // A terminal escape in a field must not reach the terminal through the
  // error message.
  auto in = std::make_unique<std::istringstream>("0,\x1b[31m12,4096,r,0.0\n");
  ReadResult r = ReadAll(OpenTrace(std::move(in), "t.csv", {.format = TraceFormat::kSpcCsv}));
  EXPECT_EQ(r.error, "t.csv:1: bad LBA '?[31m12'");
}

TEST(Systor17CsvReaderTest, UnsortedTimesClampedByDefault) {
  ReadResult r = ReadAll(Fixture("systor17.csv"));
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kRead, 899056122368ull, 131072),
      Rec(0, IoOp::kRead, 4256049987072ull, 122880),
      Rec(66'924'000, IoOp::kWrite, 4096 + kTraceDeviceStride, 4096),
  };
  EXPECT_EQ(r.records, want);
  EXPECT_EQ(r.reordered, 1u);
}

TEST(Systor17CsvReaderTest, KeepOrderGivesNegativeRelativeTimes) {
  ReadResult r = ReadAll(Fixture("systor17.csv"), {.order = TimestampOrder::kKeep});
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[1].timestamp, -6'791'000);
  EXPECT_EQ(r.reordered, 0u);
}

TEST(Systor17CsvReaderTest, WrongHeaderIsFatal) {
  std::string path = Fixture("systor17-badheader.csv");
  ReadResult r = ReadAll(path, {.format = TraceFormat::kSystor17Csv, .skip_bad = true});
  EXPECT_EQ(r.error, path + ":1: expected the header 'Timestamp,Response,IOType,LUN,Offset,Size'");
}

TEST(VscsiReaderTest, Version2Records) {
  ReadResult r = ReadAll(Fixture("vscsi-v2.bin"));
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kRead, 100 * 512, 4096),
      Rec(500 * kMicro, IoOp::kWrite, 200 * 512, 8192),
      Rec(2000 * kMicro, IoOp::kFlush, 0, 0),
  };
  EXPECT_EQ(r.records, want);
}

TEST(VscsiReaderTest, UnsupportedCommandNamesRecord) {
  std::string path = Fixture("vscsi-v1-badcmd.bin");
  ReadResult r = ReadAll(path);
  EXPECT_EQ(r.error, path + ": record 1: unsupported SCSI command 0x12");
  ReadResult s = ReadAll(path, {.skip_bad = true});
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.bad, 1u);
  std::vector<TraceRecord> want = {Rec(0, IoOp::kRead, 8 * 512, 512),
                                   Rec(20 * kMicro, IoOp::kWrite, 16 * 512, 1024)};
  EXPECT_EQ(s.records, want);
}

TEST(VscsiReaderTest, TruncatedRecordIsFatal) {
  std::ifstream in(Fixture("vscsi-v2.bin"), std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  data.resize(data.size() - 7);
  auto reader = OpenTrace(std::make_unique<std::istringstream>(data), "cut.vscsi",
                          {.format = TraceFormat::kVscsi, .skip_bad = true});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  int n = 0;
  Expected<bool> more = true;
  while ((more = (*reader)->Next(&rec)).ok() && *more) ++n;
  EXPECT_EQ(n, 2);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().message, "cut.vscsi: record 2: truncated at byte 80: 33 of 40 bytes");
}

TEST(VscsiReaderTest, NotVscsiIsRejected) {
  std::string junk(64, '\x7f');
  auto reader = OpenTrace(std::make_unique<std::istringstream>(junk), "junk",
                          {.format = TraceFormat::kVscsi});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  auto more = (*reader)->Next(&rec);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.error().message.find("junk: not a vscsi trace"), std::string::npos);
}

TEST(TierlabBinaryReaderTest, Records) {
  ReadResult r = ReadAll(Fixture("tierlab.bin"));
  ASSERT_EQ(r.error, "");
  std::vector<TraceRecord> want = {
      Rec(0, IoOp::kRead, 0, 4096),
      Rec(1000, IoOp::kWrite, 8192, 512),
      Rec(5000, IoOp::kFlush, 0, 0),
      Rec(9000, IoOp::kDiscard, 1 << 20, 65536),
  };
  EXPECT_EQ(r.records, want);
}

TEST(TierlabBinaryReaderTest, HeaderCountMismatchAndBadOp) {
  std::ifstream in(Fixture("tierlab.bin"), std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string short_file = data.substr(0, 32 + 24 * 3);
  auto reader = OpenTrace(std::make_unique<std::istringstream>(short_file), "t.bin", {});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  Expected<bool> more = true;
  int n = 0;
  while ((more = (*reader)->Next(&rec)).ok() && *more) ++n;
  EXPECT_EQ(n, 3);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().message,
            "t.bin: truncated: the header promises 4 records, the file holds 3");

  std::string bad_op = data;
  bad_op[32 + 24 + 20] = 9;
  reader = OpenTrace(std::make_unique<std::istringstream>(bad_op), "t.bin", {});
  ASSERT_TRUE(reader.ok());
  more = (*reader)->Next(&rec);
  ASSERT_TRUE(more.ok() && *more);
  more = (*reader)->Next(&rec);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().message, "t.bin: record 1: bad op 9");
  EXPECT_EQ(more.error().kind, ErrorKind::kInput);
}

TEST(TraceReaderTest, MissingFileIsAnInputError) {
  auto reader = OpenTrace(Fixture("does-not-exist.csv"), {.format = TraceFormat::kMsrCsv});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().kind, ErrorKind::kInput);
  EXPECT_NE(reader.error().message.find("does-not-exist.csv: cannot open"), std::string::npos);
}

TEST(TraceReaderTest, CrlfLinesAndMissingFinalNewline) {
  std::string text = "0,1,512,r,0.5\r\n0,2,512,w,1.5";
  auto reader = OpenTrace(std::make_unique<std::istringstream>(text), "crlf.csv",
                          {.format = TraceFormat::kSpcCsv});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  ASSERT_TRUE(*(*reader)->Next(&rec));
  EXPECT_EQ(rec, Rec(0, IoOp::kRead, 512, 512));
  ASSERT_TRUE(*(*reader)->Next(&rec));
  EXPECT_EQ(rec, Rec(kSecond, IoOp::kWrite, 1024, 512));
  EXPECT_FALSE(*(*reader)->Next(&rec));
}

// The buffer size is a reader option (fuzzers use small ones): any size,
// including ones that divide no record size, reads the same records and
// the same errors as the default 1 MiB, for every fixture.
TEST(TraceReaderTest, SmallBuffersReadTheSameRecordsAndErrors) {
  for (const char* name :
       {"blkparse.txt", "blkparse-bad.txt", "fio-v2.iolog", "fio-v3.iolog", "fio-v3-bad.iolog",
        "msr-cambridge1-sample.csv", "msr-bad.csv", "spc.csv", "spc-bad.csv",
        "systor17-traces-sample.csv", "systor17.csv", "tierlab.bin", "vscsi-v2.bin",
        "vscsi-v1-badcmd.bin", "cloudPhysicsIO.vscsi"}) {
    const ReadResult big = ReadAll(Fixture(name));
    ASSERT_FALSE(big.records.empty() && big.error.empty()) << name;
    // 97 and 130 divide no record size; text fixtures have lines up to 80
    // bytes, so 64 (the minimum) only for the binary ones.
    std::vector<std::size_t> buffers = {97, 130, 4096};
    const std::string n = name;
    if (n.ends_with(".bin") || n.ends_with(".vscsi")) buffers.push_back(kMinTraceBuffer);
    for (std::size_t buffer : buffers) {
      const ReadResult small = ReadAll(Fixture(name), {.buffer_bytes = buffer});
      EXPECT_EQ(small.error, big.error) << name << " buffer " << buffer;
      ASSERT_EQ(small.records.size(), big.records.size()) << name << " buffer " << buffer;
      EXPECT_TRUE(small.records == big.records) << name << " buffer " << buffer;
    }
  }
}

TEST(TraceReaderTest, LinesLongerThanTheBufferAndTinyBuffers) {
  // A line longer than the buffer is an error naming the line.
  const std::string text = "0,1,512,r,0.5\n0,2,512,w,1.5" + std::string(100, ' ') + "\n";
  auto reader = OpenTrace(std::make_unique<std::istringstream>(text), "long.csv",
                          {.format = TraceFormat::kSpcCsv, .buffer_bytes = 64});
  ASSERT_TRUE(reader.ok());
  TraceRecord rec;
  ASSERT_TRUE(*(*reader)->Next(&rec));
  auto second = (*reader)->Next(&rec);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("long.csv:2: line too long"), std::string::npos)
      << second.error().message;
  // Below the minimum: an option error, not a reader that cannot hold a header.
  auto tiny = OpenTrace(Fixture("tierlab.bin"), {.buffer_bytes = 8});
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message.find("buffer_bytes"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
