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
// Rotational media have a probe and a fit of their own (HddPlan,
// FitHddModel; bench/lab/HddCalibration.cc): spans of the disk that separate
// rotation, seek and overhead.
//
// Threading: the engine's thread; the probe calls engine.Run() per point.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/lab/LatencyHistogram.h"
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
  // The part of the plan's region the point covers: its first `span` bytes,
  // or its last with `at_end`; 0 = the whole region.
  std::uint64_t span = 0;
  bool at_end = false;
  // "randread 4k QD32", "write 1m QD4", "randread 4k QD1 over 128k",
  // "read 1m QD4 over 256m at end".
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
  // After the points, reads at QD1 for this long to find the device's
  // pauses (DevicePauses.h); 0: not probed (a disk's seeks hide them).
  Nanos pause_window = 0;
};

// The default probe (about three minutes): 4k random read and write at QD
// 1, 2, 4, 8, 16, 32 and 64, sequential 128k at QD8 and 1m at QD4 each way,
// then 5 s of pauses.
CalibrationPlan FullPlan();
// At most a minute: QD 1, 4 and 32, the same sequential points, shorter
// runs, 2 s of pauses.
CalibrationPlan QuickPlan();
// Wall time the plan takes when every point settles at once (fill excluded).
Nanos PlannedTime(const CalibrationPlan& plan);

// How many bands PointFigures::lat_tenths_ns has.
inline constexpr std::size_t kLatencyTenths = 10;
using LatencyTenths = std::array<double, kLatencyTenths>;
// `lat`'s 5th, 15th, ..., 95th percentiles.
LatencyTenths TenthsOf(const LatencyHistogram& lat);

struct PointFigures {
  double iops = 0;
  double bw_bytes = 0;     // bytes per second
  double lat_mean_ns = 0;  // issue to completion
  double lat_p99_ns = 0;
  double lat_p1_ns = 0;
  // The 5th, 15th, ..., 95th percentiles of the latency: where each tenth
  // of the requests sits, the spread a mean and a p99 do not show (at a
  // saturated QD on RAM files, the host's speed; HostCpuCalibration.h).
  LatencyTenths lat_tenths_ns{};
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
  // What the fit chose rather than measured, one line each (an HDD's speed
  // snapped to a standard one, figures kept from the base preset).
  std::vector<std::string> notes;
};

// Fits the flash model to `probe` (which must hold a 4k QD1 point and a
// sequential point per direction: kInput otherwise) and predicts each
// point with it. `base` gives the type, name, product and capacity.
Expected<CalibrationFit> FitFlashModel(const std::vector<ProbeResult>& probe,
                                       const CalibrationPlan& plan, const DevicePreset& base);

// `point` run on `preset`'s model in simulated time (a disk's over its whole
// stroke, `plan.region`).
Expected<PointFigures> PredictPoint(const DevicePreset& preset, const CalibrationPlan& plan,
                                    const ProbePoint& point);
// Runs every probed point again on `fit.preset`'s model in simulated time and
// fills fit.points and the largest errors.
Expected<void> PredictProbe(const std::vector<ProbeResult>& probe, const CalibrationPlan& plan,
                            CalibrationFit& fit);

// ---- Rotational media (HddCalibration.cc) ----------------------------------
//
// The probe, over the whole disk (`device_bytes`; no fill: a disk has no
// unmapped blocks to skip): 4k random reads and writes at QD1 within
// kHddNearSpan (some tens of tracks: the shortest seeks, then a rotational
// wait that is uniform over a turn, since the target's angle has nothing to
// do with the head's), over a sixteenth of the disk and over all of it;
// random reads at a sweep of queue depths and writes at QD32; 4k sequential
// reads at QD1 (read-ahead hits); 1 MiB sequential reads at the start and at
// the end (outer and inner zone) and writes at the start.
inline constexpr std::uint64_t kHddNearSpan = 64ull << 20;
CalibrationPlan HddPlan(bool quick, std::uint64_t device_bytes);

