#pragma once
// Shared by `serve` and the volume commands: cache counters as JSON and the
// live status file (VOLUME_DIR/serve.json) that `serve` keeps up to date for
// `status` and `flush`.

#include <nlohmann/json.hpp>
#include <string>

#include "cachedev/CacheStats.h"
#include "layouts/VolumeStore.h"

namespace tierlab::cli {

nlohmann::json CacheStatsJson(const CacheStats& s);

// Writes serve.json atomically (AtomicFile.h: checked, not synced). `extra`
// is merged in. On failure the previous serve.json is kept.
Expected<void> WriteServeStatus(const std::string& path, const OpenedVolume& v,
                                const std::string& endpoint, const nlohmann::json& extra);

}  // namespace tierlab::cli
