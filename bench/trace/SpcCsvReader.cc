#include "bench/trace/SpcCsvReader.h"

#include "bench/trace/TextFields.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace tf = textfields;

SpcCsvReader::SpcCsvReader(std::unique_ptr<std::istream> in, std::string name,
                           const TraceOptions& options)
    : TextTraceReader(std::move(in), std::move(name), options) {}

TextTraceReader::LineResult SpcCsvReader::ParseLine(std::string_view line, TraceRecord* record) {
  std::string_view trimmed = tf::Trim(line);
  if (trimmed.empty()) return LineResult::kSkip;
  if (line_number() == 1 && (trimmed.substr(0, 3) == "ASU" || trimmed.substr(0, 3) == "asu")) {
    return LineResult::kSkip;
  }
  std::string_view f[5];
  std::size_t n = tf::SplitDelimited(line, ',', f, 5);
  if (n < 5)
    return Bad("expected ASU,LBA,Size,Opcode,Timestamp, got " + std::to_string(n) + " fields");
  std::uint64_t asu = 0;
  if (!tf::ParseU64(f[0], &asu) || asu >= (1u << 15)) return Bad("bad ASU " + QuotedText(f[0]));
  std::uint64_t lba = 0;
  if (!tf::ParseU64(f[1], &lba)) return Bad("bad LBA " + QuotedText(f[1]));
  std::uint64_t offset = 0;
  if (__builtin_mul_overflow(lba, std::uint64_t{options_.lba_unit}, &offset) ||
      offset >= kTraceDeviceStride) {
    return Bad("LBA " + QuotedText(f[1]) + " out of range");
  }
  if (!tf::ParseU32(f[2], &record->length)) return Bad("bad Size " + QuotedText(f[2]));
  if (f[3] == "r" || f[3] == "R") {
    record->op = IoOp::kRead;
  } else if (f[3] == "w" || f[3] == "W") {
    record->op = IoOp::kWrite;
  } else {
    return Bad("bad Opcode " + QuotedText(f[3]) + " (valid: r, w)");
  }
  std::int64_t ns = 0;
  if (!tf::ParseSecondsToNanos(f[4], &ns)) return Bad("bad Timestamp " + QuotedText(f[4]));
  record->offset = offset + asu * kTraceDeviceStride;
  if (!Time(ns, 1, record)) return LineResult::kBad;
  return LineResult::kRecord;
}

}  // namespace tierlab
