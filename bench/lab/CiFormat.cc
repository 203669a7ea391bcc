#include "bench/lab/CiFormat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

int CiDigits(double half_width, int digits) {
  if (!(half_width > 0) || !std::isfinite(half_width)) return digits;
  const int first = static_cast<int>(std::floor(std::log10(half_width)));
  return std::clamp(-first, digits, 6);
}

std::string FormatFixed(double value, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string FormatWithCi(double value, double half_width, int digits) {
  if (half_width < 0) return FormatFixed(value, digits);
  char buf[96];
  const int d = CiDigits(half_width, digits);
  std::snprintf(buf, sizeof buf, "%.*f ± %.*f", d, value, d, half_width);
  return buf;
}

}  // namespace tierlab
