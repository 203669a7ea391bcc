#include "layouts/VolumeStore.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "cachedev/MetadataFile.h"
#include "cachedev/SlotPlacement.h"
#include "cachedev/SuperblockLabel.h"
#include "layouts/AtomicFile.h"
#include "layouts/CacheSpec.h"
#include "layouts/JsonFields.h"
#include "tiering/core/QuotedText.h"
#include "tiering/targets/FuaFlushTarget.h"

namespace tierlab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kVolumeFile = "volume.json";
constexpr const char* kLockFile = "lock";
// 1: absolute paths, no place. 2: paths inside the directory relative to it,
// the directory's place, device sizes.
constexpr int kVolumeFormat = 2;

std::uint64_t DeviceCapacity(const TierSpec& t) {
  return t.capacity != 0 ? t.capacity : t.preset.capacity_bytes;
}

// Size of an existing file or block device, 0 if unknown.
std::uint64_t PathSize(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const off_t end = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  return end < 0 ? 0 : static_cast<std::uint64_t>(end);
}

Expected<void> SyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return MakeError(path + ": open: " + std::strerror(errno), ErrorKind::kIo);
  const int rc = ::fdatasync(fd);
  ::close(fd);
  if (rc != 0) return MakeError(path + ": fdatasync: " + std::strerror(errno), ErrorKind::kIo);
  return {};
}

std::string Canonical(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) p = fs::absolute(dir, ec).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

bool Inside(const std::string& dir, const std::string& path) {
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(dir);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// As stored in volume.json: relative inside the directory, absolute outside.
std::string Stored(const std::string& dir, const std::string& path) {
  if (Inside(dir, path)) return fs::path(path).lexically_normal().lexically_relative(dir).string();
  return path;
}

// A stored path made absolute against `dir`; a relative one must stay inside.
Expected<std::string> Resolved(const std::string& dir, const std::string& stored,
                               const std::string& file, const std::string& field) {
  if (stored.empty()) return MakeError(file + ": " + field + ": empty path");
  if (fs::path(stored).is_absolute()) return fs::path(stored).lexically_normal().string();
  const std::string abs = (fs::path(dir) / stored).lexically_normal().string();
  if (!Inside(dir, abs)) {
    return MakeError(file + ": " + field + ": " + QuotedText(stored, '"', 256) +
                     " is outside the volume directory (a relative path must stay inside it)");
  }
  return abs;
}

struct DirId {
  bool ok = false;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
};
DirId StatDir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {};
  return {true, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// Cache tier index and parsed cache section, or none.
struct CacheInfo {
  std::size_t tier = 0;
  CacheSpec spec;
};
Expected<std::optional<CacheInfo>> FindCache(const LayoutSpec& l) {
  if (!l.cache) return std::optional<CacheInfo>{};
  const std::optional<CacheSpec>& c = l.cache;
  for (std::size_t i = 0; i < l.tiers.size(); ++i) {
    if (l.tiers[i].name == c->tier) return std::optional<CacheInfo>(CacheInfo{i, *c});
  }
  return MakeError(l.source + ": cache.tier: unknown tier " + QuotedText(c->tier, '"'));
}

void FillPaths(VolumeInfo& info) {
  info.cache_paths.clear();
  info.all_paths.clear();
  const nlohmann::json& l = info.layout;
  std::string cache_tier;
  if (l.contains("cache") && l["cache"].is_object()) {
    cache_tier = l["cache"].value("tier", std::string());
    if (cache_tier.empty() && !l["tiers"].empty()) cache_tier = l["tiers"][0].value("name", "");
  }
  for (const auto& t : l["tiers"]) {
    if (!t.contains("paths")) continue;
    for (const auto& p : t["paths"]) {
      info.all_paths.push_back(p.get<std::string>());
      if (t.value("name", "") == cache_tier) info.cache_paths.push_back(p.get<std::string>());
    }
  }
}

// Rewrites every device path of `layout` with `fn` (the field path for errors).
template <typename Fn>
Expected<void> MapLayoutPaths(nlohmann::json& layout, Fn fn) {
  if (!layout.is_object() || !layout.contains("tiers") || !layout["tiers"].is_array()) {
    return MakeError("layout.tiers: missing");
  }
  // One "paths" array: the tier's devices, or its log's NVRAM devices.
  auto map = [&](nlohmann::json& holder, const std::string& where) -> Expected<void> {
    if (!holder.is_object() || !holder.contains("paths")) return {};
    if (!holder["paths"].is_array()) return MakeError(where + ".paths");
    for (std::size_t k = 0; k < holder["paths"].size(); ++k) {
      nlohmann::json& p = holder["paths"][k];
      const std::string field = where + ".paths[" + std::to_string(k) + "]";
      if (!p.is_string()) return MakeError(field + ": must be a string");
      auto r = fn(p.get<std::string>(), field);
      if (!r.ok()) return r.error();
      p = *r;
    }
    return {};
  };
  for (std::size_t ti = 0; ti < layout["tiers"].size(); ++ti) {
    nlohmann::json& t = layout["tiers"][ti];
    const std::string where = "layout.tiers[" + std::to_string(ti) + "]";
    if (auto r = map(t, where); !r.ok()) return r.error();
    if (t.is_object() && t.contains("log") && t["log"].is_object() && t["log"].contains("nvram")) {
      if (auto r = map(t["log"]["nvram"], where + ".log.nvram"); !r.ok()) return r.error();
    }
  }
  return {};
}

nlohmann::json VolumeJson(const VolumeInfo& info) {
  nlohmann::json layout = info.layout;
  (void)MapLayoutPaths(layout,
                       [&](const std::string& p, const std::string&) -> Expected<std::string> {
                         return Stored(info.dir, p);
                       });
  std::vector<std::string> created;
  for (const auto& f : info.created_files) created.push_back(Stored(info.dir, f));
  const DirId id = StatDir(info.dir);
  nlohmann::json j;
  j["tierlab_volume"] = kVolumeFormat;
  j["name"] = info.name;
  j["uuid"] = info.uuid;
  j["created_unix"] = info.created_unix;
  j["place"] = {{"dir", info.dir}, {"dev", id.dev}, {"ino", id.ino}};
  j["metadata_reserve"] = info.metadata_reserve;
  j["placement_run"] = info.placement_run;
  j["created_files"] = created;
  j["device_bytes"] = info.device_bytes;
  j["layout"] = layout;
  return j;
}

Expected<void> WriteVolumeInfo(const VolumeInfo& info) {
  return WriteFileAtomically((fs::path(info.dir) / kVolumeFile).string(),
                             VolumeJson(info).dump(2) + "\n");
}

// Does `dir` hold volume `uuid` (its volume.json says so)?
bool HoldsVolume(const std::string& dir, const std::string& uuid) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(dir) / kVolumeFile, ec)) return false;
  auto j = ReadJsonFile((fs::path(dir) / kVolumeFile).string());
  return j.ok() && j->is_object() && j->value("uuid", std::string()) == uuid;
}

