#pragma once
// The "block_cache" section of a layout: a RAM read cache in front of the
// whole volume (a cluster's CSV block cache), read into a BlockCacheConfig:
//
//   "block_cache": {"size": "1g", "line_size": "4k", "policy": "lru",
//                   "lookup_ns": 400, "insert_ns": 800, "locks": 4}

#include <nlohmann/json.hpp>
#include <string_view>

#include "cachedev/BlockCache.h"
#include "tiering/core/Expected.h"

namespace tierlab {

Expected<BlockCacheConfig> ParseBlockCacheJson(const nlohmann::json& j, std::string_view source);
nlohmann::json BlockCacheToJson(const BlockCacheConfig& c);

}  // namespace tierlab
