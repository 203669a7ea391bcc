#pragma once
// How a block trace is replayed as a workload: the options a trace profile
// (TraceProfile.h), `tierlab run --trace` and `tierlab analyze` set. The
// replay itself is bench/lab/TraceReplay.h; these are its inputs, kept here
// so that a workload can be described without the lab that runs it.
//
// Closed loop (default): `iodepth` requests outstanding, issued in trace
// order as fast as the stack completes them; timestamps are ignored.
// Open loop: each record arrives at its trace timestamp scaled by fio's
// replay_time_scale, a percentage of the original rate (100 = as recorded,
// 50 = half the rate, i.e. twice as slow, 200 = twice as fast).

#include <cstdint>
#include <string>

#include "tiering/core/Expected.h"

namespace tierlab {

enum class ReplayMode : std::uint8_t { kClosed, kOpen };

// replay_time_scale accepted: 10^-6 % (a trace's second lasts a simulated
// 3.2 years) to 10^9 % (10^7 times the trace's rate). Outside it a scaled
// timestamp soon leaves the 292-year range of the engine's nanosecond clock
// or every arrival falls on the same nanosecond.
inline constexpr double kMinReplayTimeScale = 1e-6;
inline constexpr double kMaxReplayTimeScale = 1e9;

struct ReplaySpec {
  ReplayMode mode = ReplayMode::kClosed;
  std::uint32_t iodepth = 1;  // outstanding requests at most, 1..kMaxIodepth
  // fio's replay_time_scale: % of the original I/O rate (open loop),
  // kMinReplayTimeScale..kMaxReplayTimeScale.
  double time_scale_percent = 100;
  std::uint64_t replay_scale = 1;  // offsets divided by this, >= 1
  bool reject_past_end = false;    // false: wrap modulo the volume size
  std::uint64_t max_records = 0;   // 0: the whole trace
};

// The ranges above: "replay: <option>: must be ..." (exit code 2).
Expected<void> CheckReplaySpec(const ReplaySpec& spec);

// "closed" or "open"; anything else is a usage error naming --replay-mode.
Expected<ReplayMode> ParseReplayMode(const std::string& s);

}  // namespace tierlab