// Where the directory stands, from the recorded place.
void ClassifyPlace(VolumeInfo& info, const DirId& recorded_id) {
  const DirId here = StatDir(info.dir);
  if (recorded_id.ok && here.ok && here.dev == recorded_id.dev && here.ino == recorded_id.ino) {
    // The same directory; renamed (mv) if the path differs.
    info.place_stale = info.recorded_dir != info.dir;
    info.place = info.place_stale ? VolumePlace::kMoved : VolumePlace::kHome;
    return;
  }
  if (info.recorded_dir == info.dir) {
    // Same path, another directory object: restored from a backup, or a
    // filesystem that numbers devices anew after a reboot.
    info.place = VolumePlace::kHome;
    info.place_stale = recorded_id.ok;
    return;
  }
  const DirId there = StatDir(info.recorded_dir);
  const bool same_dir = there.ok && here.ok && there.dev == here.dev && there.ino == here.ino;
  if (!same_dir && HoldsVolume(info.recorded_dir, info.uuid)) {
    info.place = VolumePlace::kCopy;
    info.place_stale = false;
    return;
  }
  info.place = VolumePlace::kMoved;
  info.place_stale = true;
}

// Pid and command of the lock file's holder, as it wrote them.
VolumeUser ParseHolder(const std::string& text) {
  VolumeUser u;
  u.locked = true;
  u.pid = -1;
  const auto sp = text.find(' ');
  if (sp == std::string::npos) return u;
  try {
    const int pid = std::stoi(text.substr(0, sp));
    // Alive (EPERM: alive, another user's): else a stale text.
    if (pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM)) u.pid = pid;
  } catch (const std::exception&) {
    return u;
  }
  std::string cmd = text.substr(sp + 1);
  while (!cmd.empty() && (cmd.back() == '\n' || cmd.back() == ' ')) cmd.pop_back();
  u.command = cmd;
  return u;
}

// Devices of a volume and files it created, each once, in a stable order.
std::vector<std::string> VolumeFiles(const VolumeInfo& info) {
  std::vector<std::string> out = info.all_paths;
  for (const auto& f : info.created_files) {
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  }
  return out;
}

}  // namespace

std::string DefaultVolumeRoot() {
  const char* env = std::getenv("TIERLAB_VOLUMES");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("tierlab-volumes");
}

