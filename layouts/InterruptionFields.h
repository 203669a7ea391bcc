#pragma once
// Lists of interruptions (tiering/core/Interruption.h) as files spell
// them: a host's or a cluster's CPU stalls ("stalls": [{"duration_ns":
// 14000, "per_second": 800}, ...], NodeCpuFields.h) and a device preset's
// pauses ("pauses": [{"duration_us": 2000, "per_second": 1.5}, ...],
// Layout.cc, PresetFile.cc, and the pauses `tierlab validate` measures
// after a cell, bench/lab/PauseReference.h). One reader and one writer;
// the keys say which spelling.

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "layouts/JsonFields.h"
#include "tiering/core/Interruption.h"

namespace tierlab {

struct InterruptionKeys {
  std::string_view duration_key;  // "duration_ns" (an integer) or "duration_us"
  Nanos unit = 1;                 // of the duration: 1 or kMicro
  double max_duration = 0;        // in `unit`
  double max_per_second = 0;
  std::string_view noun;   // "stall": "missing; how long a stall is"
  std::string_view whose;  // "the core's": "take 60% of the core's time"
  // The most of the resource's time the classes together may take, as the
  // model draws them (the next after the last one ends, so classes of
  // sum(duration x per_second) = x seconds a second take x / (1 + x) of
  // the time); 1: no bound, for what was measured after a cell.
  double max_share = 0.5;
};

// A core away half the time or more is not one a run can be modelled on
// (calibrate --cpu refuses a host away a quarter of it). A device's pauses
// may take up to 90%: calibrating a file on a disk other jobs keep busy
// measures most of the time paused (61-71% of the probe's 2 s here with a
// dd writing 256 MiB with O_DIRECT and fsync over and over beside it), and
// the preset is what the device did.
inline constexpr InterruptionKeys kCpuStallKeys{"duration_ns", 1, 1e9, 1e7, "stall", "the core's"};
inline constexpr InterruptionKeys kDevicePauseKeys{"duration_us", kMicro,         1e7, 1e6,
                                                   "pause",       "the device's", 0.9};

// The list at `k` into `out` (left as it was on an error, which `f` keeps;
// absent: left as it was). Refused when the classes together would take
// keys.max_share of the resource's time or more.
void ReadInterruptions(JsonFields& f, std::string_view k, const InterruptionKeys& keys,
                       std::vector<Interruption>& out);
// The list as ReadInterruptions reads it back (rates to a thousandth).
nlohmann::json InterruptionsJson(const std::vector<Interruption>& list,
                                 const InterruptionKeys& keys);

}  // namespace tierlab
