#include "bench/lab/PauseReference.h"

#include <string>
#include <vector>

#include "bench/lab/DevicePauses.h"
#include "bench/lab/Rounded.h"
#include "layouts/InterruptionFields.h"
#include "layouts/JsonFields.h"
#include "tiering/core/QuotedText.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"

namespace tierlab {

namespace {

using json = nlohmann::json;

Expected<json> ProbeTier(const TierSpec& tier, Nanos window) {
  const std::string& path = tier.paths.front();
  auto named = [&](const Error& e) {
    return Error{
        "pause reference: tier " + QuotedText(tier.name, '"') + " (" + path + "): " + e.message,
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
  double per_second = 0;
  for (const Interruption& p : seen->stalls) per_second += p.per_second;
  return json{{"tier", tier.name},
              {"path", path},
              {"window_s", Rounded(static_cast<double>(seen->window) / 1e9, 3)},
              {"median_read_us", Rounded(static_cast<double>(seen->unit) / 1e3, 1)},
              {"per_second", Rounded(per_second, 3)},
              {"share", Rounded(seen->lost_share, 4)},
              {"pauses", InterruptionsJson(seen->stalls, kDevicePauseKeys)},
              {"calibrated", InterruptionsJson(tier.preset.pauses, kDevicePauseKeys)}};
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
    return MakeError(
        "cell " + QuotedText(cell.label, '"', 256) + ": the measured device_pauses " + what,
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
    if (tier == nullptr)
      return bad("name a tier " + QuotedText(name, '"') + " the layout does not have");
    if (!e.contains("pauses") || e.at("pauses").is_null())
      return bad("of " + QuotedText(name, '"') + " have no list");
    // The reader a preset's pauses have; its message names the entry's field.
    JsonFields f(e,
                 "cell " + QuotedText(cell.label, '"', 256) + ": the measured device_pauses of " +
                     QuotedText(name, '"'),
                 "");
    std::vector<Interruption> read;
    // What the device did after the cell, however paused: no bound on
    // their share (a preset written by hand has one).
    InterruptionKeys measured = kDevicePauseKeys;
    measured.max_share = 1;
    ReadInterruptions(f, "pauses", measured, read);
    if (!f.ok()) return Error{f.error().message, ErrorKind::kInconsistent};
    tier->preset.pauses = std::move(read);
  }
  return {};
}

}  // namespace tierlab