Expected<std::string> ResolveVolumeDir(std::string_view name_or_dir) {
  const std::string s(name_or_dir);
  std::error_code ec;
  if (!s.empty() && fs::is_regular_file(fs::path(s) / kVolumeFile, ec)) return Canonical(s);
  const fs::path under = fs::path(DefaultVolumeRoot()) / s;
  if (!s.empty() && s.find('/') == std::string::npos &&
      fs::is_regular_file(under / kVolumeFile, ec)) {
    return Canonical(under.string());
  }
  if (!s.empty() && fs::exists(fs::path(s) / kVolumeFile, ec)) {
    return MakeError((fs::path(s) / kVolumeFile).string() + ": not a regular file",
                     ErrorKind::kInput);
  }
  return MakeError("no volume " + QuotedText(s, '"', 256) +
                       " (neither a directory with volume.json nor " + under.string() + ")",
                   ErrorKind::kInput);
}

bool InVolumeDir(const VolumeInfo& info, const std::string& path) {
  return Inside(info.dir, path);
}

Expected<VolumeInfo> ReadVolumeInfo(const std::string& dir_in) {
  const std::string dir = Canonical(dir_in);
  const std::string path = (fs::path(dir) / kVolumeFile).string();
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.error();
  VolumeInfo info;
  info.dir = dir;
  std::vector<std::string> created;
  DirId recorded_id;
  int format = 1;
  try {
    if (!j->is_object()) return MakeError(path + ": not a JSON object");
    format = j->value("tierlab_volume", 1);
    if (format < 1 || format > kVolumeFormat) {
      return MakeError(path + ": tierlab_volume: format " + std::to_string(format) +
                       " is not one this tierlab reads (1.." + std::to_string(kVolumeFormat) + ")");
    }
    info.name = j->at("name").get<std::string>();
    info.uuid = j->at("uuid").get<std::string>();
    info.layout = j->at("layout");
    info.created_unix = j->value("created_unix", std::uint64_t{0});
    info.metadata_reserve = j->value("metadata_reserve", std::uint64_t{0});
    // Volumes created before the run was recorded used run 1.
    const auto run = j->value("placement_run", std::uint64_t{1});
    if (!SlotPlacement::Valid(run)) {
      return MakeError(path + ": placement_run: " + std::to_string(run) +
                           " is not a power of two in [1, " +
                           std::to_string(SlotPlacement::kMaxRun) + "]",
                       ErrorKind::kInput);
    }
    info.placement_run = static_cast<std::uint32_t>(run);
    if (j->contains("created_files")) {
      created = j->at("created_files").get<std::vector<std::string>>();
    }
    if (j->contains("device_bytes")) {
      info.device_bytes = j->at("device_bytes").get<std::vector<std::uint64_t>>();
    }
    if (j->contains("place")) {
      const auto& pl = j->at("place");
      info.recorded_dir = pl.at("dir").get<std::string>();
      recorded_id = {true, pl.value("dev", std::uint64_t{0}), pl.value("ino", std::uint64_t{0})};
    }
  } catch (const nlohmann::json::exception& e) {
    return MakeError(path + ": " + e.what(), ErrorKind::kInput);
  }
  if (!ParseUuid(info.uuid).ok())
    return MakeError(path + ": uuid: " + QuotedText(info.uuid, '"') + " is not a UUID");
  if (format == 1) {
    // Absolute paths, no place: the volume lived where its created files
    // are (or here, if it created none); paths there become relative.
    info.recorded_dir = dir;
    for (const auto& f : created) {
      if (fs::path(f).is_absolute()) {
        info.recorded_dir = fs::path(f).lexically_normal().parent_path().string();
        break;
      }
    }
    const std::string old = info.recorded_dir;
    auto rebase = [&](const std::string& p, const std::string&) -> Expected<std::string> {
      return Stored(old, p);
    };
    if (auto r = MapLayoutPaths(info.layout, rebase); !r.ok()) {
      return MakeError(path + ": " + r.error().message);
    }
    for (auto& f : created) f = Stored(old, f);
  }
  auto resolve = [&](const std::string& p, const std::string& field) {
    return Resolved(dir, p, path, field);
  };
  if (auto r = MapLayoutPaths(info.layout, resolve); !r.ok()) {
    return r.error().message.starts_with(path) ? r.error()
                                               : MakeError(path + ": " + r.error().message);
  }
  for (std::size_t i = 0; i < created.size(); ++i) {
    auto r = Resolved(dir, created[i], path, "created_files[" + std::to_string(i) + "]");
    if (!r.ok()) return r.error();
    info.created_files.push_back(*r);
  }
  if (info.recorded_dir.empty()) info.recorded_dir = dir;
  FillPaths(info);
  ClassifyPlace(info, recorded_id);
  if (format == 1) info.place_stale = true;  // written in format 2 on the next open
  return info;
}

