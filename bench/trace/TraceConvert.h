#pragma once
// Trace format conversion (the engine of `tierlab trace convert`): streams
// records from any reader into any writer, in constant memory.

#include <string>

#include "bench/trace/TraceReader.h"
#include "bench/trace/TraceWriter.h"

namespace tierlab {

struct ConvertSummary {
  std::uint64_t records = 0;            // records written
  std::uint64_t bad_records = 0;        // malformed input skipped (skip_bad)
  std::uint64_t reordered_records = 0;  // input times clamped to monotonic
};

// Copies every record of `reader` to `writer`, then closes the writer.
Expected<ConvertSummary> CopyTrace(TraceReader& reader, TraceWriter& writer);

// Opens `in_path` with `in_options`, writes `out_path` in `out_format`
// (CanWriteTraceFormat). On error the partial output file is left behind.
Expected<ConvertSummary> ConvertTrace(const std::string& in_path, const TraceOptions& in_options,
                                      const std::string& out_path, TraceFormat out_format);

}  // namespace tierlab
