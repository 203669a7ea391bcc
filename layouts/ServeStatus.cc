#include "layouts/ServeStatus.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>

#include "cachedev/MetadataFile.h"
#include "layouts/AtomicFile.h"
#include "layouts/JsonFields.h"

namespace tierlab {
namespace fs = std::filesystem;

nlohmann::json CacheStatsJson(const CacheStats& s) {
  nlohmann::json j;
  j["line_size"] = s.line_size;
  j["capacity_lines"] = s.capacity_lines;
  j["clean_lines"] = s.clean_lines;
  j["dirty_lines"] = s.dirty_lines;
  j["free_lines"] = s.free_lines;
  j["dirty_bytes"] = s.dirty_lines * s.line_size;
  j["dirty_age_ns"] = s.dirty_age_ns;
  j["read_requests"] = s.read_requests;
  j["read_hits"] = s.read_hits;
  j["read_hit_ratio"] = s.ReadHitRatio();
  j["write_requests"] = s.write_requests;
  j["write_hits"] = s.write_hits;
  j["write_absorbed"] = s.write_absorbed;
  j["write_bypassed"] = s.write_bypassed;
  j["write_throttled"] = s.write_throttled;
  j["promotions"] = s.promotions;
  j["write_inserts"] = s.write_inserts;
  j["evictions"] = s.evictions;
  j["invalidations"] = s.invalidations;
  j["lock_waits"] = s.lock_waits;
  j["lock_wait_ns"] = s.lock_wait_ns;
  j["destage_ops"] = s.destage_ops;
  j["destaged_bytes"] = s.destaged_bytes;
  j["destage_errors"] = s.destage_errors;
  j["destage_rewritten"] = s.destage_rewritten;
  j["cache_read_errors"] = s.cache_read_errors;
  j["cache_write_errors"] = s.cache_write_errors;
  return j;
}

std::string ServeStatusPath(const VolumeInfo& info) {
  return (fs::path(info.dir) / "serve.json").string();
}

Expected<void> WriteServeStatus(const std::string& path, const OpenedVolume& v,
                                const std::string& endpoint, const nlohmann::json& extra) {
  nlohmann::json j = extra;
  j["pid"] = static_cast<int>(getpid());
  j["endpoint"] = endpoint;
  j["updated_unix"] = static_cast<std::uint64_t>(std::time(nullptr));
  if (v.cache() != nullptr) j["cache"] = CacheStatsJson(v.cache()->cache_stats());
  if (const CacheJournal* jn = v.journal(); jn != nullptr) {
    j["journal"] = {{"generation", jn->generation()},
                    {"next_seq", jn->next_seq()},
                    {"commits", jn->commits()},
                    {"checkpoints", jn->checkpoints()},
                    {"durable_dirty_lines", jn->durable_dirty()},
                    {"bytes_written", jn->journal_bytes_written()},
                    {"data_checksum_errors", jn->data_errors()}};
  }
  return WriteFileAtomically(path, j.dump() + "\n", /*durable=*/false);
}

void RemoveServeStatus(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
}

std::optional<nlohmann::json> ReadServeStatus(const VolumeInfo& info, int pid) {
  if (pid <= 0) return std::nullopt;
  auto j = ReadJsonFile(ServeStatusPath(info));
  if (!j.ok() || !j->is_object() || j->value("pid", 0) != pid) return std::nullopt;
  return *j;
}

const char* VolumePlaceName(VolumePlace p) {
  switch (p) {
    case VolumePlace::kHome: return "home";
    case VolumePlace::kMoved: return "moved";
    case VolumePlace::kCopy: return "copy";
  }
  return "?";
}

nlohmann::json VolumeStatusJson(const VolumeInfo& info) {
  nlohmann::json j;
  j["name"] = info.name;
  j["uuid"] = info.uuid;
  j["dir"] = info.dir;
  j["layout"] = info.layout;
  // The lock says whether the volume is in use; serve.json only adds live
  // counters (it is written once the server listens, never by flush).
  const VolumeUser user = VolumeLockHolder(info);
  const int pid = user.locked && user.command == "serve" && user.pid > 0 ? user.pid : 0;
  const std::optional<nlohmann::json> live = ReadServeStatus(info, pid);
  j["served_by_pid"] = live ? pid : 0;
  j["in_use"] = user.locked;
  j["in_use_by"] = {{"pid", user.pid}, {"command", user.command}};
  j["place"] = VolumePlaceName(info.place);
  j["recorded_dir"] = info.recorded_dir;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& p : info.all_paths) {
    std::error_code ec;
    devices.push_back({{"path", p}, {"exists", fs::exists(p, ec)}, {"bytes", PathBytes(p)}});
  }
  j["devices"] = devices;
  if (!info.cache_paths.empty()) {
    auto m = ReadVolumeMetadata(info);
    if (m.ok()) {
      j["metadata"] = {{"line_size", m->sb.geo.line_size},
                       {"slots", m->sb.geo.slots},
                       {"reserve", m->sb.geo.reserve},
                       {"checkpoint_generation", m->report.checkpoint_generation},
                       {"journal_blocks_to_replay", m->report.journal_blocks},
                       {"committed_dirty_lines", m->report.dirty_lines},
                       {"committed_dirty_bytes", m->report.dirty_lines * m->sb.geo.line_size},
                       {"problems", m->report.problems}};
    } else {
      j["metadata"] = {{"error", m.error().message}};
    }
  }
  if (live) j["live"] = *live;
  return j;
}

}  // namespace tierlab
