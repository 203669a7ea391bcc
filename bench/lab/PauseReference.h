#pragma once
// A device's pauses again after each real cell of `tierlab validate`.
//
// Why: a calibrated preset's pauses (DevicePreset.h, "pauses"; measured by
// `tierlab calibrate`, DevicePauses.h) are the rate of the two seconds the
// calibration spent on them, and a shared host's disk does not keep it: on
// this machine the rate of pauses of 200 us and more moves threefold from
// one minute to the next (docs/VALIDATION.md, "p99 of the slow-tier
// cells"), and the cells whose p99 the model missed had met more of them
// than the calibration saw. So, as with the host's speed
// (HostReference.h), a control measurement: right after each real cell,
// the pause probe runs again on the path of every tier whose preset has
// pauses, and that cell's model holds its devices for the pauses measured
// then instead of the calibrated ones.
//
// The probe is the calibration's (4 KiB random reads at QD1 over the file,
// opened read-only on its own engine, kPauseReferenceWindow long), on a
// tier's first path, standing for all its devices (one preset for them
// all). A tier whose preset has no pauses is not probed: its calibration
// saw none (RAM, a file in /dev/shm). A cluster layout's paths are a
// template per node: not probed. The window is a second, so a rate of a
// few a second is counted to within its square root: better than a rate
// off by a factor of three, and a second's cost per cell is what the
// example's three minutes can spare.
//
// Threading: one thread (the matrix runner's worker in real mode).

#include <nlohmann/json.hpp>

#include "bench/lab/Matrix.h"
#include "tiering/core/Expected.h"

namespace tierlab {

inline constexpr Nanos kPauseReferenceWindow = 1 * kSecond;

// After a real cell: probes its tiers with pauses and writes into the
// cell's JSON
//
//   "device_pauses": [{"tier": "capacity", "path": "cap.img", "window_s": 1.0,
//                      "median_read_us": 301.2,
//                      "per_second": 4.0, "share": 0.0031,
//                      "pauses": [{"duration_us": 640, "per_second": 3.0}, ...],
//                      "calibrated": [{"duration_us": 686, "per_second": 3.5}, ...]}]
//
// ("per_second": all classes together; "share": of the window, paused).
// Nothing is written for a cell with no tier to probe. Errors: a path
// that does not open or a read that fails (kIo), naming the tier.
Expected<void> MeasureCellPauses(const MatrixCell& cell, nlohmann::json& cell_json,
                                 Nanos window = kPauseReferenceWindow);

// The model's side: each tier named in the measured twin's device_pauses
// holds its devices for the pauses measured there. A cell without
// device_pauses is left alone. Errors (kInconsistent): an entry whose
// tier the layout lacks, or whose pauses are not a list of positive
// duration_us and non-negative per_second.
Expected<void> ApplyCellPauses(MatrixCell& cell, const nlohmann::json& measured_cell);

}  // namespace tierlab