Expected<void> RequireOwnPlace(const VolumeInfo& info) {
  if (info.place != VolumePlace::kCopy) return {};
  return MakeError("volume " + info.name + " in " + info.dir + " is a copy of the volume in " +
                       info.recorded_dir + " (same uuid " + info.uuid +
                       "): give it its own identity with `tierlab reidentify " + info.dir +
                       "` to use it, or remove it with `tierlab destroy`",
                   ErrorKind::kInconsistent);
}

Expected<FileLock> LockVolume(const VolumeInfo& info, std::string_view command) {
  const std::string path = (fs::path(info.dir) / kLockFile).string();
  auto lock = FileLock::Acquire(path, LockMode::kExclusive, O_RDWR | O_CREAT);
  if (!lock.ok()) {
    if (lock.error().kind != ErrorKind::kInUse) return lock.error();
    const VolumeUser u = VolumeLockHolder(info);
    std::string who = u.pid > 0 ? "pid " + std::to_string(u.pid) : std::string("another process");
    if (!u.command.empty()) who += " (" + u.command + ")";
    return MakeError("volume " + info.name + " is in use by " + who + " (" + path + ")",
                     ErrorKind::kInUse);
  }
  const std::string text = std::to_string(::getpid()) + " " + std::string(command) + "\n";
  // Who holds it, for `status`; the lock itself is what counts, so a full
  // filesystem only makes the holder unknown ("another process").
  if (::ftruncate(lock->fd(), 0) == 0) {
    [[maybe_unused]] const ssize_t n = ::pwrite(lock->fd(), text.data(), text.size(), 0);
  }
  // Test seam: the e2e tests look at a volume while a command holds it
  // (serve's recovery, an offline flush) by stopping the command here,
  // instead of racing a window of milliseconds. SIGCONT resumes it.
  if (const char* at = std::getenv("TIERLAB_TEST_PAUSE_AT");
      at != nullptr && std::string_view(at) == "volume-locked") {
    ::raise(SIGSTOP);
  }
  return lock;
}

VolumeUser VolumeLockHolder(const VolumeInfo& info) {
  const std::string path = (fs::path(info.dir) / kLockFile).string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};  // never locked
  VolumeUser u;
  auto held = WholeFileLocked(fd, path);
  if (held.ok() && *held) {
    char buf[256];
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    u = ParseHolder(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0));
  }
  ::close(fd);
  return u;
}

int VolumeServerPid(const VolumeInfo& info) {
  const VolumeUser u = VolumeLockHolder(info);
  return u.locked && u.command == "serve" && u.pid > 0 ? u.pid : 0;
}

Expected<std::vector<FileLock>> LockVolumeDevices(const VolumeInfo& info) {
  std::vector<FileLock> locks;
  for (const auto& p : info.all_paths) {
    std::error_code ec;
    if (!fs::exists(p, ec)) continue;
    auto l = FileLock::Acquire(p, LockMode::kShared, O_RDONLY);
    if (!l.ok()) return l.error();
    locks.push_back(std::move(l.value()));
  }
  return locks;
}

Expected<void> RecordVolumePlace(VolumeInfo& info) {
  VolumeInfo next = info;
  next.recorded_dir = info.dir;
  if (auto r = WriteVolumeInfo(next); !r.ok()) return r;
  info.recorded_dir = info.dir;
  info.place = VolumePlace::kHome;
  info.place_stale = false;
  return {};
}

