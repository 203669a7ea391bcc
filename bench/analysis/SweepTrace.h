#pragma once
// A block trace read once into memory for a policy sweep (PolicySweep.h):
// every cell of the sweep replays the same arrays, so the trace is parsed
// once however many policies and sizes run.
//
// Block view (the default): a request touches every cache line it overlaps,
// as a block cache sees it; each line is one reference. Object view
// (`object`): a request is one unit-size object named by its start offset,
// whatever its length — libCacheSim's and Caffeine's view of a block trace,
// for direct comparison with them.
//
// Lines (or objects) are renumbered densely in order of first reference, so
// a cell maps a line to its cache slot with an array index instead of a
// hash lookup; unique_lines() is the working set.
//
// Memory: 24 bytes per request and 4 per line reference, plus a transient
// hash map of about 32 bytes per unique line while loading.
// Flushes carry no data and are dropped (counted); discards are kept (a
// cache drops what a discard covers). Threading: immutable once loaded, so
// cells read it from several threads.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/trace/TraceReader.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct SweepTraceOptions {
  std::uint64_t line_size = 4096;  // bytes per cache line (block view)
  bool object = false;             // one unit-size object per request
};

class SweepTrace {
 public:
  struct Request {
    std::uint64_t offset = 0;  // bytes, as the trace gives it
    Nanos time = 0;            // ns since the first record
    std::uint32_t length = 0;  // bytes
    std::uint32_t lines = 0;   // line references: its span of ids()
    IoOp op = IoOp::kRead;
  };

  // Reads `reader` to its end. Errors: the reader's; a request spanning
  // 2^32 lines or more; more than 2^32 - 2 unique lines.
  static Expected<SweepTrace> Load(TraceReader& reader, const SweepTraceOptions& options);
  // The same from records in memory (a profile's stream, tests); errors
  // name `name`.
  static Expected<SweepTrace> FromRecords(std::span<const TraceRecord> records,
                                          const SweepTraceOptions& options,
                                          const std::string& name);

  const std::vector<Request>& requests() const { return requests_; }
  // Dense line ids, request after request (each request's `lines` of them).
  const std::vector<std::uint32_t>& ids() const { return ids_; }
  std::uint64_t unique_lines() const { return unique_lines_; }
  std::uint64_t line_size() const { return options_.line_size; }
  bool object() const { return options_.object; }
  std::uint64_t flushes() const { return flushes_; }

  // Bytes of request `r` that fall in its i-th line (block view); the
  // request's length in the object view, where a line is the object.
  std::uint32_t LineBytes(const Request& r, std::uint32_t i) const;

 private:
  class Builder;

  SweepTraceOptions options_;
  std::vector<Request> requests_;
  std::vector<std::uint32_t> ids_;
  std::uint64_t unique_lines_ = 0;
  std::uint64_t flushes_ = 0;
};

}  // namespace tierlab
