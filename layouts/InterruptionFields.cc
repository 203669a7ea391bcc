#include "layouts/InterruptionFields.h"

#include <cmath>
#include <string>
#include <utility>

namespace tierlab {

void ReadInterruptions(JsonFields& f, std::string_view k, const InterruptionKeys& keys,
                       std::vector<Interruption>& out) {
  const nlohmann::json* list = f.Raw(k);
  if (list == nullptr || !f.ok()) return;
  const std::string dur(keys.duration_key);
  if (!list->is_array()) {
    f.Fail(k, "must be an array of {" + dur + ", per_second}");
    return;
  }
  std::vector<Interruption> read;
  double seconds = 0;  // of interruptions per second of the resource's own time
  for (std::size_t i = 0; i < list->size(); ++i) {
    JsonFields e = f.Child((*list)[i], std::string(k) + "[" + std::to_string(i) + "]");
    e.OnlyKeys({keys.duration_key, "per_second"});
    if (e.ok() && !e.Has(dur)) {
      e.Fail(dur, "missing; how long a " + std::string(keys.noun) + " is");
    }
    Interruption x;
    // Nanoseconds are whole; a microsecond figure may carry a fraction.
    x.duration = keys.unit == 1
                     ? e.Int(dur, 0, 1, static_cast<std::int64_t>(keys.max_duration))
                     : static_cast<Nanos>(std::llround(e.Number(dur, 0, 1, keys.max_duration) *
                                                       static_cast<double>(keys.unit)));
    x.per_second = e.Number("per_second", 0, 0, keys.max_per_second);
    if (!e.ok()) {
      f.Adopt(e);
      return;
    }
    seconds += static_cast<double>(x.duration) * x.per_second / 1e9;
    read.push_back(x);
  }
  const double share = seconds / (1 + seconds);
  if (share >= keys.max_share) {
    f.Fail(k, "take " + std::to_string(std::lround(share * 100)) + "% of " +
                  std::string(keys.whose) + " time; at most " +
                  std::to_string(std::lround(keys.max_share * 100)) + "%");
    return;
  }
  out = std::move(read);
}

nlohmann::json InterruptionsJson(const std::vector<Interruption>& list,
                                 const InterruptionKeys& keys) {
  nlohmann::json a = nlohmann::json::array();
  for (const Interruption& x : list) {
    nlohmann::json d;
    if (keys.unit == 1) {
      d = x.duration;
    } else {
      d = static_cast<double>(x.duration) / static_cast<double>(keys.unit);
    }
    a.push_back({{std::string(keys.duration_key), std::move(d)},
                 {"per_second", std::round(x.per_second * 1000) / 1000}});
  }
  return a;
}

}  // namespace tierlab
