#pragma once
// Per-operation-type results of a run: ops, bytes, IOPS, bandwidth and the
// latency histogram, for reads, writes and all ops together ("complete", the
// VMFleet/HCIBench name). The runner records each completion and sets the
// measured window (after ramp_time); rates are over that window.
//
// Not thread-safe: one OpMetrics per job, merged for the report.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>

#include "bench/lab/LatencyHistogram.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

struct OpStats {
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;  // completions with a non-ok status (not in lat/ops/bytes)
  LatencyHistogram lat;

  void Record(std::uint64_t length, Nanos latency) {
    ++ops;
    bytes += length;
    lat.Record(latency);
  }
  void Merge(const OpStats& other);
  // Over a window of `window` ns; 0 if the window is empty.
  double Iops(Nanos window) const;
  double BandwidthBytesPerSec(Nanos window) const;
};

class OpMetrics {
 public:
  // Reads and writes go to their own stats; complete() sums them with flush
  // and discard. (Summed when asked, not recorded twice: one histogram update
  // per I/O is a measurable part of a simulated run.)
  void Record(IoOp op, std::uint64_t length, Nanos latency) {
    StatsFor(op).Record(length, latency);
  }
  void RecordError(IoOp op) { ++StatsFor(op).errors; }

  // The measured window [start, end) on the engine clock.
  void SetWindow(Nanos start, Nanos end) { start_ = start, end_ = end; }
  Nanos window() const { return end_ > start_ ? end_ - start_ : 0; }

  const OpStats& read() const { return read_; }
  const OpStats& write() const { return write_; }
  OpStats complete() const;

  // Sums the stats; the window becomes the union [min start, max end], which
  // is right for jobs that ran concurrently.
  void Merge(const OpMetrics& other);
  void Reset();

  // fio-compatible keys: {"read": {...}, "write": {...}, "complete": {...}},
  // each {"io_bytes", "total_ios", "bw_bytes", "iops", "errors",
  // "lat_ns": {"min", "max", "mean", "stddev", "N",
  //            "percentile": {"1.000000": v, ... "99.990000": v}}}.
  nlohmann::json ToJson() const;

 private:
  OpStats& StatsFor(IoOp op) {
    return op == IoOp::kRead ? read_ : op == IoOp::kWrite ? write_ : other_;
  }

  OpStats read_, write_, other_;  // other_: flush and discard
  Nanos start_ = 0, end_ = 0;
};

// `lat_ns` object for one histogram, with fio's percentile keys ("%f").
nlohmann::json LatencyToFioJson(const LatencyHistogram& h);

}  // namespace tierlab
