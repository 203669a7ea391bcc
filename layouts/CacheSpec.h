#pragma once
// The "cache" section of a layout, read into a CacheConfig:
//
//   "cache": {"tier": "cache", "read": true, "write": "writeback",
//             "policy": "lru", "promotion": "always", "line_size": "4k",
//             "high_watermark": 50, "low_watermark": 45,
//             "destage_order": "lba", "destage_concurrency": 8,
//             "destage_bandwidth": "0", "destage_max_bytes": "1m",
//             "idle_destage_age_ms": 0, "capacity": "0"}
//
// `read` and `write` are independent switches, so "read cache on/off" is one
// field (`cache.read`) a matrix can toggle.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cachedev/CacheConfig.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct CacheSpec {
  std::string tier;  // name of the tier holding the cache devices
  CacheConfig config;
  std::uint64_t capacity_bytes = 0;  // 0 = all the cache devices hold
};

// `source` is the layout file name; errors read "x.json: cache.write: ...".
Expected<CacheSpec> ParseCacheJson(const nlohmann::json& j, std::string_view source,
                                   std::string_view default_tier);
nlohmann::json CacheSpecToJson(const CacheSpec& c);

}  // namespace tierlab
