#include "bench/lab/PrioLatencies.h"

#include <nlohmann/json.hpp>

#include "bench/lab/OpMetrics.h"

namespace tierlab {

void PrioLatencies::Declare(int dir, const std::vector<std::uint32_t>& values) {
  dirs_[dir].clear();
  for (std::uint32_t v : values) dirs_[dir].emplace_back(v, LatencyHistogram());
}

void PrioLatencies::Record(int dir, std::uint32_t ioprio, Nanos clat) {
  for (auto& [value, h] : dirs_[dir]) {
    if (value == ioprio) {
      h.Record(clat);
      return;
    }
  }
  dirs_[dir].emplace_back(ioprio, LatencyHistogram());
  dirs_[dir].back().second.Record(clat);
}

void PrioLatencies::Clear() {
  for (auto& d : dirs_) {
    for (auto& entry : d) entry.second.Reset();
  }
}

nlohmann::json PrioLatencies::Json(int dir) const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [value, h] : dirs_[dir]) {
    if (h.Count() == 0) continue;
    out.push_back({{"prioclass", value >> 13},
                   {"prio", value & 7},
                   {"priohint", (value >> 3) & 1023},
                   {"clat_ns", LatencyToFioJson(h)}});
  }
  return out.size() >= 2 ? out : nlohmann::json();
}

}  // namespace tierlab
