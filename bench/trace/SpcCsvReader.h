#pragma once
// SPC / UMass trace repository CSV (Financial1/2, WebSearch1-3), no header:
//
//   ASU,LBA,Size,Opcode,Timestamp[,more]
//   0,303567,3584,w,0.026214
//
// LBA is in TraceOptions::lba_unit bytes (512 by default); Size in bytes;
// Opcode r or w (any case); Timestamp in seconds (decimal) since the start.
// ASU n moves offsets by n * kTraceDeviceStride. Fields after the fifth are
// ignored; a first line starting with "ASU" is taken as a header.

#include "bench/trace/TextTraceReader.h"

namespace tierlab {

class SpcCsvReader final : public TextTraceReader {
 public:
  SpcCsvReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kSpcCsv; }

 private:
  LineResult ParseLine(std::string_view line, TraceRecord* record) override;
};

}  // namespace tierlab
