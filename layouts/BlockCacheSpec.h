#pragma once
// The "block_cache" section of a layout: a RAM read cache in front of the
// whole volume (a cluster's CSV block cache), read into a BlockCacheSpec
// when the layout is read:
//
//   "block_cache": {"size": "1g", "line_size": "4k", "policy": "lru",
//                   "lookup_ns": 400, "insert_ns": 800, "locks": 4}
//
// Every key, its default and unit: BlockCacheFields() and docs/CONFIG.md.

#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "cachedev/BlockCache.h"
#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct BlockCacheSpec {
  BlockCacheConfig config;
};

std::span<const Field<BlockCacheSpec>> BlockCacheFields();

Expected<BlockCacheSpec> ParseBlockCacheJson(const nlohmann::json& j, std::string_view source);
// Every key; ParseBlockCacheJson(BlockCacheToJson(b)) reproduces b.
nlohmann::json BlockCacheToJson(const BlockCacheSpec& b);

}  // namespace tierlab
