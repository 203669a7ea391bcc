#include "cli/VolumeReport.h"

#include <unistd.h>

#include <ctime>

#include "layouts/AtomicFile.h"

namespace tierlab::cli {

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
  j["destage_ops"] = s.destage_ops;
  j["destaged_bytes"] = s.destaged_bytes;
  j["destage_errors"] = s.destage_errors;
  j["cache_read_errors"] = s.cache_read_errors;
  j["cache_write_errors"] = s.cache_write_errors;
  return j;
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
  // Checked, not synced (AtomicFile.h): a failed write keeps the last good
  // status, and the server's event loop never waits for an fsync.
  return WriteFileAtomically(path, j.dump() + "\n", /*durable=*/false);
}

}  // namespace tierlab::cli
