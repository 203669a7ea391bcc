#include "bench/workload/ReplaySpec.h"

#include <cstdio>

#include "bench/workload/Profile.h"  // kMaxIodepth

namespace tierlab {

Expected<ReplayMode> ParseReplayMode(const std::string& s) {
  if (s == "closed") return ReplayMode::kClosed;
  if (s == "open") return ReplayMode::kOpen;
  return Error{"--replay-mode must be closed or open, got '" + s + "'", ErrorKind::kInput};
}

Expected<void> CheckReplaySpec(const ReplaySpec& o) {
  if (o.iodepth == 0 || o.iodepth > kMaxIodepth) {
    return Error{"replay: iodepth: must be 1.." + std::to_string(kMaxIodepth) + ", got " +
                     std::to_string(o.iodepth),
                 ErrorKind::kInput};
  }
  if (!(o.time_scale_percent >= kMinReplayTimeScale &&
        o.time_scale_percent <= kMaxReplayTimeScale)) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "replay: replay_time_scale: must be %g..%g (%% of the trace's rate), got %g",
                  kMinReplayTimeScale, kMaxReplayTimeScale, o.time_scale_percent);
    return Error{buf, ErrorKind::kInput};
  }
  if (o.replay_scale == 0) return Error{"replay: replay_scale: must be >= 1", ErrorKind::kInput};
  return {};
}

}  // namespace tierlab
