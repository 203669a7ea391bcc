#include "bench/trace/Systor17CsvReader.h"

#include "bench/trace/TextFields.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace tf = textfields;

Systor17CsvReader::Systor17CsvReader(std::unique_ptr<std::istream> in, std::string name,
                                     const TraceOptions& options)
    : TextTraceReader(std::move(in), std::move(name), options) {}

TextTraceReader::LineResult Systor17CsvReader::ParseLine(std::string_view line,
                                                         TraceRecord* record) {
  if (line_number() == 1) {
    if (tf::Trim(line) != kHeader)
      return Fatal(std::string("expected the header '") + kHeader + "'");
    return LineResult::kSkip;
  }
  if (tf::Trim(line).empty()) return LineResult::kSkip;
  std::string_view f[6];
  std::size_t n = tf::SplitDelimited(line, ',', f, 6);
  if (n != 6) {
    return Bad("expected 6 fields Timestamp,Response,IOType,LUN,Offset,Size, got " +
               std::to_string(n));
  }
  std::int64_t ns = 0;
  if (!tf::ParseSecondsToNanos(f[0], &ns)) return Bad("bad Timestamp " + QuotedText(f[0]));
  if (f[2] == "R" || f[2] == "r") {
    record->op = IoOp::kRead;
  } else if (f[2] == "W" || f[2] == "w") {
    record->op = IoOp::kWrite;
  } else {
    return Bad("bad IOType " + QuotedText(f[2]) + " (valid: R, W)");
  }
  std::uint64_t lun = 0;
  if (!tf::ParseU64(f[3], &lun) || lun >= (1u << 15)) return Bad("bad LUN " + QuotedText(f[3]));
  std::uint64_t offset = 0;
  if (!tf::ParseU64(f[4], &offset) || offset >= kTraceDeviceStride) {
    return Bad("bad Offset " + QuotedText(f[4]));
  }
  if (!tf::ParseU32(f[5], &record->length)) return Bad("bad Size " + QuotedText(f[5]));
  record->offset = offset + lun * kTraceDeviceStride;
  if (!Time(ns, 1, record)) return LineResult::kBad;
  return LineResult::kRecord;
}

}  // namespace tierlab
