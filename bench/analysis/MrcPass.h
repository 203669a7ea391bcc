#pragma once
// One pass over a request stream that yields its LRU miss-ratio curve at a
// given line size: exact (StackDistanceMrc, records fed in batches so that it
// can prefetch) or estimated by SHARDS at a sampling rate (ShardsMrc,
// bounded memory), at 32 sizes evenly spaced up to the working set + 10 %.
// The write-cache analyzer's read MRC, for traces and for profiles' streams.
// Not thread-safe.

#include <array>
#include <cstdint>
#include <string>

#include "bench/analysis/MissRatioCurve.h"
#include "bench/analysis/ShardsMrc.h"
#include "bench/analysis/StackDistanceMrc.h"
#include "bench/trace/TraceReader.h"
#include "tiering/core/Expected.h"

namespace tierlab {

class MrcPass {
 public:
  // `shards_rate` in (0, 1): SHARDS at that rate; otherwise exact.
  MrcPass(std::uint64_t line_size, double shards_rate);

  void Add(const TraceRecord& r);
  // The curve of everything added so far.
  MissRatioCurve Curve();
  // "exact" or "shards@R".
  static std::string Method(double shards_rate);

 private:
  void Flush();

  bool exact_;
  StackDistanceMrc sd_;
  ShardsMrc shards_;
  std::array<TraceRecord, 256> batch_;
  std::size_t pending_ = 0;
};

// The MRC of a trace file read once, and its last timestamp (into
// `*last_timestamp`, which is only raised). Errors: the reader's.
Expected<MissRatioCurve> TraceMrc(const std::string& path, const TraceOptions& options,
                                  std::uint64_t line_size, double shards_rate,
                                  Nanos* last_timestamp);

}  // namespace tierlab
