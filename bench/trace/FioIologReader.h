#pragma once
// fio iolog, versions 2 and 3 (fio's read_iolog / write_iolog files).
//
// Version 2: first line "fio version 2 iolog", then "file action" (add, open,
// close: skipped) and "file action offset length" lines. There are no
// timestamps: records are timed by "wait" lines, whose offset is a delay in
// microseconds relative to the previous wait (fio's HOWTO), accumulated here;
// a log without waits has every record at time 0 (replay as fast as possible).
//
// Version 3: first line "fio version 3 iolog", then every line starts with a
// timestamp: "ts file action" and "ts file action offset length". fio writes
// the timestamp with utime_since_now() and replays it as a microsecond delay
// (iolog.c), so the unit is microseconds. "wait" is ignored, as fio does.
//
// Actions: read, write, trim (-> discard), sync and datasync (-> flush, offset
// and length 0). All files of the log share one address space.

#include "bench/trace/TextTraceReader.h"

namespace tierlab {

class FioIologReader final : public TextTraceReader {
 public:
  // version is 2 or 3; the first line must carry that version's header.
  FioIologReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options,
                 int version);

  TraceFormat format() const override {
    return version_ == 2 ? TraceFormat::kFioIologV2 : TraceFormat::kFioIologV3;
  }

 private:
  LineResult ParseLine(std::string_view line, TraceRecord* record) override;
  const char* RequiredHeader() const override;

  int version_;
  std::uint64_t wait_us_ = 0;  // v2: accumulated wait time
};

}  // namespace tierlab
