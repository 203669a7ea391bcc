#pragma once
// Calibration: measures one device the way the flash model (SsdModel.h)
// describes a device, and fits the model's figures to the measurement
// (`tierlab calibrate`, docs/VALIDATION.md).
//
// The probe (a CalibrationPlan): 4 KiB random reads and writes at a sweep of
// queue depths, and sequential reads and writes of 128 KiB and 1 MiB, over
// the device's first `region` bytes, which a sequential 1 MiB pass writes
// first (a file's holes and a flash device's unmapped blocks read back
// without touching the media, as fio's layout pass knows). Each point runs
// `repeats` times, time based, after a ramp; its figure is the median. A
// point has settled when the range of its repeats is within `tolerance` of
// their median (the SNIA PTS range criterion); one that has not is run again,
// up to `max_repeats` runs, and then the calibration is refused, naming it.
//
// The fit, per direction, gives SsdModel's three figures:
//   latency   = the mean latency of 4 KiB at QD1
//   IOPS      = the highest median IOPS of the 4 KiB sweep
//   bandwidth = the highest median bandwidth of the sequential points
// and service_units = ceil(IOPS x read latency), the queue depth at which
// the model saturates (the model itself does not use it). Each point's fit
// error is the model's figure (SsdModel with the fitted figures, run on the
// same point in simulated time) against the measured one.
//
// Rotational media are not fitted: the HDD model's seek and rotation need a
// probe of their own (the caller refuses them).
//
// Threading: the engine's thread; the probe calls engine.Run() per point.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab {

struct ProbePoint {
  RwMode rw = RwMode::kRandRead;  // kRandRead, kRandWrite, kRead or kWrite
  std::uint64_t bs = 4096;
  std::uint32_t iodepth = 1;
  bool is_read() const { return rw == RwMode::kRandRead || rw == RwMode::kRead; }
  bool is_random() const { return rw == RwMode::kRandRead || rw == RwMode::kRandWrite; }
  // "randread 4k QD32", "write 1m QD4".
  std::string Name() const;
};

struct CalibrationPlan {
  std::vector<ProbePoint> points;
  std::uint64_t region = 1ull << 30;  // bytes from the device's start
  Nanos ramp = 500 * kMilli;          // per run, not measured
  Nanos runtime = 3 * kSecond;        // per run, measured
  std::uint32_t repeats = 3;
  std::uint32_t max_repeats = 6;
  double tolerance = 0.2;  // settled: (max - min) / median of the repeats
  bool fill = true;        // write the region once before the probe
};

// The default probe (about three minutes): 4k random read and write at QD
// 1, 2, 4, 8, 16, 32 and 64, sequential 128k at QD8 and 1m at QD4 each way.
CalibrationPlan FullPlan();
// At most a minute: QD 1, 4 and 32, the same sequential points, shorter runs.
CalibrationPlan QuickPlan();
// Wall time the plan takes when every point settles at once (fill excluded).
Nanos PlannedTime(const CalibrationPlan& plan);

struct PointFigures {
  double iops = 0;
  double bw_bytes = 0;     // bytes per second
  double lat_mean_ns = 0;  // issue to completion
  double lat_p99_ns = 0;
};

struct ProbeResult {
  ProbePoint point;
  std::vector<PointFigures> runs;  // every run, in order
  PointFigures median;             // per figure, over the runs
  bool settled = false;
  double spread = 0;  // (max - min) / median of the runs' IOPS
};

struct ProbeProgress {
  const ProbePoint* point = nullptr;  // null: the fill pass
  std::uint32_t run = 0;              // 1-based
};

// Runs the plan on `device`. Errors: a run that fails (the device's error),
// a region larger than the device, a point that does not settle within
// max_repeats runs ("randread 4k QD32 did not settle: ...", kInconsistent).
Expected<std::vector<ProbeResult>> RunProbe(
    Engine& engine, BlockDevice& device, const CalibrationPlan& plan,
    const std::function<void(const ProbeProgress&)>& progress = {});

struct FitPoint {
  ProbePoint point;
  PointFigures measured;
  PointFigures model;
  double iops_error = 0;      // (model - measured) / measured
  double lat_mean_error = 0;  // (model - measured) / measured
};

struct CalibrationFit {
  DevicePreset preset;
  std::vector<FitPoint> points;
  double max_iops_error = 0;  // largest |iops_error|
  double max_lat_error = 0;   // largest |lat_mean_error|
};

// Fits the flash model to `probe` (which must hold a 4k QD1 point and a
// sequential point per direction: kBadInput otherwise) and predicts each
// point with it. `base` gives the type, name, product and capacity.
Expected<CalibrationFit> FitFlashModel(const std::vector<ProbeResult>& probe,
                                       const CalibrationPlan& plan, const DevicePreset& base);

}  // namespace tierlab
