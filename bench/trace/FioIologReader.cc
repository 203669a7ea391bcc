#include "bench/trace/FioIologReader.h"

#include "bench/trace/TextFields.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace tf = textfields;

namespace {
constexpr const char* kHeaderV2 = "fio version 2 iolog";
constexpr const char* kHeaderV3 = "fio version 3 iolog";
}  // namespace

FioIologReader::FioIologReader(std::unique_ptr<std::istream> in, std::string name,
                               const TraceOptions& options, int version)
    : TextTraceReader(std::move(in), std::move(name), options), version_(version) {}

const char* FioIologReader::RequiredHeader() const {
  return version_ == 2 ? kHeaderV2 : kHeaderV3;
}

TextTraceReader::LineResult FioIologReader::ParseLine(std::string_view line, TraceRecord* record) {
  if (line_number() == 1) {
    // fio compares the header as a prefix (strncmp); so do we.
    if (line.substr(0, 19) != RequiredHeader()) {
      return Fatal(std::string("expected the header '") + RequiredHeader() + "'");
    }
    return LineResult::kSkip;
  }
  std::string_view f[6];
  std::size_t n = tf::SplitBlanks(line, f, 6);
  if (n == 0) return LineResult::kSkip;
  std::size_t base = 0;
  std::uint64_t ts_us = 0;
  if (version_ == 3) {
    if (!tf::ParseU64(f[0], &ts_us)) return Bad("expected a timestamp in microseconds");
    if (ts_us > static_cast<std::uint64_t>(INT64_MAX)) return Bad("timestamp out of range");
    base = 1;
  }
  std::size_t fields = n - base;
  if (fields == 2) {
    std::string_view act = f[base + 1];
    if (act == "add" || act == "open" || act == "close" || act == "unlink")
      return LineResult::kSkip;
    return Bad("unknown file action " + QuotedText(act) + " (valid: add, open, close, unlink)");
  }
  if (fields != 4) {
    return Bad(version_ == 3 ? "expected 'timestamp file action offset length'"
                             : "expected 'file action offset length'");
  }
  std::string_view act = f[base + 1];
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  if (!tf::ParseU64(f[base + 2], &offset)) return Bad("bad offset " + QuotedText(f[base + 2]));
  if (!tf::ParseU32(f[base + 3], &length)) return Bad("bad length " + QuotedText(f[base + 3]));
  if (act == "wait") {
    if (version_ == 3) return LineResult::kSkip;  // fio ignores wait in v3
    if (__builtin_add_overflow(wait_us_, offset, &wait_us_) || wait_us_ > INT64_MAX / 1000) {
      return Bad("accumulated wait time out of range");
    }
    return LineResult::kSkip;
  }
  if (act == "read") {
    record->op = IoOp::kRead;
  } else if (act == "write") {
    record->op = IoOp::kWrite;
  } else if (act == "trim") {
    record->op = IoOp::kDiscard;
  } else if (act == "sync" || act == "datasync") {
    record->op = IoOp::kFlush;
    offset = 0;
    length = 0;
  } else {
    return Bad("unknown action " + QuotedText(act) +
               " (valid: read, write, trim, sync, datasync, wait)");
  }
  if (offset + length < offset) return Bad("offset + length overflows");
  record->offset = offset;
  record->length = length;
  std::int64_t raw =
      version_ == 3 ? static_cast<std::int64_t>(ts_us) : static_cast<std::int64_t>(wait_us_);
  if (!Time(raw, kMicro, record)) return LineResult::kBad;
  return LineResult::kRecord;
}

}  // namespace tierlab
