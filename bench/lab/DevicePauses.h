#pragma once
// A device's pauses as one request at a time sees them (DevicePreset.h,
// "pauses"): 4 KiB random reads at queue depth 1 over the calibration's
// region for a while, each timed; a read that took kPauseThreshold or more
// beyond the median read met a pause of that excess plus half a read (a
// pause begins, on average, half-way through the read it meets). `tierlab
// calibrate` runs it after the probe on flash and RAM and writes the
// classes into the preset, which a simulation then holds completions for
// (tiering/targets/DevicePauseTarget.h).
//
// Classed as the host's stalls are (HostStalls.h: bins of 2-5, 5-10, ...,
// 500-1000 us, 1-2 ms and so on): per class the mean excess and how often a
// second of the time the device was not paused. The threshold keeps a
// read's ordinary spread and the host's own stalls (tens of microseconds,
// which the host CPU's model has) out; what it keeps is what moves a
// millisecond-scale tier's p99 (docs/VALIDATION.md, "the slow tier's
// tail").

#include <cstdint>
#include <optional>
#include <string>

#include "bench/lab/HostStalls.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"

namespace tierlab {

inline constexpr Nanos kPauseThreshold = 200 * kMicro;

// Reads `device` for `window` (sim or real time) at random 4 KiB-aligned
// offsets below `region`, seeded with `seed`. Errors: a read that fails (the
// device's status, kIo), a region smaller than a read (kInput).
Expected<HostStalls> MeasureDevicePauses(Engine& engine, BlockDevice& device, std::uint64_t region,
                                         Nanos window, std::uint64_t seed = 0x9a05e);

// A device paused this share of the probe's window or more was measured at
// a busy moment: calibrate warns (its preset models the device as it was,
// mostly paused, and is written all the same).
inline constexpr double kMaxPausedShare = 0.4;
// The warning, naming the share and the window, when `seen` was paused
// kMaxPausedShare of its window or more; nothing otherwise.
std::optional<std::string> PausedShareWarning(const HostStalls& seen);

}  // namespace tierlab
