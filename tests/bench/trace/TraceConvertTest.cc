// Format detection, writers and conversion round trips.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <vector>

#include "bench/trace/TraceConvert.h"
#include "bench/trace/TraceFactory.h"
#include "tests/bench/trace/TraceTestUtil.h"

namespace tierlab {
namespace {

namespace fs = std::filesystem;

std::vector<TraceRecord> ReadRecords(const std::string& path, TraceOptions options = {}) {
  std::vector<TraceRecord> out;
  auto reader = OpenTrace(path, options);
  EXPECT_TRUE(reader.ok()) << (reader.ok() ? "" : reader.error().message);
  if (!reader.ok()) return out;
  TraceRecord r;
  for (;;) {
    auto more = (*reader)->Next(&r);
    EXPECT_TRUE(more.ok()) << (more.ok() ? "" : more.error().message);
    if (!more.ok() || !*more) break;
    out.push_back(r);
  }
  return out;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("tierlab-trace-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

TEST(DetectTraceFormatTest, EveryFixtureIsDetected) {
  struct Case {
    const char* file;
    TraceFormat want;
  } cases[] = {
      {"fio-v2.iolog", TraceFormat::kFioIologV2},
      {"fio-v3.iolog", TraceFormat::kFioIologV3},
      {"blkparse.txt", TraceFormat::kBlkparse},
      {"msr-cambridge1-sample.csv", TraceFormat::kMsrCsv},
      {"spc.csv", TraceFormat::kSpcCsv},
      {"systor17-traces-sample.csv", TraceFormat::kSystor17Csv},
      {"cloudPhysicsIO.vscsi", TraceFormat::kVscsi},
      {"vscsi-v2.bin", TraceFormat::kVscsi},
      {"tierlab.bin", TraceFormat::kTierlabBin},
      // Compressed: the format of the decompressed content.
      {"fio-v3-members.iolog.gz", TraceFormat::kFioIologV3},
      {"msr-cambridge1-sample.csv.zst", TraceFormat::kMsrCsv},
      {"vscsi-v2.bin.xz", TraceFormat::kVscsi},
  };
  for (const Case& c : cases) {
    auto f = DetectTraceFormat(Fixture(c.file));
    ASSERT_TRUE(f.ok()) << c.file << ": " << f.error().message;
    EXPECT_EQ(*f, c.want) << c.file << " detected as " << ToString(*f);
  }
}

TEST(DetectTraceFormatTest, UnknownContentIsAnErrorListingFormats) {
  auto f = DetectTraceFormat("hello world\nthis is not a trace\n", "notes.txt");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().kind, ErrorKind::kInput);
  EXPECT_NE(f.error().message.find("notes.txt: cannot detect the trace format"), std::string::npos);
  EXPECT_NE(f.error().message.find("systor17"), std::string::npos);
}

TEST(TraceFormatTest, NamesRoundTrip) {
  for (TraceFormat f : {TraceFormat::kAuto, TraceFormat::kFioIologV2, TraceFormat::kFioIologV3,
                        TraceFormat::kBlkparse, TraceFormat::kMsrCsv, TraceFormat::kSpcCsv,
                        TraceFormat::kSystor17Csv, TraceFormat::kVscsi, TraceFormat::kTierlabBin,
                        TraceFormat::kKeysU32, TraceFormat::kKeysU64}) {
    EXPECT_EQ(ParseTraceFormat(ToString(f)), f);
  }
  EXPECT_EQ(TraceFormatNames().size(), 11u);
  EXPECT_EQ(TraceFormatNames().front(), "auto");
  EXPECT_FALSE(ParseTraceFormat("csv").has_value());
}

// X -> tierlab binary -> records identical to reading X directly.
TEST(ConvertTraceTest, EveryFormatRoundTripsThroughTierlabBinary) {
  TempDir dir;
  for (const char* file :
       {"fio-v2.iolog", "fio-v3.iolog", "blkparse.txt", "msr-cambridge1-sample.csv", "spc.csv",
        "systor17-traces-sample.csv", "cloudPhysicsIO.vscsi", "vscsi-v2.bin", "tierlab.bin",
        "msr-cambridge1-sample.csv.gz", "systor17-streams.csv.xz"}) {
    std::vector<TraceRecord> direct = ReadRecords(Fixture(file));
    ASSERT_FALSE(direct.empty()) << file;
    std::string out = dir.File(std::string(file) + ".tl");
    auto s = ConvertTrace(Fixture(file), {}, out, TraceFormat::kTierlabBin);
    ASSERT_TRUE(s.ok()) << file << ": " << s.error().message;
    EXPECT_EQ(s->records, direct.size()) << file;
    EXPECT_EQ(fs::file_size(out), 32 + 24 * direct.size()) << file;
    EXPECT_EQ(ReadRecords(out), direct) << file;
  }
}

// tierlab binary -> fio v3 / MSR CSV -> back, for records those formats can
// hold exactly (microsecond and 100 ns times; MSR: reads and writes only).
TEST(ConvertTraceTest, TextWritersRoundTrip) {
  TempDir dir;
  std::vector<TraceRecord> fio_records = ReadRecords(Fixture("fio-v3.iolog"));
  std::string tl = dir.File("fio.tl");
  ASSERT_TRUE(ConvertTrace(Fixture("fio-v3.iolog"), {}, tl, TraceFormat::kTierlabBin).ok());
  std::string fio = dir.File("back.iolog");
  auto s = ConvertTrace(tl, {}, fio, TraceFormat::kFioIologV3);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(ReadRecords(fio), fio_records);

  std::vector<TraceRecord> msr_records = ReadRecords(Fixture("msr-cambridge1-sample.csv"));
  std::string msr_tl = dir.File("msr.tl");
  ASSERT_TRUE(
      ConvertTrace(Fixture("msr-cambridge1-sample.csv"), {}, msr_tl, TraceFormat::kTierlabBin)
          .ok());
  std::string msr = dir.File("back.csv");
  s = ConvertTrace(msr_tl, {}, msr, TraceFormat::kMsrCsv);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(ReadRecords(msr), msr_records);
}

TEST(ConvertTraceTest, MsrCannotHoldFlushes) {
  TempDir dir;
  auto s = ConvertTrace(Fixture("tierlab.bin"), {}, dir.File("x.csv"), TraceFormat::kMsrCsv);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir.File("x.csv") + ": record 2: MSR CSV cannot hold a flush");
}

TEST(ConvertTraceTest, UnwritableFormatIsRejected) {
  TempDir dir;
  auto s = ConvertTrace(Fixture("spc.csv"), {}, dir.File("x"), TraceFormat::kBlkparse);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("valid: tierlab, fio-v3, msr"), std::string::npos);
}

TEST(TraceWriterTest, NonSeekableTierlabOutputReadsToTheEnd) {
  // A pipe-like output: the count stays "unknown" and readers take every record.
  std::vector<TraceRecord> recs = {{0, IoOp::kRead, 0, 4096}, {7, IoOp::kWrite, 4096, 512}};
  auto* sink = new std::ostringstream;
  std::unique_ptr<std::ostream> out(sink);
  auto w = CreateTraceWriter(std::move(out), "mem", TraceFormat::kTierlabBin);
  ASSERT_TRUE(w.ok());
  for (const auto& r : recs) ASSERT_TRUE((*w)->Write(r).ok());
  ASSERT_TRUE((*w)->Close().ok());
  std::string bytes = sink->str();
  ASSERT_EQ(bytes.size(), 32u + 48u);
  auto reader = OpenTrace(std::make_unique<std::istringstream>(bytes), "mem", {});
  ASSERT_TRUE(reader.ok());
  std::vector<TraceRecord> back;
  TraceRecord r;
  while (*(*reader)->Next(&r)) back.push_back(r);
  EXPECT_EQ(back, recs);
}

}  // namespace
}  // namespace tierlab
