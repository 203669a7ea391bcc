#pragma once
// A RAM device's own figures: the copies its reads and writes are, timed
// without tierlab's engine.
//
// A file on tmpfs or ramfs is mapped (FileDevice.h, "Memory filesystems"),
// so each of its reads and writes is a memcpy done on the engine's thread.
// Probed through that thread (`tierlab calibrate`'s points), a RAM file's
// IOPS and latency are the thread's: the submission, the completion, the
// generator and the copy. The host CPU's model (`calibrate --cpu`,
// HostCpuCalibration.h) charges every request that thread's time already,
// so a RAM preset fitted to the probe counted it twice: where the host ran
// fast, the modelled device rather than the CPU bound a RAM-speed cell
// (docs/VALIDATION.md). `tierlab calibrate` on a mapped file therefore fits
// the preset to the memory itself:
//   latency   = the median time of a 4 KiB copy at a random 4 KiB-aligned
//               offset (per direction: from the mapping, into it)
//   IOPS      = 1 / that time (one service unit: the one thread that copies)
//   bandwidth = 1 MiB / the median time of a sequential 1 MiB copy
// and keeps the probe's points, whose errors against this fit are the
// engine's share. These figures are for a layout without a host CPU model;
// under one the CPU's costs hold the copies, and a RAM device takes no
// time of its own (ModelOptions::time_on_host_cpu).
//
// Each kind is timed in batches (64 copies of 4 KiB, 4 of 1 MiB) for a
// quarter of the window, and a batch's mean is one sample: the median
// sample keeps the host's stalls (HostStalls.h) out, as a device model
// holds none.
//
// Threading: the caller's; no engine.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/lab/DeviceCalibration.h"
#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

struct MemoryCopies {
  double read_4k_ns = 0;     // a 4 KiB copy out of the memory
  double write_4k_ns = 0;    // a 4 KiB copy into it
  double read_bw_bytes = 0;  // bytes per second, 1 MiB copies in order
  double write_bw_bytes = 0;
  Nanos window = 0;  // the time the four kinds took together
};

// The smallest range the probe times: a 1 MiB copy and a second one.
inline constexpr std::uint64_t kMemoryCopyMinBytes = 2ull << 20;

// Times copies out of and into [base, base + bytes), which it overwrites.
// Errors: a range under kMemoryCopyMinBytes or a window under a millisecond
// (kInput).
Expected<MemoryCopies> MeasureMemoryCopies(std::byte* base, std::uint64_t bytes, Nanos window,
                                           std::uint64_t seed = 0x3e3c0b1e5);

// The same on the first `region` bytes of the file at `path`, mapped shared
// (the mapping FileDevice makes of a memory file). Errors name the path: a
// file that does not open or map (kIo), one shorter than `region` (kInput).
Expected<MemoryCopies> MeasureFileCopies(const std::string& path, std::uint64_t region,
                                         Nanos window);

// Sets `fit.preset`'s flash figures to `copies` (above), runs the probe's
// points again on the model (PredictProbe) and adds a note that says so.
Expected<void> FitMemoryCopies(const MemoryCopies& copies, const std::vector<ProbeResult>& probe,
                               const CalibrationPlan& plan, CalibrationFit& fit);

}  // namespace tierlab
