#pragma once
// Shared driver of fixed-size-record binary readers: buffered reads,
// truncation checks, skip_bad, and "file: record N: what" errors (N counts
// from 0 over the records in the file, skipped ones included). A partial
// record at the end also names its byte offset in the (decompressed) trace:
// "file: record N: truncated at byte B: 3 of 8 bytes".

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/trace/TraceReader.h"

namespace tierlab {

class BinaryTraceReader : public TraceReader {
 public:
  Expected<bool> Next(TraceRecord* record) final;

 protected:
  BinaryTraceReader(std::unique_ptr<std::istream> in, std::string name,
                    const TraceOptions& options);

  enum class RecordResult { kRecord, kSkip, kBad };

  // Decodes one record of record_size_ bytes; on kBad, error_ says why.
  virtual RecordResult Decode(const unsigned char* p, TraceRecord* record) = 0;

  // Reads exactly n bytes (a header); false at a short read.
  bool ReadExact(void* out, std::size_t n);
  // Peeks at the first n bytes of the records without consuming them;
  // returns how many bytes were available (< n near the end).
  std::size_t Peek(const unsigned char** p, std::size_t n);
  // What a partial record at the end is: always an error (formats where it
  // means a damaged file), or a bad record that skip_bad counts and drops
  // (formats without a header, where it is one more malformed record).
  enum class PartialTail { kFatal, kBadRecord };

  // Once a subclass has read its header: the record size, and the number of
  // records the header promises, if it does.
  void Start(std::size_t record_size, std::optional<std::uint64_t> expected_records,
             PartialTail tail = PartialTail::kFatal);
  // Fails construction-time problems (bad header); Next returns this error.
  // Without a record number, a stream gone bad is reported instead (the
  // header looked short because the stream failed).
  void Fail(std::string why, std::optional<std::uint64_t> record = std::nullopt);

  RecordResult Bad(std::string why) {
    error_ = std::move(why);
    return RecordResult::kBad;
  }

  std::string error_;

 private:
  bool Refill();

  std::unique_ptr<std::istream> in_;
  std::vector<unsigned char> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  bool eof_ = false;
  std::size_t record_size_ = 0;
  std::optional<std::uint64_t> expected_records_;
  PartialTail tail_ = PartialTail::kFatal;
  std::uint64_t header_bytes_ = 0;  // read by ReadExact before the first record
  std::uint64_t index_ = 0;         // next record number in the file
  std::optional<Error> failed_;
};

// Little-endian loads, independent of the host's byte order.
inline std::uint16_t LoadLe16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t LoadLe32(const unsigned char* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}
inline std::uint64_t LoadLe64(const unsigned char* p) {
  return std::uint64_t{LoadLe32(p)} | (std::uint64_t{LoadLe32(p + 4)} << 32);
}
inline void StoreLe16(unsigned char* p, std::uint16_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
inline void StoreLe32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void StoreLe64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

}  // namespace tierlab
