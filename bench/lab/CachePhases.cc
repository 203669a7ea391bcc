#include "bench/lab/CachePhases.h"

namespace tierlab {

std::string ClassifyCacheRound(const CacheStats& before, const CacheStats& after) {
  const double one_percent = 0.01 * static_cast<double>(after.capacity_lines);
  const double dirty_change =
      static_cast<double>(after.dirty_lines) - static_cast<double>(before.dirty_lines);
  if (after.throttled_ns > before.throttled_ns || after.write_throttled > before.write_throttled) {
    return "throttled";
  }
  const bool destaged = after.destaged_bytes > before.destaged_bytes;
  if (dirty_change > one_percent || (dirty_change > 0 && !destaged)) return "absorbing";
  if (destaged && dirty_change >= -one_percent) return "destaging";
  const std::uint64_t reads = after.read_requests - before.read_requests;
  const std::uint64_t promoted = after.promotions - before.promotions;
  if (reads > 0 && static_cast<double>(promoted) > 0.01 * static_cast<double>(reads)) {
    return "warming";
  }
  return "steady";
}

void CachePhases::Round(Nanos now, const CacheStats& stats) {
  if (now <= start_) return;
  std::string name = ClassifyCacheRound(last_, stats);
  const double growth =
      static_cast<double>(stats.dirty_lines) - static_cast<double>(last_.dirty_lines);
  const double room =
      static_cast<double>(stats.capacity_lines) - static_cast<double>(stats.dirty_lines);
  filling_ = name != "throttled" && growth > 0 && growth * kFillHorizonRounds >= room;
  if (!phases_.empty() && phases_.back().name == name) {
    phases_.back().end = now;
    ++phases_.back().rounds;
  } else {
    phases_.push_back({std::move(name), start_, now, 1});
  }
  start_ = now;
  last_ = stats;
}

nlohmann::json CachePhases::Json(Nanos origin) const {
  nlohmann::json out = nlohmann::json::array();
  for (const Phase& p : phases_) {
    out.push_back({{"phase", p.name},
                   {"start_s", static_cast<double>(p.start - origin) / kSecond},
                   {"end_s", static_cast<double>(p.end - origin) / kSecond},
                   {"rounds", p.rounds}});
  }
  return out;
}

}  // namespace tierlab