Expected<VolumeInfo> CreateVolume(const LayoutSpec& layout, const std::string& name,
                                  const std::string& dir_in) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return MakeError("--name: " + QuotedText(name, '"') + " must be a non-empty name without '/'",
                     ErrorKind::kInput);
  }
  std::error_code ec;
  const std::string dir = Canonical(dir_in);
  if (fs::exists(fs::path(dir) / kVolumeFile, ec)) {
    return MakeError(dir + ": a volume already exists there", ErrorKind::kInput);
  }
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return MakeError(dir + ": exists and is not a directory", ErrorKind::kInput);
  }
  // What this call made, removed again if it fails.
  std::vector<fs::path> made_dirs;
  for (fs::path p = dir; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
    made_dirs.push_back(p);
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (ec) return MakeError(dir + ": " + ec.message(), ErrorKind::kIo);

  VolumeInfo info;
  info.name = name;
  info.dir = dir;
  info.recorded_dir = dir;
  auto undo = [&](Error e) -> Error {
    for (const auto& f : info.created_files) fs::remove(f, ec);
    for (const char* f : {kVolumeFile, "volume.json.tmp"}) {
      fs::remove(fs::path(dir) / f, ec);
    }
    for (const auto& d : made_dirs) fs::remove(d, ec);  // only if empty
    return e;
  };

  LayoutSpec l = layout;
  auto cache = FindCache(l);
  if (!cache.ok()) return undo(cache.error());
  MetadataGeometry geo;
  if (*cache) {
    // A persistent cache needs a fixed line size and destage that flushes the
    // origin before lines turn clean (a clean line may be forgotten).
    std::uint64_t line = (*cache)->spec.config.line_size;
    if (line == 0) line = 4096;
    l.cache->config.line_size = line;
    l.cache->config.destage_flush = true;
    const TierSpec& ct = l.tiers[(*cache)->tier];
    std::uint64_t slots = 0;
    for (std::uint32_t i = 0; i < ct.count; ++i) {
      const std::uint64_t cap =
          ct.paths.empty() || ct.capacity != 0 ? DeviceCapacity(ct) : PathSize(ct.paths[i]);
      slots += cap / line;
    }
    if ((*cache)->spec.capacity != 0) {
      slots = std::min(slots, (*cache)->spec.capacity / line);
    }
    geo = MetadataGeometry::For(line, slots);
  }

  const VolumeUuid uuid = NewUuid();
  info.uuid = FormatUuid(uuid);
  info.created_unix = static_cast<std::uint64_t>(std::time(nullptr));
  info.metadata_reserve = geo.reserve;
  for (std::size_t ti = 0; ti < l.tiers.size(); ++ti) {
    TierSpec& t = l.tiers[ti];
    const bool is_cache = *cache && (*cache)->tier == ti;
    if (t.paths.empty()) {
      // Created here; the cache devices grow by the metadata area so the
      // cache keeps the capacity the layout asks for.
      t.capacity = DeviceCapacity(t) + (is_cache ? geo.reserve : 0);
      for (std::uint32_t i = 0; i < t.count; ++i) {
        const std::string p = (fs::path(dir) / (t.name + std::to_string(i) + ".img")).string();
        if (!fs::exists(p, ec)) info.created_files.push_back(p);
        t.paths.push_back(p);
      }
    } else {
      for (auto& p : t.paths) {
        // Absolute: the volume is opened from any working directory.
        p = fs::absolute(p, ec).lexically_normal().string();
        if (!fs::exists(p, ec) && t.capacity != 0) info.created_files.push_back(p);
      }
    }
    if (t.log) {
      // The log's NVRAM devices: files here unless the layout names them.
      std::vector<std::string>& nv = t.log->nvram_paths;
      if (nv.empty()) {
        for (int i = 0; i < (t.log->nvram_mirror ? 2 : 1); ++i) {
          nv.push_back((fs::path(dir) / (t.name + "-nvram" + std::to_string(i) + ".img")).string());
        }
      } else {
        for (auto& p : nv) p = fs::absolute(p, ec).lexically_normal().string();
      }
      for (const auto& p : nv) {
        if (!fs::exists(p, ec)) info.created_files.push_back(p);
      }
    }
  }
  info.layout = LayoutToJson(l);
  FillPaths(info);

  // Build once: creates, sizes and locks the files, refuses devices of a
  // volume, and checks the layout against the real devices. The locks are
  // held until the superblocks are written.
  RealEngine engine;
  BuildOptions bo;
  bo.keep_files = true;
  bo.metadata_reserve = geo.reserve;
  bo.log_owner = uuid;
  auto v = BuildVolume(engine, l, bo);
  if (!v.ok()) return undo(v.error());
  const std::uint64_t origin_bytes = v->top().Size();
  const std::uint64_t capacity_lines = v->cache() != nullptr ? v->cache()->capacity_lines() : 0;
  if (v->cache() != nullptr) info.placement_run = v->cache()->placement_run();
  for (const TierView& t : v->tiers()) {
    for (const BlockDevice* d : t.devices) info.device_bytes.push_back(d->Size());
  }
  if (*cache) {
    if (capacity_lines > geo.slots) {
      return undo(
          MakeError("internal: cache capacity exceeds the metadata geometry", ErrorKind::kIo));
    }
    Superblock sb;
    sb.uuid = uuid;
    sb.geo = geo;
    sb.device_count = static_cast<std::uint32_t>(info.cache_paths.size());
    sb.placement_run = info.placement_run;
    sb.origin_bytes = origin_bytes;
    sb.created_unix = info.created_unix;
    sb.layout_json = VolumeJson(info)["layout"].dump();
    for (std::size_t i = 0; i < info.cache_paths.size(); ++i) {
      sb.device_index = static_cast<std::uint32_t>(i);
      if (auto r = WriteSuperblock(info.cache_paths[i], sb); !r.ok()) return undo(r.error());
    }
    sb.device_index = 0;
    const std::vector<std::uint32_t> empty(geo.slots, kNotDirty);
    // Both copies valid and empty (gen 0 and 1): nothing stale on a reused device.
    for (std::uint64_t gen = 0; gen < 2; ++gen) {
      if (auto r = WriteCheckpoint(info.cache_paths[0], sb, gen, 1, empty, {}, /*clean=*/true);
          !r.ok()) {
        return undo(r.error());
      }
    }
  }
  if (auto r = WriteVolumeInfo(info); !r.ok()) {
    // Devices not created here keep the superblock just written: wipe it,
    // or they would read as a volume that does not exist.
    for (const auto& p : info.cache_paths) {
      if (std::find(info.created_files.begin(), info.created_files.end(), p) ==
          info.created_files.end()) {
        (void)WipeSuperblock(p);
      }
    }
    return undo(r.error());
  }
  return info;
}

