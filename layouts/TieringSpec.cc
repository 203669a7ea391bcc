#include "layouts/TieringSpec.h"

#include "layouts/JsonFields.h"

namespace tierlab {

Expected<TieringSpec> ParseTieringJson(const nlohmann::json& j, std::string_view source) {
  TieringSpec spec;
  TierConfig& c = spec.config;
  if (j.is_null()) return spec;
  JsonFields f(j, std::string(source), "tiering");
  f.OnlyKeys({"extent_size", "placement", "pins", "heat_half_life_s", "read_weight", "write_weight",
              "schedule", "period_s", "interval_ms", "max_migration_ios", "migration_bandwidth",
              "migration_io_size", "max_moves_per_pass", "fill_threshold", "promote_hysteresis",
              "min_promote_heat", "volume_size", "provisioning"});
  spec.thin = f.Choice("provisioning", "fixed", {"fixed", "thin"}) == "thin";
  c.extent_size = f.Bytes("extent_size", c.extent_size);
  c.placement =
      *ParseTierPlacement(f.Choice("placement", "fast-first", {"fast-first", "slow-first"}));
  c.heat_half_life = static_cast<Nanos>(f.Number("heat_half_life_s", 60, 0.001, 1e9) * kSecond);
  c.read_weight = static_cast<float>(f.Number("read_weight", 1, 0, 1e6));
  c.write_weight = static_cast<float>(f.Number("write_weight", 1, 0, 1e6));
  c.schedule = *ParseMigrationSchedule(
      f.Choice("schedule", "continuous", {"off", "continuous", "periodic"}));
  c.period = static_cast<Nanos>(f.Number("period_s", 60, 0.001, 1e9) * kSecond);
  c.continuous_interval = static_cast<Nanos>(f.Number("interval_ms", 100, 0, 1e9) * kMilli);
  c.max_migration_ios =
      static_cast<std::uint32_t>(f.Int("max_migration_ios", c.max_migration_ios, 1, 4096));
  c.migration_bandwidth = f.Bytes("migration_bandwidth", 0);
  c.migration_io_size = f.Bytes("migration_io_size", c.migration_io_size);
  c.max_moves_per_pass =
      static_cast<std::uint32_t>(f.Int("max_moves_per_pass", c.max_moves_per_pass, 1, 1 << 20));
  c.fill_threshold = f.Number("fill_threshold", c.fill_threshold, 0.01, 1);
  c.promote_hysteresis = f.Number("promote_hysteresis", c.promote_hysteresis, 0, 1e6);
  c.min_promote_heat = f.Number("min_promote_heat", c.min_promote_heat, 0, 1e12);
  c.volume_size = f.Bytes("volume_size", 0);
  if (!f.ok()) return f.error();
  if (j.contains("pins")) {
    const auto& pins = j.at("pins");
    if (!pins.is_array())
      return MakeError(std::string(source) + ": tiering.pins: must be an array");
    for (std::size_t i = 0; i < pins.size(); ++i) {
      JsonFields p(pins[i], std::string(source), "tiering.pins[" + std::to_string(i) + "]");
      p.OnlyKeys({"offset", "length", "tier"});
      TierPin pin;
      pin.offset = p.Bytes("offset", 0);
      pin.length = p.Bytes("length", 0);
      pin.tier = static_cast<std::uint32_t>(p.Int("tier", 0, 0, kTierMaxTiers - 1));
      if (p.ok() && pin.length == 0) p.Fail("length", "must be > 0");
      if (!p.ok()) return p.error();
      c.pins.push_back(pin);
    }
  }
  return spec;
}

nlohmann::json TieringToJson(const TieringSpec& t) {
  const TierConfig& c = t.config;
  nlohmann::json j;
  j["provisioning"] = t.thin ? "thin" : "fixed";
  j["extent_size"] = FormatBytes(c.extent_size);
  j["placement"] = std::string(ToString(c.placement));
  j["pins"] = nlohmann::json::array();
  for (const auto& p : c.pins) {
    j["pins"].push_back(
        {{"offset", FormatBytes(p.offset)}, {"length", FormatBytes(p.length)}, {"tier", p.tier}});
  }
  j["heat_half_life_s"] = static_cast<double>(c.heat_half_life) / kSecond;
  j["read_weight"] = c.read_weight;
  j["write_weight"] = c.write_weight;
  j["schedule"] = std::string(ToString(c.schedule));
  j["period_s"] = static_cast<double>(c.period) / kSecond;
  j["interval_ms"] = static_cast<double>(c.continuous_interval) / kMilli;
  j["max_migration_ios"] = c.max_migration_ios;
  j["migration_bandwidth"] = FormatBytes(c.migration_bandwidth);
  j["migration_io_size"] = FormatBytes(c.migration_io_size);
  j["max_moves_per_pass"] = c.max_moves_per_pass;
  j["fill_threshold"] = c.fill_threshold;
  j["promote_hysteresis"] = c.promote_hysteresis;
  j["min_promote_heat"] = c.min_promote_heat;
  if (c.volume_size != 0) j["volume_size"] = FormatBytes(c.volume_size);
  return j;
}

}  // namespace tierlab
