#pragma once
// fio's bandwidth, IOPS and latency logs of one job (write_bw_log,
// write_iops_log, write_lat_log, log_avg_msec, log_offset), in fio 3.33's
// format: a line "time_ms, value, ddir, bs, prio" per entry ("time_ms,
// value, ddir, bs, offset, prio" with log_offset), ddir 0 read, 1 write,
// 2 trim, prio the I/O's priority: 1 for fio's RT class, else 0, or with
// log_prio its value in hex ("0x4000"; IoPriority.h). Files are fio's: NAME_bw.N.log,
// NAME_iops.N.log, and NAME_lat.N.log, NAME_clat.N.log, NAME_slat.N.log, with N the job's index in
// its job file (1-based, clones counted) and NAME relative to the current directory.
//
// Values as fio computes them. Per I/O (log_avg_msec 0): lat/clat/slat in
// ns (slat 0, as in the JSON), IOPS 1, bandwidth bytes * 10^6 / clat ns.
// Averaged (log_avg_msec N): an entry per direction for each N ms interval
// with completions, at the interval's end; bandwidth in KiB/s and IOPS over
// the interval, latencies the interval's mean; bs, offset and prio 0 (fio
// 3.33).
//
// Memory is fixed: per-I/O lines go straight to stdio's buffers, averaged
// entries keep one interval's sums. A per-I/O log of a long simulated run is
// as large as fio's would be (about 25 bytes a line, per file); log_avg_msec
// bounds it.
//
// Threading: the run's engine thread. Add() allocates nothing.

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

class FioLogs {
 public:
  // The logs `p` asks for, files opened (truncated) now; null when it asks
  // for none. `index`: the job's fio index (N). Errors: a file that cannot
  // be created (kIo, naming it).
  static Expected<std::unique_ptr<FioLogs>> Open(const Profile& p, std::uint32_t index);
  ~FioLogs();
  FioLogs(const FioLogs&) = delete;
  FioLogs& operator=(const FioLogs&) = delete;

  // One completion of the measured window: `t` ns from its start.
  void Add(IoOp op, Nanos t, std::uint64_t length, std::uint64_t offset, Nanos lat, Nanos clat,
           std::uint32_t prio = 0);
  // Writes the last interval's entries and closes the files. Errors: a
  // failed write (kIo, naming the file).
  Expected<void> Finish();

  // The file names written, in order (for messages and tests).
  const std::vector<std::string>& files() const { return names_; }

 private:
  enum Kind : std::uint8_t { kBw, kIops, kLat, kClat, kSlat, kKinds };
  struct Window {
    std::uint64_t ops = 0, bytes = 0;
    double lat_sum = 0, clat_sum = 0;
  };
  FioLogs() = default;
  void Line(Kind k, std::uint64_t ms, std::uint64_t value, int ddir, std::uint64_t bs,
            std::uint64_t offset, std::uint32_t prio);
  void FlushWindow();

  std::array<std::FILE*, kKinds> files_{};
  std::array<std::string, kKinds> paths_;
  std::vector<std::string> names_;
  Nanos avg_ = 0;  // log_avg_msec in ns; 0: per I/O
  bool offsets_ = false;
  bool log_prio_ = false;
  std::uint64_t window_ = 0;    // index of the interval being summed
  std::array<Window, 3> dirs_;  // read, write, trim
};

}  // namespace tierlab
