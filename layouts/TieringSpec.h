#pragma once
// The "tiering" section of a layout, read into a TieringSpec for the tier
// target that joins several capacity tiers (fast -> slow):
//
//   "tiering": {"extent_size": "8m", "placement": "fast-first",
//               "pins": [{"offset": "0", "length": "1g", "tier": 0}],
//               "heat_half_life_s": 60, "read_weight": 1, "write_weight": 1,
//               "schedule": "continuous", "period_s": 60, "interval_ms": 100,
//               "max_migration_ios": 4, "migration_bandwidth": "0",
//               "migration_io_size": "1m", "max_moves_per_pass": 64,
//               "fill_threshold": 0.9, "promote_hysteresis": 0.25,
//               "min_promote_heat": 1, "provisioning": "fixed"}
//
// Every key, its default and unit: TieringFields(), TierPinFields() and
// docs/CONFIG.md.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"
#include "tiering/tier/TierConfig.h"

namespace tierlab {

// "fixed": every extent is placed when the volume is built, as a
// fixed-provisioned Storage Spaces volume; "thin": extents are placed on
// first write and unwritten ones read as zeros without device I/O.
enum class Provisioning : std::uint8_t { kFixed, kThin };

struct TieringSpec {
  TierConfig config;
  Provisioning provisioning = Provisioning::kFixed;
};

std::span<const Field<TieringSpec>> TieringFields();
// The keys of one entry of "pins".
std::span<const Field<TierPin>> TierPinFields();

// `j` may be null (all defaults). Errors read "x.json: tiering.placement: ...".
Expected<TieringSpec> ParseTieringJson(const nlohmann::json& j, std::string_view source);
// Every key; ParseTieringJson(TieringToJson(t)) reproduces t.
nlohmann::json TieringToJson(const TieringSpec& t);

}  // namespace tierlab
