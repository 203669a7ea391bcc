#pragma once
// SYSTOR'17 block traces (SNIA IOTTA, "Enterprise VDI" traces), CSV with a
// header line:
//
//   Timestamp,Response,IOType,LUN,Offset,Size
//   1456095145.133076000,0.000806000,R,0,899056122368,131072
//
// Timestamp is Unix seconds (decimal, parsed exactly to ns); IOType R or W;
// Offset and Size in bytes; LUN n moves offsets by n * kTraceDeviceStride.
// Rows are not sorted by timestamp (rows are logged at completion): records
// keep file order, and times follow TraceOptions::order (clamped to
// monotonic by default, counted in reordered_records()).

#include "bench/trace/TextTraceReader.h"

namespace tierlab {

class Systor17CsvReader final : public TextTraceReader {
 public:
  static constexpr const char* kHeader = "Timestamp,Response,IOType,LUN,Offset,Size";

  Systor17CsvReader(std::unique_ptr<std::istream> in, std::string name,
                    const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kSystor17Csv; }

 private:
  LineResult ParseLine(std::string_view line, TraceRecord* record) override;
  const char* RequiredHeader() const override { return kHeader; }
};

}  // namespace tierlab
