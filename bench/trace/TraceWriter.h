#pragma once
// Writes TraceRecords in one of the formats tierlab can also read back:
// tierlab binary (lossless), fio iolog v3 (times truncated to microseconds;
// replay with fio's replay_redirect, the file is named "trace"), and MSR
// Cambridge CSV (times truncated to 100 ns ticks, FILETIME base 0; reads and
// writes only; offsets >= kTraceDeviceStride go to DiskNumber offset >> 48).
//
// Failure: Write and Close return Errors naming the output and the record
// number ("out.csv: record 7: MSR CSV cannot hold a flush"), exit code 2 for
// records the format cannot hold, 3 for I/O errors. Close must be called to
// flush (the destructor does not report errors). Not thread-safe.

#include <memory>
#include <ostream>
#include <string>

#include "bench/trace/TraceReader.h"

namespace tierlab {

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Records must have timestamp >= 0.
  virtual Expected<void> Write(const TraceRecord& record) = 0;
  // Flushes; the tierlab format fills in the record count if the output can
  // seek. Idempotent.
  virtual Expected<void> Close() = 0;

  std::uint64_t records() const { return records_; }

 protected:
  TraceWriter() = default;
  std::uint64_t records_ = 0;
};

// Formats CreateTraceWriter accepts: kTierlabBin, kFioIologV3, kMsrCsv.
bool CanWriteTraceFormat(TraceFormat format);

// Creates (truncates) `path`; "-" is standard output.
Expected<std::unique_ptr<TraceWriter>> CreateTraceWriter(const std::string& path,
                                                         TraceFormat format);
// Writes into `out` (e.g. a std::ostringstream); `name` is used in errors.
Expected<std::unique_ptr<TraceWriter>> CreateTraceWriter(std::unique_ptr<std::ostream> out,
                                                         std::string name, TraceFormat format);

}  // namespace tierlab