Expected<RecoveredMetadata> ReadVolumeMetadata(const VolumeInfo& info) {
  if (info.cache_paths.empty())
    return MakeError("volume " + info.name + " has no cache", ErrorKind::kInput);
  auto sb = ReadSuperblock(info.cache_paths[0]);
  if (!sb.ok()) return sb.error();
  // Against the devices before anything is sized by it (a checksum that
  // matches does not make the geometry sensible).
  std::vector<std::string> origin_paths;
  for (const auto& p : info.all_paths) {
    if (std::find(info.cache_paths.begin(), info.cache_paths.end(), p) == info.cache_paths.end()) {
      origin_paths.push_back(p);
    }
  }
  if (auto r = CheckSuperblockAgainstDevices(*sb, info.cache_paths, origin_paths); !r.ok()) {
    return r.error();
  }
  const std::uint64_t lines = (sb->origin_bytes + sb->geo.line_size - 1) / sb->geo.line_size;
  auto m = RecoverMetadata(info.cache_paths[0], lines);
  if (!m.ok()) return m.error();
  if (m->sb.placement_run != info.placement_run) {
    m->report.problems.push_back(info.cache_paths[0] + ": superblock placement_run " +
                                 std::to_string(m->sb.placement_run) + ", but volume.json says " +
                                 std::to_string(info.placement_run) +
                                 " (where the cached data lives; refusing to guess)");
  }
  if (FormatUuid(m->sb.uuid) != info.uuid) {
    m->report.problems.push_back(info.cache_paths[0] + ": superblock uuid " +
                                 FormatUuid(m->sb.uuid) + " is not the volume's " + info.uuid);
  }
  for (std::size_t i = 1; i < info.cache_paths.size(); ++i) {
    auto other = ReadSuperblock(info.cache_paths[i]);
    if (!other.ok()) {
      m->report.problems.push_back(other.error().message);
    } else if (other->uuid != m->sb.uuid || other->device_index != i) {
      m->report.problems.push_back(info.cache_paths[i] + ": superblock of another volume or slot");
    }
  }
  return m;
}

namespace {

// The recovered metadata, or an error (exit 1) if recovery found problems.
Expected<RecoveredMetadata> ReadConsistentMetadata(const VolumeInfo& info) {
  auto m = ReadVolumeMetadata(info);
  if (!m.ok()) return m.error();
  if (!m->report.problems.empty()) {
    return MakeError("volume " + info.name + ": metadata inconsistent (" +
                         m->report.problems.front() + "); run tierlab check",
                     ErrorKind::kInconsistent);
  }
  return m;
}

}  // namespace

OpenedVolume::~OpenedVolume() {
  fua_.reset();
  journal_.reset();
  volume_ = Volume();
  lock_.Release();  // last: the devices are closed
}

