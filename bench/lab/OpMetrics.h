#pragma once
// Per-operation-type results of a run: ops, bytes, IOPS, bandwidth and the
// latency histogram, for reads, writes and all ops together ("complete", the
// VMFleet/HCIBench name). The runner records each completion and sets the
// measured window (after ramp_time); rates are over that window.
//
// Not thread-safe: one OpMetrics per job, merged for the report.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "bench/lab/LatencyHistogram.h"
#include "bench/lab/TimeBins.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

// fio samples bandwidth and IOPS every 500 ms by default (bwavgtime,
// iopsavgtime); bw_min/max/mean/dev and iops_min/max/mean/stddev are over
// these samples.
inline constexpr Nanos kFioSampleInterval = 500 * kMilli;

struct OpStats {
  std::uint64_t ops = 0;
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;  // completions with a non-ok status (not in lat/ops/bytes)
  LatencyHistogram lat;      // from arrival (open loop) or issue to completion
  // Issue to completion, kept only where it differs from `lat` (open-loop
  // arrivals that waited for a slot); empty: the same as lat.
  LatencyHistogram clat;
  // Completions per kFioSampleInterval from the sampling origin.
  std::vector<std::uint64_t> sample_ops, sample_bytes;
  // Completions in fine bins from the sampling origin, for the confidence
  // intervals (batch means: bench/analysis/BatchMeans.h).
  TimeBins bins;

  void Record(std::uint64_t length, Nanos latency) {
    ++ops;
    bytes += length;
    lat.Record(latency);
  }
  void Sample(std::size_t interval, std::uint64_t length) {
    if (interval >= sample_ops.size()) {
      sample_ops.resize(interval + 1);
      sample_bytes.resize(interval + 1);
    }
    ++sample_ops[interval];
    sample_bytes[interval] += length;
  }
  void Merge(const OpStats& other);
  // Over a window of `window` ns; 0 if the window is empty.
  double Iops(Nanos window) const;
  double BandwidthBytesPerSec(Nanos window) const;
};

class OpMetrics {
 public:
  // Reads, writes, trims (discard) and syncs (flush) go to their own stats;
  // complete() sums them all. (Summed when asked, not recorded twice: one histogram update
  // per I/O is a measurable part of a simulated run.)
  // `now`: the completion's time, for the interval samples (-1: none).
  void Record(IoOp op, std::uint64_t length, Nanos latency, Nanos now = -1) {
    OpStats& s = StatsFor(op);
    s.Record(length, latency);
    if (now >= origin_) {
      s.Sample(static_cast<std::size_t>((now - origin_) / kFioSampleInterval), length);
      s.bins.Add(now - origin_, length, latency);
    }
  }
  // Open loop: an I/O whose issue came after its arrival. Its issue-to-
  // completion time goes to clat; once one is recorded, every I/O of that
  // direction must be (pass `clat == latency` for the others).
  void RecordClat(IoOp op, Nanos clat) { StatsFor(op).clat.Record(clat); }
  // Where interval samples start (the measured window's start).
  void SetSampleOrigin(Nanos t) { origin_ = t; }
  void RecordError(IoOp op) { ++StatsFor(op).errors; }

  // The measured window [start, end) on the engine clock.
  void SetWindow(Nanos start, Nanos end) { start_ = start, end_ = end; }
  Nanos window() const { return end_ > start_ ? end_ - start_ : 0; }

  const OpStats& read() const { return read_; }
  const OpStats& write() const { return write_; }
  const OpStats& trim() const { return trim_; }
  const OpStats& sync() const { return sync_; }
  OpStats complete() const;

  // Sums the stats; the window becomes the union [min start, max end], which
  // is right for jobs that ran concurrently.
  void Merge(const OpMetrics& other);
  void Reset();

  // fio-compatible keys: {"read": {...}, "write": {...}, "complete": {...}},
  // each with fio's {"io_bytes", "io_kbytes", "bw_bytes", "bw" (KiB/s),
  // "iops", "runtime" (ms), "total_ios", "short_ios", "drop_ios",
  // "slat_ns", "clat_ns" (with "percentile": {"1.000000": v, ...}), "lat_ns"
  // (also with percentiles, which tierlab's own reports read), "bw_min",
  // "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min",
  // "iops_max", "iops_mean", "iops_stddev", "iops_samples"} plus "errors".
  // "trim" has the same keys; "sync" is fio's {"total_ios", "lat_ns"} (flushes).
  // slat is 0: a submission costs no modelled time (simulated) or is inside
  // clat (real). bw_* and iops_* are over the full 500 ms intervals of the
  // window (one sample of the whole window when it is shorter).
  // tierlab's, beside fio's keys: 95% confidence intervals by batch means
  // over the window (bench/lab/CiFormat.h for the shape, null without one):
  // "iops_ci95", "bw_bytes_ci95", "lat_ns": {"mean_ci95"}, and
  // "ci95_batches": {"batches", "batch_ns", "lag1"} (the batches and the
  // lag-1 autocorrelation of their completion counts). Percentiles carry
  // none (docs/METHODOLOGY.md says why).
  nlohmann::json ToJson() const;

 private:
  OpStats& StatsFor(IoOp op) {
    switch (op) {
      case IoOp::kRead: return read_;
      case IoOp::kWrite: return write_;
      case IoOp::kDiscard: return trim_;
      case IoOp::kFlush: return sync_;
    }
    return sync_;
  }

  OpStats read_, write_, trim_, sync_;
  Nanos start_ = 0, end_ = 0;
  Nanos origin_ = 0;
};

// `lat_ns` object for one histogram, with fio's percentile keys ("%f").
nlohmann::json LatencyToFioJson(const LatencyHistogram& h);

}  // namespace tierlab
