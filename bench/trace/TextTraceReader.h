#pragma once
// Shared driver of the line-oriented readers: reads lines, hands each to the
// format's ParseLine, turns failures into "file:line: what" errors, and
// implements skip_bad. A subclass only parses one line.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bench/trace/LineReader.h"
#include "bench/trace/TraceReader.h"

namespace tierlab {

class TextTraceReader : public TraceReader {
 public:
  Expected<bool> Next(TraceRecord* record) final;

 protected:
  // Takes ownership of the stream.
  TextTraceReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options);

  enum class LineResult {
    kRecord,  // *record filled
    kSkip,    // not an I/O event (comment, header, other action)
    kBad,     // malformed: skipped with skip_bad, else an error; why in error_
    kFatal,   // structural: always an error; why in error_
  };

  // `line` has no line terminator. line_number() is its 1-based number.
  virtual LineResult ParseLine(std::string_view line, TraceRecord* record) = 0;

  // Formats whose first line is a fixed header return it; an empty file is
  // then an error rather than an empty trace.
  virtual const char* RequiredHeader() const { return nullptr; }

  std::uint64_t line_number() const { return lines_.line_number(); }
  LineResult Bad(std::string why) {
    error_ = std::move(why);
    return LineResult::kBad;
  }
  LineResult Fatal(std::string why) {
    error_ = std::move(why);
    return LineResult::kFatal;
  }
  // Common check for the time conversion; false means Bad() was called.
  bool Time(std::int64_t raw, std::int64_t ns_per_unit, TraceRecord* record);

  std::string error_;

 private:
  std::unique_ptr<std::istream> in_;
  LineReader lines_;
  std::optional<Error> failed_;
};

}  // namespace tierlab
