#pragma once
// MSR Cambridge block traces (SNIA IOTTA), CSV without a header:
//
//   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//   128166385295514663,hm,0,Write,9056014336,2048,2833
//
// Timestamp is a Windows FILETIME (100 ns ticks); Type is Read or Write (any
// case); Offset and Size are bytes. DiskNumber n moves offsets by
// n * kTraceDeviceStride. Hostname and ResponseTime are not used.

#include "bench/trace/TextTraceReader.h"

namespace tierlab {

class MsrCsvReader final : public TextTraceReader {
 public:
  MsrCsvReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kMsrCsv; }

 private:
  LineResult ParseLine(std::string_view line, TraceRecord* record) override;
};

}  // namespace tierlab
