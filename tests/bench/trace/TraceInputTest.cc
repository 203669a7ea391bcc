// Compressed traces and non-seekable input (bench/trace/TraceInput.h and the
// decompressing streambufs): the same records as the plain trace for every
// codec and buffer size, multi-member gzip, concatenated zstd frames and xz
// streams, and one-line "name: codec: why" input errors for truncated,
// damaged or too memory-hungry streams.
//
// The compressed fixtures in tests/data/traces were made with the Debian
// tools from the plain fixtures beside them:
//   gzip -9nc F > F.gz; zstd -19 -q -c F > F.zst; xz -9 -c F > F.xz
//     (F = msr-cambridge1-sample.csv, vscsi-v2.bin; zstd only: keys-u32.bin)
//   fio-v3-members.iolog.gz: lines 1-3 and 4- of fio-v3.iolog, one gzip member each
//   spc-frames.csv.zst: lines 1-2 and 3- of spc.csv, one zstd frame each
//   systor17-streams.csv.xz: lines 1-2 and 3- of systor17.csv, one xz stream each

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench/trace/TraceCompression.h"
#include "bench/trace/TraceFactory.h"
#include "tests/bench/trace/TraceTestUtil.h"

namespace tierlab {
namespace {

std::string Bytes(const std::string& fixture) {
  std::ifstream in(Fixture(fixture), std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A stream that cannot seek, as a pipe: std::streambuf's seekoff and
// seekpos fail.
class PipeStream final : public std::istream {
 public:
  explicit PipeStream(std::string data) : std::istream(nullptr), buf_(std::move(data)) {
    rdbuf(&buf_);
  }

 private:
  class Buf final : public std::streambuf {
   public:
    explicit Buf(std::string data) : data_(std::move(data)) {
      setg(data_.data(), data_.data(), data_.data() + data_.size());
    }

   private:
    std::string data_;
  };
  Buf buf_;
};

ReadResult ReadBytes(const std::string& data, const std::string& name, TraceOptions options = {}) {
  return ReadAll(OpenTrace(std::make_unique<PipeStream>(data), name, options));
}

struct Pair {
  const char* compressed;
  const char* plain;
  TraceCompression codec;
};

constexpr Pair kPairs[] = {
    {"msr-cambridge1-sample.csv.gz", "msr-cambridge1-sample.csv", TraceCompression::kGzip},
    {"msr-cambridge1-sample.csv.zst", "msr-cambridge1-sample.csv", TraceCompression::kZstd},
    {"msr-cambridge1-sample.csv.xz", "msr-cambridge1-sample.csv", TraceCompression::kXz},
    {"vscsi-v2.bin.gz", "vscsi-v2.bin", TraceCompression::kGzip},
    {"vscsi-v2.bin.zst", "vscsi-v2.bin", TraceCompression::kZstd},
    {"vscsi-v2.bin.xz", "vscsi-v2.bin", TraceCompression::kXz},
    {"fio-v3-members.iolog.gz", "fio-v3.iolog", TraceCompression::kGzip},
    {"spc-frames.csv.zst", "spc.csv", TraceCompression::kZstd},
    {"systor17-streams.csv.xz", "systor17.csv", TraceCompression::kXz},
};

TEST(TraceCompressionTest, DetectedFromMagicBytesOnly) {
  using std::string_literals::operator""s;
  EXPECT_EQ(DetectTraceCompression("\x1f\x8b\x08\x00"s), TraceCompression::kGzip);
  EXPECT_EQ(DetectTraceCompression("\x1f\x8b\x08\x08rest"s), TraceCompression::kGzip);
  // Reserved flag bits set, or not deflate: not gzip (a key trace may start so).
  EXPECT_EQ(DetectTraceCompression("\x1f\x8b\x08\x20"s), TraceCompression::kNone);
  EXPECT_EQ(DetectTraceCompression("\x1f\x8b\x07\x00"s), TraceCompression::kNone);
  EXPECT_EQ(DetectTraceCompression("\x28\xb5\x2f\xfd"s), TraceCompression::kZstd);
  EXPECT_EQ(DetectTraceCompression("\x50\x2a\x4d\x18"s), TraceCompression::kZstd);  // skippable
  EXPECT_EQ(DetectTraceCompression("\x5f\x2a\x4d\x18"s), TraceCompression::kZstd);
  EXPECT_EQ(DetectTraceCompression("\xfd"
                                   "7zXZ\x00"s),
            TraceCompression::kXz);
  EXPECT_EQ(DetectTraceCompression("\xfd"
                                   "7zXZ"s),
            TraceCompression::kNone);  // too short
  EXPECT_EQ(DetectTraceCompression("\x1f\x8b"s), TraceCompression::kNone);
  EXPECT_EQ(DetectTraceCompression(""), TraceCompression::kNone);
  EXPECT_EQ(DetectTraceCompression("0,303567,3584,w"), TraceCompression::kNone);
  for (const Pair& p : kPairs) {
    EXPECT_EQ(DetectTraceCompression(Bytes(p.compressed)), p.codec) << p.compressed;
    EXPECT_EQ(DetectTraceCompression(Bytes(p.plain)), TraceCompression::kNone) << p.plain;
  }
}

// Every compressed fixture reads the records of its plain twin, detected or
// named, with the default buffer and with small ones (which make every
// buffer refill inside the decoder and the head replay).
TEST(TraceInputTest, CompressedReadsTheSameRecordsAsPlain) {
  for (const Pair& p : kPairs) {
    const ReadResult plain = ReadAll(Fixture(p.plain));
    ASSERT_EQ(plain.error, "") << p.plain;
    ASSERT_FALSE(plain.records.empty()) << p.plain;
    for (std::size_t buffer :
         {std::size_t{1} << 20, std::size_t{4096}, std::size_t{97}, kMinTraceBuffer}) {
      if (buffer == kMinTraceBuffer && !std::string(p.plain).ends_with(".bin")) continue;
      const ReadResult got = ReadAll(Fixture(p.compressed), {.buffer_bytes = buffer});
      EXPECT_EQ(got.error, "") << p.compressed << " buffer " << buffer;
      EXPECT_EQ(got.format, plain.format) << p.compressed;
      EXPECT_TRUE(got.records == plain.records) << p.compressed << " buffer " << buffer;
      const ReadResult named = ReadAll(Fixture(p.compressed), {.format = plain.format});
      EXPECT_TRUE(named.records == plain.records) << p.compressed << " named";
    }
  }
}

// No seeking back: a pipe reads like a file, compressed or not.
TEST(TraceInputTest, NonSeekableStreamsAreDetectedAndRead) {
  for (const Pair& p : kPairs) {
    const ReadResult plain = ReadAll(Fixture(p.plain));
    const ReadResult piped = ReadBytes(Bytes(p.plain), p.plain);
    EXPECT_EQ(piped.error, "") << p.plain;
    EXPECT_TRUE(piped.records == plain.records) << p.plain;
    const ReadResult piped_compressed =
        ReadBytes(Bytes(p.compressed), p.compressed, {.buffer_bytes = 97});
    EXPECT_EQ(piped_compressed.error, "") << p.compressed;
    EXPECT_TRUE(piped_compressed.records == plain.records) << p.compressed;
  }
}

// A compressed stream cut short: the records before the cut may be read,
// then a one-line input error naming the input and the codec.
TEST(TraceInputTest, TruncatedStreamsAreOneLineInputErrors) {
  for (const Pair& p : kPairs) {
    const std::string data = Bytes(p.compressed);
    const ReadResult plain = ReadAll(Fixture(p.plain));
    const std::string name = std::string("cut-") + p.compressed;
    const std::string prefix = name + ": " + ToString(p.codec) + ": ";
    for (std::size_t keep : {data.size() - 1, data.size() - 4, data.size() / 2, std::size_t{12}}) {
      for (std::size_t buffer : {std::size_t{1} << 20, std::size_t{97}}) {
        const ReadResult r = ReadBytes(data.substr(0, keep), name, {.buffer_bytes = buffer});
        EXPECT_EQ(r.error.rfind(prefix, 0), 0u)
            << p.compressed << " cut at " << keep << ": " << r.error;
        EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
        ASSERT_LE(r.records.size(), plain.records.size());
        EXPECT_TRUE(std::equal(r.records.begin(), r.records.end(), plain.records.begin()))
            << p.compressed << " cut at " << keep;
      }
    }
    // Cut at the end of the compressed data, the decoder says truncated.
    const ReadResult tail = ReadBytes(data.substr(0, data.size() - 1), name);
    EXPECT_NE(tail.error.find("truncated"), std::string::npos) << tail.error;
  }
}

TEST(TraceInputTest, DamagedStreamsAreOneLineInputErrors) {
  for (const Pair& p : {kPairs[0], kPairs[1], kPairs[2]}) {
    std::string data = Bytes(p.compressed);
    data[data.size() / 2] = static_cast<char>(data[data.size() / 2] ^ 0x55);
    const ReadResult r = ReadBytes(data, "bad.trace");
    EXPECT_EQ(r.error.rfind(std::string("bad.trace: ") + ToString(p.codec) + ": ", 0), 0u)
        << p.compressed << ": " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
  // Bytes after a gzip member that are not another member.
  const ReadResult garbage = ReadBytes(Bytes("vscsi-v2.bin.gz") + "not gzip", "g.vscsi.gz");
  EXPECT_EQ(garbage.error, "g.vscsi.gz: gzip: member 2: incorrect header check");
  // Zeros after the last member are padding, as gzip -d reads them; data
  // after the zeros is an error.
  const ReadResult plain = ReadBytes(Bytes("vscsi-v2.bin.gz"), "p.vscsi.gz");
  ASSERT_EQ(plain.error, "");
  const ReadResult padded =
      ReadBytes(Bytes("vscsi-v2.bin.gz") + std::string(70000, '\0'), "z.vscsi.gz");
  EXPECT_EQ(padded.error, "");
  EXPECT_EQ(padded.records.size(), plain.records.size());
  const ReadResult after_padding =
      ReadBytes(Bytes("vscsi-v2.bin.gz") + std::string(700, '\0') + "x", "zx.vscsi.gz");
  EXPECT_EQ(after_padding.error,
            "zx.vscsi.gz: gzip: non-zero data after the zero padding that follows member 1");
  // Damage right in the head: OpenTrace fails with the codec's reason.
  std::string head = Bytes("vscsi-v2.bin.xz");
  head[8] = static_cast<char>(head[8] ^ 0xff);  // the stream header's CRC32
  auto reader = OpenTrace(std::make_unique<PipeStream>(head), "h.xz", {});
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.error().kind, ErrorKind::kInput);
  EXPECT_EQ(reader.error().message.rfind("h.xz: xz: ", 0), 0u) << reader.error().message;
}

// A window or dictionary above TraceOptions::decoder_memory_bytes is refused
// with what it needs, not allocated.
TEST(TraceInputTest, DecoderMemoryIsBounded) {
  // xz -9: a 64 MiB dictionary.
  const ReadResult xz =
      ReadAll(Fixture("msr-cambridge1-sample.csv.xz"), {.decoder_memory_bytes = 16 << 20});
  EXPECT_NE(xz.error.find("xz: the stream needs 65 MiB to decode, above the 16 MiB decoding "
                          "memory limit"),
            std::string::npos)
      << xz.error;
  // zstd decodes a frame that fits the output buffer in one go, with no
  // window of its own; small buffers make it stream, window and all.
  const ReadResult zstd = ReadAll(Fixture("msr-cambridge1-sample.csv.zst"),
                                  {.buffer_bytes = 97, .decoder_memory_bytes = 1024});
  EXPECT_NE(zstd.error.find("zstd: a frame needs a window above the"), std::string::npos)
      << zstd.error;
}

TEST(TraceInputTest, EmptyAfterDecompressionIsAnError) {
  using std::string_literals::operator""s;
  // gzip -nc < /dev/null
  const std::string empty_gz =
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00"s;
  const ReadResult r = ReadBytes(empty_gz, "e.gz");
  EXPECT_EQ(r.error, "e.gz: empty after gzip decompression; cannot detect the trace format");
  // With the format named, an empty trace.
  const ReadResult named = ReadBytes(empty_gz, "e.gz", {.format = TraceFormat::kMsrCsv});
  EXPECT_EQ(named.error, "");
  EXPECT_TRUE(named.records.empty());
}

// Standard input is one source: a second open in the same process would
// read what the first left, so it is an error. (Reading "-" end to end is
// tests/e2e/trace_input.sh, which pipes traces into the CLI.)
TEST(TraceInputTest, StdinNamesAndTheReadOnceError) {
  EXPECT_TRUE(IsStdinTrace("-"));
  EXPECT_FALSE(IsStdinTrace("./-"));
  EXPECT_EQ(TraceInputName("-"), "stdin");
  EXPECT_EQ(TraceInputName("t.csv"), "t.csv");
  const Error e = StdinReadOnceError("the analyzer reads it twice");
  EXPECT_EQ(e.kind, ErrorKind::kInput);
  EXPECT_EQ(e.message.rfind("stdin: cannot read the trace from standard input here: the "
                            "analyzer reads it twice, and standard input can be read only once",
                            0),
            0u)
      << e.message;
}

}  // namespace
}  // namespace tierlab
