#include "layouts/NodeCpuFields.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace tierlab {

namespace {

// A level per window of a millisecond over a run of seconds: a few hundred
// levels say all a calibration can (it writes ten).
constexpr std::size_t kMaxSpeedLevels = 1000;
// Levels further apart than this are not a host's speed but a typo.
constexpr double kMaxSpeedRatio = 100;

}  // namespace

void ReadCpuSpeed(JsonFields& f, std::string_view k, CpuSpeedSpread& out) {
  const nlohmann::json* obj = f.Raw(k);
  if (obj == nullptr || !f.ok()) return;
  if (!obj->is_object()) {
    f.Fail(k, "must be an object {window_ns, levels}");
    return;
  }
  JsonFields e = f.Child(*obj, std::string(k));
  e.OnlyKeys({"window_ns", "levels"});
  if (e.ok() && !e.Has("window_ns")) e.Fail("window_ns", "missing; how long a level lasts");
  CpuSpeedSpread read;
  read.window = e.Int("window_ns", 0, 1000, 1'000'000'000);
  const nlohmann::json* levels = e.Raw("levels");
  if (e.ok() && (levels == nullptr || !levels->is_array() || levels->empty() ||
                 levels->size() > kMaxSpeedLevels)) {
    e.Fail("levels", "missing; an array of 1 to " + std::to_string(kMaxSpeedLevels) +
                         " relative speeds, each above 0");
  }
  if (!e.ok()) {
    f.Adopt(e);
    return;
  }
  double lo = 0;
  double hi = 0;
  for (std::size_t i = 0; i < levels->size(); ++i) {
    const nlohmann::json& v = (*levels)[i];
    const double x = v.is_number() ? v.get<double>() : 0;
    if (!v.is_number() || !(x > 0) || !std::isfinite(x)) {
      e.Fail("levels[" + std::to_string(i) + "]", "must be a number above 0");
      f.Adopt(e);
      return;
    }
    lo = i == 0 ? x : std::min(lo, x);
    hi = std::max(hi, x);
    read.levels.push_back(x);
  }
  if (hi > kMaxSpeedRatio * lo) {
    e.Fail("levels", "the fastest is " + std::to_string(std::lround(hi / lo)) +
                         "x the slowest; at most " +
                         std::to_string(static_cast<int>(kMaxSpeedRatio)) + "x");
    f.Adopt(e);
    return;
  }
  out = std::move(read);
}

nlohmann::json CpuSpeedJson(const CpuSpeedSpread& speed) {
  if (speed.levels.empty()) return nullptr;
  return {{"window_ns", speed.window}, {"levels", speed.levels}};
}

}  // namespace tierlab
