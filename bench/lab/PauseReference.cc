#include "bench/lab/PauseReference.h"

#include <string>
#include <vector>

#include "bench/lab/DevicePauses.h"
#include "bench/lab/Rounded.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"

namespace tierlab {

namespace {

using json = nlohmann::json;

json PausesJson(const std::vector<DevicePreset::Pause>& pauses) {
  json out = json::array();
  for (const DevicePreset::Pause& p : pauses) {
    out.push_back({{"duration_us", Rounded(static_cast<double>(p.duration) / 1e3, 1)},
                   {"per_second", Rounded(p.per_second, 3)}});
  }
  return out;
}

Expected<json> ProbeTier(const TierSpec& tier, Nanos window) {
  const std::string& path = tier.paths.front();
  auto named = [&](const Error& e) {
    return Error{"pause reference: tier \"" + tier.name + "\" (" + path + "): " + e.message,
                 e.kind};
  };
  RealEngine engine;
  FileDeviceOptions fo;
  fo.path = path;
  fo.read_only = true;
  fo.engine = tier.engine;
  fo.queue_depth = 4;  // one read at a time
  auto dev = FileDevice::Open(engine, tier.name + "-pauses", fo);
  if (!dev.ok()) return named(dev.error());
  auto seen = MeasureDevicePauses(engine, **dev, (*dev)->Size(), window);
  if (!seen.ok()) return named(seen.error());
  std::vector<DevicePreset::Pause> pauses;
  double per_second = 0;
  for (const CpuStall& c : seen->stalls) {
    pauses.push_back({c.duration, c.per_second});
    per_second += c.per_second;
  }
  return json{{"tier", tier.name},
              {"path", path},
              {"window_s", Rounded(static_cast<double>(seen->window) / 1e9, 3)},
              {"median_read_us", Rounded(static_cast<double>(seen->unit) / 1e3, 1)},
              {"per_second", Rounded(per_second, 3)},
              {"share", Rounded(seen->lost_share, 4)},
              {"pauses", PausesJson(pauses)},
              {"calibrated", PausesJson(tier.preset.pauses)}};
}

}  // namespace

Expected<void> MeasureCellPauses(const MatrixCell& cell, json& cell_json, Nanos window) {
  if (cell.layout.cluster) return {};
  json probed = json::array();
  for (const TierSpec& t : cell.layout.tiers) {
    if (t.preset.pauses.empty() || t.paths.empty()) continue;
    auto entry = ProbeTier(t, window);
    if (!entry.ok()) return entry.error();
    probed.push_back(std::move(*entry));
  }
  if (!probed.empty()) cell_json["device_pauses"] = std::move(probed);
  return {};
}

Expected<void> ApplyCellPauses(MatrixCell& cell, const json& measured_cell) {
  const auto list = measured_cell.find("device_pauses");
  if (list == measured_cell.end()) return {};
  auto bad = [&cell](const std::string& what) {
    return MakeError("cell \"" + cell.label + "\": the measured device_pauses " + what,
                     ErrorKind::kInconsistent);
  };
  if (!list->is_array()) return bad("is not a list");
  for (const json& e : *list) {
    if (!e.is_object() || !e.contains("tier") || !e.at("tier").is_string()) {
      return bad("has an entry without a tier");
    }
    const std::string name = e.at("tier").get<std::string>();
    TierSpec* tier = nullptr;
    for (TierSpec& t : cell.layout.tiers) {
      if (t.name == name) tier = &t;
    }
    if (tier == nullptr) return bad("name a tier \"" + name + "\" the layout does not have");
    const auto pauses = e.find("pauses");
    if (pauses == e.end() || !pauses->is_array()) return bad("of \"" + name + "\" have no list");
    std::vector<DevicePreset::Pause> read;
    for (const json& p : *pauses) {
      const auto d = p.find("duration_us"), r = p.find("per_second");
      if (!p.is_object() || d == p.end() || !d->is_number() || !(d->get<double>() > 0) ||
          r == p.end() || !r->is_number() || !(r->get<double>() >= 0)) {
        return bad("of \"" + name + "\" hold a pause without a positive duration_us and a " +
                   "per_second of 0 or more");
      }
      read.push_back({static_cast<Nanos>(d->get<double>() * 1e3), r->get<double>()});
    }
    tier->preset.pauses = std::move(read);
  }
  return {};
}

}  // namespace tierlab
