#pragma once
// A volume's live status file, VOLUME_DIR/serve.json, which `tierlab serve`
// keeps up to date and `status` and `flush` read; the cache counters as the
// JSON it holds; and the status of a volume as `tierlab status` shows it
// (lock holder, place, devices, committed metadata, live counters).
//
// Threading: any thread; blocking file I/O.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cachedev/CacheStats.h"
#include "layouts/VolumeStore.h"

namespace tierlab {

nlohmann::json CacheStatsJson(const CacheStats& s);

// VOLUME_DIR/serve.json of `info`.
std::string ServeStatusPath(const VolumeInfo& info);

// Writes serve.json atomically (AtomicFile.h: checked, not synced, so a
// server's event loop never waits for an fsync). `extra` is merged in. On
// failure the previous serve.json is kept.
Expected<void> WriteServeStatus(const std::string& path, const OpenedVolume& v,
                                const std::string& endpoint, const nlohmann::json& extra);

// Removes serve.json (a server's exit); a missing file is not an error.
void RemoveServeStatus(const std::string& path);

// serve.json, if it is the live status of server `pid` (> 0).
std::optional<nlohmann::json> ReadServeStatus(const VolumeInfo& info, int pid);

// What `tierlab status --format json` prints: name, uuid, dir, layout;
// served_by_pid (0 unless serve.json is the holder's live status), in_use
// and in_use_by (the lock holder), place and recorded_dir; every device
// (path, exists, bytes); the committed metadata of a volume with a cache
// (or its error); "live": serve.json's content while served.
nlohmann::json VolumeStatusJson(const VolumeInfo& info);

// "home", "moved" or "copy".
const char* VolumePlaceName(VolumePlace p);

}  // namespace tierlab
