#pragma once
// The "cache" section of a layout, read into a CacheSpec when the layout is
// read (Layout.h):
//
//   "cache": {"tier": "cache", "read": true, "write": "writeback",
//             "policy": "lru", "promotion": "always", "line_size": "4k",
//             "high_watermark": 50, "low_watermark": 45,
//             "destage_order": "lba", "destage_concurrency": 8,
//             "destage_bandwidth": "0", "destage_max_bytes": "1m",
//             "idle_destage_age_ms": 0, "capacity": "0"}
//
// `read` and `write` are independent switches, so "read cache on/off" is one
// field (`cache.read`) a matrix can toggle. Every key, its default and unit:
// CacheFields() and docs/CONFIG.md.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "cachedev/CacheConfig.h"
#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct CacheSpec {
  // The layout's defaults where they differ from CacheConfig's own (a line
  // size for a persistent cache; destage in LBA order, as a disk wants it).
  CacheSpec();

  // Name of the tier holding the cache devices; empty in a default spec,
  // the first tier's name once read from a layout.
  std::string tier;
  CacheConfig config;
  // "read": "hdd": read misses are promoted only for lines the capacity
  // tiers hold on HDDs (config.read is true then). StackBuilder turns it
  // into the cache target's read promotion filter.
  bool read_hdd = false;
  std::uint64_t capacity = 0;  // bytes; 0 = all the cache devices hold
};

// The table of cache keys (FieldTable.h).
std::span<const Field<CacheSpec>> CacheFields();

// `source` is the layout file name; errors read "x.json: cache.write: ...".
// `default_tier` is the tier an absent `tier` names.
Expected<CacheSpec> ParseCacheJson(const nlohmann::json& j, std::string_view source,
                                   std::string_view default_tier);
// Every key; ParseCacheJson(CacheSpecToJson(c)) reproduces c.
nlohmann::json CacheSpecToJson(const CacheSpec& c);

}  // namespace tierlab
