#include "layouts/NodeCpuFields.h"

#include <cmath>
#include <string>

namespace tierlab {

void ReadCpuStalls(JsonFields& f, std::string_view k, std::vector<CpuStall>& stalls) {
  const nlohmann::json* list = f.Raw(k);
  if (list == nullptr || !f.ok()) return;
  if (!list->is_array()) {
    f.Fail(k, "must be an array of {duration_ns, per_second}");
    return;
  }
  std::vector<CpuStall> read;
  double share = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    JsonFields s = f.Child((*list)[i], std::string(k) + "[" + std::to_string(i) + "]");
    s.OnlyKeys({"duration_ns", "per_second"});
    if (s.ok() && !s.Has("duration_ns")) s.Fail("duration_ns", "missing; how long a stall is");
    CpuStall stall;
    stall.duration = s.Int("duration_ns", 0, 1, 1'000'000'000);
    stall.per_second = s.Number("per_second", 0, 0, 1e7);
    if (!s.ok()) {
      f.Adopt(s);
      return;
    }
    share += static_cast<double>(stall.duration) * stall.per_second / 1e9;
    read.push_back(stall);
  }
  // Stalls that take half the core or more: not a host a run can be
  // modelled on.
  if (share >= 0.5) {
    f.Fail(k, "take " + std::to_string(std::lround(share * 100)) +
                  "% of the core's time; at most 50%");
    return;
  }
  stalls = std::move(read);
}

nlohmann::json CpuStallsJson(const std::vector<CpuStall>& stalls) {
  nlohmann::json a = nlohmann::json::array();
  for (const CpuStall& s : stalls) {
    a.push_back({{"duration_ns", s.duration}, {"per_second", s.per_second}});
  }
  return a;
}

}  // namespace tierlab
