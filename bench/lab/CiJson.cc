#include "bench/lab/CiJson.h"

namespace tierlab {

nlohmann::json CiToJson(const ConfidenceInterval& ci, std::string_view method) {
  if (!ci.valid()) return nullptr;
  return {{"lo", ci.lo()},
          {"hi", ci.hi()},
          {"half_width", ci.half_width},
          {"n", ci.n},
          {"method", std::string(method)}};
}

ConfidenceInterval CiFromJson(const nlohmann::json& j) {
  ConfidenceInterval ci;
  if (!j.is_object()) return ci;
  auto number = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number();
  };
  if (!number("lo") || !number("hi") || !number("n")) return ci;
  const double lo = j.at("lo").get<double>(), hi = j.at("hi").get<double>();
  const double n = j.at("n").get<double>();
  if (!(hi >= lo) || !(n >= 2)) return ci;
  ci.centre = (lo + hi) / 2;
  ci.half_width = (hi - lo) / 2;
  ci.n = static_cast<std::size_t>(n);
  return ci;
}

}  // namespace tierlab