Status OpenedVolume::Close() {
  if (closed_) return Status::kOk;
  closed_ = true;
  std::vector<std::uint32_t> state;
  std::vector<std::uint32_t> crcs;
  std::optional<Superblock> sb;
  std::uint64_t gen = 0, seq = 0;
  if (journal_) {
    state = journal_->FinalState();
    crcs = journal_->FinalCrcs();
    sb = journal_->superblock();
    gen = journal_->generation() + 1;
    seq = journal_->next_seq();
  }
  fua_.reset();
  top_ = nullptr;
  journal_.reset();
  // Every device closes (requests in the kernel are waited for), which
  // drops the device locks; the volume lock, held until the end, keeps
  // every other opener of this volume out, and the superblock keeps plain
  // layouts off the cache devices.
  volume_ = Volume();
  Status st = Status::kOk;
  if (sb) {
    for (const auto& p : info_.cache_paths) {
      if (!SyncPath(p).ok()) st = Status::kIoError;
    }
    if (st == Status::kOk &&
        !WriteCheckpoint(info_.cache_paths[0], *sb, gen, seq, state, crcs, /*clean=*/true).ok()) {
      st = Status::kIoError;
    }
  }
  lock_.Release();
  return st;
}

Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine& engine, const VolumeInfo& info,
                                                   std::string_view command) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<OpenedVolume> v(new OpenedVolume());
  v->info_ = info;
  auto lock = LockVolume(info, command);
  if (!lock.ok()) return lock.error();
  v->lock_ = std::move(lock.value());
  if (auto r = RequireOwnPlace(info); !r.ok()) return r.error();
  std::vector<std::string> notes;
  if (info.place_stale) {
    const std::string from = info.recorded_dir;
    if (auto r = RecordVolumePlace(v->info_); !r.ok()) return r.error();
    if (from != info.dir) notes.push_back("moved from " + from + "; its new place is recorded");
  }
  auto layout = ParseLayoutJson(info.layout, (fs::path(info.dir) / kVolumeFile).string());
  if (!layout.ok()) return layout.error();
  auto uuid = ParseUuid(info.uuid);
  if (!uuid.ok()) return MakeError(info.dir + "/volume.json: uuid: " + uuid.error().message);

  // The devices first: locked (no other user from here on), cache devices
  // carrying this volume's UUID, none shorter than recorded, none grown.
  BuildOptions bo;
  bo.keep_files = true;
  bo.metadata_reserve = info.metadata_reserve;
  bo.placement_run = info.placement_run;
  bo.volume = BuildOptions::ExistingVolume{*uuid, info.device_bytes};
  auto built = BuildVolume(engine, *layout, bo);
  if (!built.ok()) return built.error();
  v->volume_ = std::move(built.value());
  v->top_ = &v->volume_.top();

  if (!info.cache_paths.empty()) {
    auto m = ReadConsistentMetadata(info);
    if (!m.ok()) return m.error();
    // The data of every dirty line against its checksums: a write lost or
    // torn below the cache must not be served as the line's data.
    // After a crash a mismatch may be a write acknowledged after the last
    // flush (MetadataRecovery.h): its current checksum is adopted, with a note.
    auto data = VerifyDirtyData(*m, info.cache_paths, /*adopt=*/!m->clean);
    if (!data.ok()) return data.error();
    m->report.data_check_seconds = data->seconds;
    if (data->adopted > 0) {
      m->report.notes.push_back(std::to_string(data->adopted) +
                                " dirty sector(s) differ from their committed checksum after a "
                                "crash (written after the last flush, or lost or torn): kept");
    }
    if (m->clean && !data->bad.empty()) {
      const BadLine& b = data->bad.front();
      return MakeError("volume " + info.name + ": " + std::to_string(data->bad.size()) +
                           " dirty line(s) fail their data checksum (first: line " +
                           std::to_string(b.line) + " at volume offset " +
                           std::to_string(std::uint64_t{b.line} * m->sb.geo.line_size) + ", slot " +
                           std::to_string(b.slot) +
                           "): a lost or torn write on the cache device; run tierlab check",
                       ErrorKind::kInconsistent);
    }
    // A new generation: journal blocks of a torn commit are never replayed
    // after blocks written from now on.
    ++m->generation;
    if (auto r = WriteCheckpoint(info.cache_paths[0], m->sb, m->generation, m->next_seq, m->dirty,
                                 m->crc);
        !r.ok()) {
      return r.error();
    }
    CacheTarget* cache = v->volume_.cache();
    if (cache == nullptr)
      return MakeError("volume " + info.name + ": layout lost its cache", ErrorKind::kInput);
    v->recovery_ = m->report;
    auto j = CacheJournal::Attach(*cache, std::move(m.value()));
    if (!j.ok())
      return MakeError("volume " + info.name + ": " + j.error().message, ErrorKind::kInconsistent);
    v->journal_ = std::move(j.value());
    v->fua_ = std::make_unique<FuaFlushTarget>(engine, "volume", v->volume_.top());
    v->top_ = v->fua_.get();
  }
  for (auto& n : notes) v->recovery_.notes.push_back(std::move(n));
  v->recovery_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

