#include "bench/workload/ReplaySpec.h"

namespace tierlab {

Expected<ReplayMode> ParseReplayMode(const std::string& s) {
  if (s == "closed") return ReplayMode::kClosed;
  if (s == "open") return ReplayMode::kOpen;
  return Error{"--replay-mode must be closed or open, got '" + s + "'", kExitUsage};
}

}  // namespace tierlab
