// Key-only traces (keys-u32, keys-u64): one read of object_size bytes at
// key * object_size per key, time 0, never detected, and partial records.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "bench/trace/BinaryTraceReader.h"
#include "bench/trace/TraceFactory.h"
#include "tests/bench/trace/TraceTestUtil.h"

namespace tierlab {
namespace {

std::string U64Keys(const std::vector<std::uint64_t>& keys) {
  std::string out(keys.size() * 8, '\0');
  for (std::size_t i = 0; i < keys.size(); ++i) {
    StoreLe64(reinterpret_cast<unsigned char*>(out.data() + 8 * i), keys[i]);
  }
  return out;
}

ReadResult ReadKeys(const std::string& data, TraceOptions options) {
  return ReadAll(OpenTrace(std::make_unique<std::istringstream>(data), "k.bin", options));
}

TraceRecord Read(std::uint64_t offset, std::uint32_t length) {
  return TraceRecord{0, IoOp::kRead, offset, length};
}

// keys-u32.bin holds 0, 1, 7, 42, 1, 0xffffffff.
TEST(KeyTraceReaderTest, U32KeysAreFourKiBReadsAtKeyTimesFourKiB) {
  const ReadResult r = ReadAll(Fixture("keys-u32.bin"), {.format = TraceFormat::kKeysU32});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.format, TraceFormat::kKeysU32);
  const std::vector<TraceRecord> want = {Read(0, 4096),        Read(4096, 4096),
                                         Read(7 * 4096, 4096), Read(42 * 4096, 4096),
                                         Read(4096, 4096),     Read(0xffffffffull * 4096, 4096)};
  EXPECT_EQ(r.records, want);
  // The same through zstd, and with another object size.
  EXPECT_EQ(ReadAll(Fixture("keys-u32.bin.zst"), {.format = TraceFormat::kKeysU32}).records, want);
  const ReadResult small =
      ReadAll(Fixture("keys-u32.bin"), {.format = TraceFormat::kKeysU32, .object_size = 512});
  ASSERT_EQ(small.records.size(), 6u);
  EXPECT_EQ(small.records[3], Read(42 * 512, 512));
}

TEST(KeyTraceReaderTest, U64KeysAndOffsetsOutOfRange) {
  const std::string data = U64Keys({3, std::uint64_t{1} << 60, 5});
  const ReadResult r = ReadKeys(data, {.format = TraceFormat::kKeysU64});
  EXPECT_EQ(r.records, std::vector<TraceRecord>{Read(3 * 4096, 4096)});
  EXPECT_EQ(r.error, "k.bin: record 1: key 1152921504606846976 out of range at object size 4096");
  const ReadResult skip = ReadKeys(data, {.format = TraceFormat::kKeysU64, .skip_bad = true});
  EXPECT_EQ(skip.error, "");
  EXPECT_EQ(skip.bad, 1u);
  EXPECT_EQ(skip.records, (std::vector<TraceRecord>{Read(3 * 4096, 4096), Read(5 * 4096, 4096)}));
  // With 1-byte objects the same key fits.
  const ReadResult bytes = ReadKeys(data, {.format = TraceFormat::kKeysU64, .object_size = 1});
  EXPECT_EQ(bytes.error, "");
  EXPECT_EQ(bytes.records.size(), 3u);
}

// A partial key at the end: an error naming the byte offset, or one bad
// record with skip_bad; the keys before it are read either way.
TEST(KeyTraceReaderTest, TrailingPartialRecord) {
  const std::string data = U64Keys({1, 2, 3}) + std::string("\x01\x02\x03", 3);
  for (std::size_t buffer : {std::size_t{1} << 20, std::size_t{97}, kMinTraceBuffer}) {
    const ReadResult r = ReadKeys(data, {.format = TraceFormat::kKeysU64, .buffer_bytes = buffer});
    EXPECT_EQ(r.records.size(), 3u);
    EXPECT_EQ(r.error, "k.bin: record 3: truncated at byte 24: 3 of 8 bytes");
    const ReadResult skip =
        ReadKeys(data, {.format = TraceFormat::kKeysU64, .skip_bad = true, .buffer_bytes = buffer});
    EXPECT_EQ(skip.error, "");
    EXPECT_EQ(skip.records.size(), 3u);
    EXPECT_EQ(skip.bad, 1u);
  }
  const ReadResult u32 = ReadKeys(std::string(6, '\0'), {.format = TraceFormat::kKeysU32});
  EXPECT_EQ(u32.error, "k.bin: record 1: truncated at byte 4: 2 of 4 bytes");
  const ReadResult empty = ReadKeys("", {.format = TraceFormat::kKeysU32});
  EXPECT_EQ(empty.error, "");
  EXPECT_TRUE(empty.records.empty());
}

// Key traces look like any binary data: detection never claims them, and
// says that they must be named.
TEST(KeyTraceReaderTest, NeverDetected) {
  std::string data = U64Keys({12345, 987654321, 42, 7, 0x0123456789abcdef});
  auto f = DetectTraceFormat(data, "k.bin");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("binary data of unknown trace format"), std::string::npos);
  EXPECT_NE(f.error().message.find("keys-u32, keys-u64"), std::string::npos);
  EXPECT_NE(f.error().message.find("key-only traces are never detected"), std::string::npos);
  auto keys = DetectTraceFormat(Fixture("keys-u32.bin"));
  EXPECT_FALSE(keys.ok());
}

TEST(KeyTraceReaderTest, ZeroObjectSizeIsRejected) {
  auto r = OpenTrace(Fixture("keys-u32.bin"), {.format = TraceFormat::kKeysU32, .object_size = 0});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("object_size must be > 0"), std::string::npos);
}

}  // namespace
}  // namespace tierlab
