#include "bench/trace/MsrCsvReader.h"

#include "bench/trace/TextFields.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace tf = textfields;

namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

}  // namespace

MsrCsvReader::MsrCsvReader(std::unique_ptr<std::istream> in, std::string name,
                           const TraceOptions& options)
    : TextTraceReader(std::move(in), std::move(name), options) {}

TextTraceReader::LineResult MsrCsvReader::ParseLine(std::string_view line, TraceRecord* record) {
  if (tf::Trim(line).empty()) return LineResult::kSkip;
  std::string_view f[7];
  std::size_t n = tf::SplitDelimited(line, ',', f, 7);
  if (n != 7) {
    return Bad(
        "expected 7 fields Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime, got " +
        std::to_string(n));
  }
  std::uint64_t ticks = 0;
  if (!tf::ParseU64(f[0], &ticks) || ticks > INT64_MAX) {
    return Bad("bad Timestamp " + QuotedText(f[0]) + " (FILETIME ticks)");
  }
  std::uint64_t disk = 0;
  if (!tf::ParseU64(f[2], &disk) || disk >= (1u << 15)) {
    return Bad("bad DiskNumber " + QuotedText(f[2]));
  }
  if (EqualsNoCase(f[3], "read")) {
    record->op = IoOp::kRead;
  } else if (EqualsNoCase(f[3], "write")) {
    record->op = IoOp::kWrite;
  } else {
    return Bad("bad Type " + QuotedText(f[3]) + " (valid: Read, Write)");
  }
  std::uint64_t offset = 0;
  if (!tf::ParseU64(f[4], &offset) || offset >= kTraceDeviceStride) {
    return Bad("bad Offset " + QuotedText(f[4]));
  }
  if (!tf::ParseU32(f[5], &record->length)) return Bad("bad Size " + QuotedText(f[5]));
  record->offset = offset + disk * kTraceDeviceStride;
  if (!Time(static_cast<std::int64_t>(ticks), 100, record)) return LineResult::kBad;
  return LineResult::kRecord;
}

}  // namespace tierlab