// Fits HddModel's figures (HddModel.h) to an HddPlan probe:
//   revolution = (p99 - p1) / 0.98 of the near reads (their seeks are all
//                about a track-to-track one; the wait is uniform over a
//                turn), snapped to a standard speed within 4%
//   zone rates = the 1 MiB sequential reads at the start and at the end
//   per direction, L(f) = the QD1 mean over a span f of the disk less its
//   transfer time = overhead + t2t + (avg - t2t) sqrt(f) + revolution / 2
//   (E[seek over f] = t2t + (avg - t2t) sqrt(f)): a least-squares line
//   through the near, sixteenth and whole-disk points in sqrt(f) gives
//   avg - t2t (slope) and overhead + t2t (intercept less half a turn). At QD1
//   only that sum shows; under a deep queue the drive picks short seeks and
//   hides the overhead, so the split is the t2t in [0, sum] whose model
//   matches the deep-queue points (QD >= 16) best (golden-section search).
//   read-hit overhead = the 4k sequential reads less their link time
//   NCQ depth = the smallest probed depth within 3% of the sweep's best IOPS
//               (0, no queueing, when depth gains nothing)
// `base` (a catalog HDD preset, renamed) gives what is not probed: the
// buffer size and the host link rate. Errors: a probe without those points
// (kInput); a disk that does not look rotational (near reads faster than
// kHddMinRevolution: it has no platter to wait for), kInconsistent.
inline constexpr Nanos kHddMinRevolution = 2 * kMilli;  // 30,000 rpm
Expected<CalibrationFit> FitHddModel(const std::vector<ProbeResult>& probe,
                                     const CalibrationPlan& plan, const DevicePreset& base);

// ---- The write cliff (WriteCliffCalibration.cc) ----------------------------
//
// Optional (`calibrate --write-cliff SIZE`), after the probe: SNIA PTS's
// write saturation test measured in bytes rather than minutes. 4 KiB random
// writes at QD32 over the plan's region, `bytes` of them in `samples` equal
// runs, each run's IOPS a sample; then sequential 1 MiB writes at QD4 for
// plan.runtime (the steady bandwidth); and, with `idle` and a cliff seen
// (FitWriteCliff's rule), the device left alone that long and written again
// in runs of an eighth of `bytes` until its rate falls (what came back, over
// the idle time, is the recovery rate).
struct CliffPlan {
  std::uint64_t bytes = 0;  // 0: no cliff probe
  std::uint32_t samples = 64;
  Nanos idle = 0;  // 0: recovery not probed
};

struct CliffSample {
  // Bytes the device had been written before the run, by the whole
  // calibration (its fill and probe too): a cliff is counted from the state
  // the device was in when calibration began.
  std::uint64_t written = 0;
  std::uint64_t bytes = 0;  // the run's
  double iops = 0;
};

struct CliffProbe {
  std::vector<CliffSample> samples;     // the write saturation runs
  PointFigures steady_seq;              // the sequential writes after them
  std::vector<CliffSample> after_idle;  // empty: recovery not probed
  Nanos idle = 0;
};

// Errors: a run's (as RunProbe's); a plan with fewer than 8 samples or runs
// smaller than 32 blocks (kInput).
Expected<CliffProbe> RunCliffProbe(Engine& engine, BlockDevice& device, const CalibrationPlan& plan,
                                   const CliffPlan& cliff);

// Fits the cliff into `fit.preset` (a flash preset the probe already fitted):
//   rated  = the median IOPS of the first three samples
//   steady = the median IOPS of the last quarter
// A cliff, not a dip or a wandering rate: the steady rate more than
// kCliffDrop below the rated one and below the probe's write_iops_4k, at
// least three samples before the first one below the midpoint of the rates
// (i), and at most a tenth of those after it back at or above the midpoint.
// Otherwise the preset keeps none and a note says so. Every sample's IOPS is
// the harmonic blend of the two rates by the share f of its bytes written
// before the cliff, f = (1/steady - 1/iops) / (1/steady - 1/rated), so:
//   write_cliff           = written(i-1) + (f(i-1) + f(i)) x run bytes
//   steady_write_iops_4k  = steady
//   steady_seq_write_mbps = the sequential writes' bandwidth
//   cliff_recovery_mbps   = what the after-idle runs wrote before the rate
//                           fell (their first run below the midpoint), over
//                           the idle time
// Errors: a probe with fewer than 8 samples (kInput).
inline constexpr double kCliffDrop = 0.15;
Expected<void> FitWriteCliff(const CliffProbe& probe, CalibrationFit& fit);

}  // namespace tierlab
