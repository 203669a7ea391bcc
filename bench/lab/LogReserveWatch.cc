#include "bench/lab/LogReserveWatch.h"

#include <utility>

namespace tierlab {

LogReserveWatch::LogReserveWatch(std::vector<const LogStructuredTarget*> logs)
    : logs_(std::move(logs)) {}

void LogReserveWatch::Round() {
  const bool first = last_.empty();
  last_.resize(logs_.size());
  draining_ = false;
  for (std::size_t i = 0; i < logs_.size(); ++i) {
    const std::uint32_t now = logs_[i]->free_segments();
    if (!first && now < last_[i] &&
        static_cast<std::uint64_t>(last_[i] - now) * kHorizonRounds >= now) {
      draining_ = true;
    }
    last_[i] = now;
  }
}

}  // namespace tierlab
