#include "bench/trace/TextTraceReader.h"

namespace tierlab {

TextTraceReader::TextTraceReader(std::unique_ptr<std::istream> in, std::string name,
                                 const TraceOptions& options)
    : TraceReader(std::move(name), options),
      in_(std::move(in)),
      lines_(*in_, options.buffer_bytes) {}

bool TextTraceReader::Time(std::int64_t raw, std::int64_t ns_per_unit, TraceRecord* record) {
  if (!RelativeTime(raw, ns_per_unit, &record->timestamp)) {
    Bad("timestamp out of range relative to the first record");
    return false;
  }
  return true;
}

Expected<bool> TextTraceReader::Next(TraceRecord* record) {
  if (failed_) return *failed_;
  std::string_view line;
  for (;;) {
    switch (lines_.Next(&line)) {
      case LineReader::Result::kEnd:
        if (line_number() == 0 && RequiredHeader() != nullptr) {
          failed_ = MakeError(name_ + ": empty file, expected the header line '" +
                              RequiredHeader() + "'");
          return *failed_;
        }
        return false;
      case LineReader::Result::kTooLong:
        failed_ = MakeError(name_ + ":" + std::to_string(line_number() + 1) +
                            ": line too long (not a text trace?)");
        return *failed_;
      case LineReader::Result::kReadError: failed_ = ReadError(*in_); return *failed_;
      case LineReader::Result::kLine: break;
    }
    switch (ParseLine(line, record)) {
      case LineResult::kRecord: ++records_; return true;
      case LineResult::kSkip: ++skipped_lines_; continue;
      case LineResult::kBad:
        if (options_.skip_bad) {
          ++bad_records_;
          continue;
        }
        [[fallthrough]];
      case LineResult::kFatal:
        failed_ = MakeError(name_ + ":" + std::to_string(line_number()) + ": " + error_);
        return *failed_;
    }
  }
}

}  // namespace tierlab