Expected<VolumeInfo> ReidentifyVolume(const VolumeInfo& info_in, const std::string& new_name) {
  if (new_name.find('/') != std::string::npos) {
    return MakeError("--name: " + QuotedText(new_name, '"') + " must be a name without '/'",
                     ErrorKind::kInput);
  }
  VolumeInfo info = info_in;
  auto lock = LockVolume(info, "reidentify");
  if (!lock.ok()) return lock.error();
  for (const auto& p : info.all_paths) {
    if (!InVolumeDir(info, p)) {
      return MakeError("volume " + info.name + ": device " + p +
                           " lies outside the volume directory; a copy shares it with the "
                           "original, so the copy cannot have an identity of its own",
                       ErrorKind::kInconsistent);
    }
  }
  auto devices = LockVolumeDevices(info);
  if (!devices.ok()) return devices.error();
  const VolumeUuid uuid = NewUuid();
  if (!info.cache_paths.empty()) {
    auto m = ReadConsistentMetadata(info);
    if (!m.ok()) return m.error();
    // The whole durable state (journal replayed) under the new UUID: every
    // superblock, then both checkpoint copies, so nothing valid is left
    // under the old one.
    Superblock sb = m->sb;
    sb.uuid = uuid;
    for (std::size_t i = 0; i < info.cache_paths.size(); ++i) {
      sb.device_index = static_cast<std::uint32_t>(i);
      if (auto r = WriteSuperblock(info.cache_paths[i], sb); !r.ok()) return r.error();
    }
    sb.device_index = 0;
    for (std::uint64_t g = 1; g <= 2; ++g) {
      if (auto r = WriteCheckpoint(info.cache_paths[0], sb, m->generation + g, m->next_seq,
                                   m->dirty, m->crc, m->clean);
          !r.ok()) {
        return r.error();
      }
    }
  }
  info.uuid = FormatUuid(uuid);
  if (!new_name.empty()) info.name = new_name;
  info.recorded_dir = info.dir;
  if (auto r = WriteVolumeInfo(info); !r.ok()) return r.error();
  info.place = VolumePlace::kHome;
  info.place_stale = false;
  return info;
}

DestroyReport RemoveVolumeFiles(const VolumeInfo& info) {
  DestroyReport rep;
  const bool copy = info.place == VolumePlace::kCopy;
  auto created = [&](const std::string& p) {
    return std::find(info.created_files.begin(), info.created_files.end(), p) !=
           info.created_files.end();
  };
  auto remove = [&](const std::string& p) {
    if (::unlink(p.c_str()) == 0 || errno == ENOENT) {
      rep.removed.push_back(p);
    } else {
      rep.errors.push_back(p + ": cannot remove: " + std::strerror(errno));
    }
  };
  for (const auto& p : VolumeFiles(info)) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) continue;  // already gone
    const bool inside = InVolumeDir(info, p);
    if (inside && created(p)) {
      remove(p);
      continue;
    }
    if (copy) {
      rep.kept.push_back(p + " (" +
                         (inside ? "not created by the volume"
                                 : "belongs to the original volume in " + info.recorded_dir) +
                         ")");
      continue;
    }
    auto label = ReadSuperblockLabel(p);
    if (!label.ok()) {
      rep.errors.push_back(label.error().message);
      continue;
    }
    if (!*label || FormatUuid(**label) != info.uuid) {
      rep.kept.push_back(
          p + " (" + (inside ? "not created by the volume" : "outside the volume directory") +
          (*label ? ", superblock of another volume)" : ", no superblock of this volume)"));
      continue;
    }
    if (created(p) && S_ISREG(st.st_mode)) {
      remove(p);
    } else if (auto r = WipeSuperblock(p); r.ok()) {
      rep.wiped.push_back(p);
    } else {
      rep.errors.push_back(r.error().message);
    }
  }
  if (!rep.errors.empty()) return rep;  // volume.json stays: run destroy again
  // volume.json first: from here on the directory is no volume.
  for (const char* f :
       {kVolumeFile, "volume.json.tmp", "serve.json", "serve.json.tmp", "nbd.sock", kLockFile}) {
    const std::string p = (fs::path(info.dir) / f).string();
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
      rep.errors.push_back(p + ": cannot remove: " + std::strerror(errno));
      if (std::string_view(f) == kVolumeFile) return rep;
    }
  }
  ::rmdir(info.dir.c_str());  // only if empty: files the user put there stay
  return rep;
}

Expected<DestroyReport> DestroyVolume(const VolumeInfo& info, bool force,
                                      const std::string& flush_hint) {
  // Held to the end: nothing opens the volume or a device while it goes.
  auto lock = LockVolume(info, "destroy");
  if (!lock.ok()) return lock.error();
  auto device_locks = LockVolumeDevices(info);
  if (!device_locks.ok()) return device_locks.error();
  if (!info.cache_paths.empty() && !force) {
    auto m = ReadVolumeMetadata(info);
    if (!m.ok()) {
      return MakeError(m.error().message + "; cannot tell whether lines are dirty (use --force)",
                       ErrorKind::kInconsistent);
    }
    if (m->report.dirty_lines > 0) {
      return MakeError("volume " + info.name + " has " + std::to_string(m->report.dirty_lines) +
                           " dirty lines (" +
                           FormatBytes(m->report.dirty_lines * m->sb.geo.line_size) +
                           ") not on the capacity tier; run tierlab flush " + flush_hint +
                           " first, or --force to lose them",
                       ErrorKind::kInconsistent);
    }
  }
  return RemoveVolumeFiles(info);
}

}  // namespace tierlab
