#include "layouts/TieringSpec.h"

#include "layouts/JsonFields.h"

namespace tierlab {
namespace {

using F = Field<TieringSpec>;
using json = nlohmann::json;

double In(Nanos n, Nanos unit) {
  return static_cast<double>(n) / static_cast<double>(unit);
}

// A duration given as a number of `unit`s ("heat_half_life_s": 60).
Nanos ReadDuration(JsonFields& f, std::string_view k, Nanos current, Nanos unit, double min) {
  if (!f.Has(k)) return current;
  return static_cast<Nanos>(f.Number(k, In(current, unit), min, 1e9) * static_cast<double>(unit));
}

const Field<TierPin> kPinFields[] = {
    {"offset", "bytes", "bytes", "start of the pinned range in the volume",
     [](JsonFields& f, std::string_view k, TierPin& p) { p.offset = f.Bytes(k, p.offset); },
     [](const TierPin& p) -> json { return FormatBytes(p.offset); }},
    {"length", "bytes, > 0", "bytes", "length of the pinned range",
     [](JsonFields& f, std::string_view k, TierPin& p) {
       p.length = f.Bytes(k, p.length);
       if (f.ok() && p.length == 0) f.Fail(k, "must be > 0");
     },
     [](const TierPin& p) -> json { return FormatBytes(p.length); }, false, "-"},
    {"tier", "integer 0..15", "", "capacity tier the range stays on (0 = fastest)",
     [](JsonFields& f, std::string_view k, TierPin& p) {
       p.tier = static_cast<std::uint32_t>(f.Int(k, p.tier, 0, kTierMaxTiers - 1));
     },
     [](const TierPin& p) -> json { return p.tier; }},
};

const F kTieringFields[] = {
    {"provisioning", "fixed | thin", "",
     "fixed: every extent placed when the volume is built; thin: on first write",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       const bool thin = s.provisioning == Provisioning::kThin;
       s.provisioning = f.Choice(k, thin ? "thin" : "fixed", {"fixed", "thin"}) == "thin"
                            ? Provisioning::kThin
                            : Provisioning::kFixed;
     },
     [](const TieringSpec& s) -> json {
       return s.provisioning == Provisioning::kThin ? "thin" : "fixed";
     }},
    {"extent_size", "bytes, a power of two 1m..256m", "bytes", "unit of placement and migration",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.extent_size = f.Bytes(k, s.config.extent_size);
     },
     [](const TieringSpec& s) -> json { return FormatBytes(s.config.extent_size); }},
    {"placement", "fast-first | slow-first", "", "where a new extent is placed",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.placement = *ParseTierPlacement(
           f.Choice(k, std::string(ToString(s.config.placement)), {"fast-first", "slow-first"}));
     },
     [](const TieringSpec& s) -> json { return std::string(ToString(s.config.placement)); }},
    {"heat_half_life_s", "number 0.001..1e9", "s", "half-life of an extent's heat",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.heat_half_life = ReadDuration(f, k, s.config.heat_half_life, kSecond, 0.001);
     },
     [](const TieringSpec& s) -> json { return In(s.config.heat_half_life, kSecond); }},
    {"read_weight", "number 0..1e6", "", "heat a read adds",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.read_weight = static_cast<float>(f.Number(k, s.config.read_weight, 0, 1e6));
     },
     [](const TieringSpec& s) -> json { return s.config.read_weight; }},
    {"write_weight", "number 0..1e6", "", "heat a write adds",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.write_weight = static_cast<float>(f.Number(k, s.config.write_weight, 0, 1e6));
     },
     [](const TieringSpec& s) -> json { return s.config.write_weight; }},
    {"schedule", "off | continuous | periodic", "", "when migration passes run",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.schedule = *ParseMigrationSchedule(f.Choice(
           k, std::string(ToString(s.config.schedule)), {"off", "continuous", "periodic"}));
     },
     [](const TieringSpec& s) -> json { return std::string(ToString(s.config.schedule)); }},
    {"period_s", "number 0.001..1e9", "s", "periodic: time between passes",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.period = ReadDuration(f, k, s.config.period, kSecond, 0.001);
     },
     [](const TieringSpec& s) -> json { return In(s.config.period, kSecond); }},
    {"interval_ms", "number 0..1e9", "ms", "continuous: least time between passes",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.interval = ReadDuration(f, k, s.config.interval, kMilli, 0);
     },
     [](const TieringSpec& s) -> json { return In(s.config.interval, kMilli); }},
    {"max_migration_ios", "integer 1..4096", "operations", "migration copies in flight at once",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.max_migration_ios =
           static_cast<std::uint32_t>(f.Int(k, s.config.max_migration_ios, 1, 4096));
     },
     [](const TieringSpec& s) -> json { return s.config.max_migration_ios; }},
    {"migration_bandwidth", "bytes", "bytes/s", "cap on migration traffic (0 = none)",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.migration_bandwidth = f.Bytes(k, s.config.migration_bandwidth);
     },
     [](const TieringSpec& s) -> json { return FormatBytes(s.config.migration_bandwidth); }},
    {"migration_io_size", "bytes", "bytes", "size of one migration copy",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.migration_io_size = f.Bytes(k, s.config.migration_io_size);
     },
     [](const TieringSpec& s) -> json { return FormatBytes(s.config.migration_io_size); }},
    {"max_moves_per_pass", "integer 1..1048576", "extents", "extents one pass may move",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.max_moves_per_pass =
           static_cast<std::uint32_t>(f.Int(k, s.config.max_moves_per_pass, 1, 1 << 20));
     },
     [](const TieringSpec& s) -> json { return s.config.max_moves_per_pass; }},
    {"fill_threshold", "number 0.01..1", "share", "a tier fuller than this moves its coldest down",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.fill_threshold = f.Number(k, s.config.fill_threshold, 0.01, 1);
     },
     [](const TieringSpec& s) -> json { return s.config.fill_threshold; }},
    {"promote_hysteresis", "number 0..1e6", "share",
     "an extent moves up only if hotter than the coldest above by this share",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.promote_hysteresis = f.Number(k, s.config.promote_hysteresis, 0, 1e6);
     },
     [](const TieringSpec& s) -> json { return s.config.promote_hysteresis; }},
    {"min_promote_heat", "number 0..1e12", "", "heat below which an extent never moves up",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.min_promote_heat = f.Number(k, s.config.min_promote_heat, 0, 1e12);
     },
     [](const TieringSpec& s) -> json { return s.config.min_promote_heat; }},
    {"volume_size", "bytes", "bytes", "size of the tiered volume (0 = the layout's size or all)",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       s.config.volume_size = f.Bytes(k, s.config.volume_size);
     },
     [](const TieringSpec& s) -> json { return FormatBytes(s.config.volume_size); }, true},
    {"pins", "array of {offset, length, tier}", "",
     "volume ranges that stay on one tier (tiering.pins[] below)",
     [](JsonFields& f, std::string_view k, TieringSpec& s) {
       const nlohmann::json* pins = f.Raw(k);
       if (pins == nullptr || !f.ok()) return;
       if (!pins->is_array()) {
         f.Fail(k, "must be an array");
         return;
       }
       s.config.pins.clear();
       for (std::size_t i = 0; i < pins->size(); ++i) {
         JsonFields p = f.Child((*pins)[i], std::string(k) + "[" + std::to_string(i) + "]");
         TierPin pin;
         ReadFields(TierPinFields(), p, pin);
         if (!p.ok()) {
           f.Adopt(p);
           return;
         }
         s.config.pins.push_back(pin);
       }
     },
     [](const TieringSpec& s) -> json {
       json a = json::array();
       for (const auto& p : s.config.pins) a.push_back(WriteFields(TierPinFields(), p));
       return a;
     }},
};

}  // namespace

std::span<const Field<TieringSpec>> TieringFields() {
  return kTieringFields;
}

std::span<const Field<TierPin>> TierPinFields() {
  return kPinFields;
}

Expected<TieringSpec> ParseTieringJson(const nlohmann::json& j, std::string_view source) {
  TieringSpec spec;
  if (j.is_null()) return spec;
  JsonFields f(j, std::string(source), "tiering");
  ReadFields(TieringFields(), f, spec);
  if (!f.ok()) return f.error();
  return spec;
}

nlohmann::json TieringToJson(const TieringSpec& t) {
  return WriteFields(TieringFields(), t);
}

}  // namespace tierlab
