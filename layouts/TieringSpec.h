#pragma once
// The "tiering" section of a layout, read into a TierConfig for the tier
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

#include <nlohmann/json.hpp>
#include <string_view>

#include "tiering/core/Expected.h"
#include "tiering/tier/TierConfig.h"

namespace tierlab {

struct TieringSpec {
  TierConfig config;
  // "fixed" (default): every extent is placed when the volume is built, as a
  // fixed-provisioned Storage Spaces volume; "thin": extents are placed on
  // first write and unwritten ones read as zeros without device I/O.
  bool thin = false;
};

// `j` may be null (all defaults). Errors read "x.json: tiering.placement: ...".
Expected<TieringSpec> ParseTieringJson(const nlohmann::json& j, std::string_view source);
nlohmann::json TieringToJson(const TieringSpec& t);

}  // namespace tierlab
