#include "layouts/VolumeStore.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "layouts/CacheSpec.h"
#include "layouts/JsonFields.h"
#include "tiering/FuaFlushTarget.h"

namespace tierlab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kVolumeFile = "volume.json";

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
  if (fd < 0) return MakeError(path + ": open: " + std::strerror(errno), kExitIo);
  const int rc = ::fdatasync(fd);
  ::close(fd);
  if (rc != 0) return MakeError(path + ": fdatasync: " + std::strerror(errno), kExitIo);
  return {};
}

Expected<void> WriteJsonAtomically(const std::string& path, const nlohmann::json& j) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump(2) << "\n";
    if (!f) return MakeError(tmp + ": cannot write", kExitIo);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return MakeError(path + ": " + ec.message(), kExitIo);
  return {};
}

// Cache tier index and parsed cache section, or none.
struct CacheInfo {
  std::size_t tier = 0;
  CacheSpec spec;
};
Expected<std::optional<CacheInfo>> FindCache(const LayoutSpec& l) {
  if (l.cache.is_null()) return std::optional<CacheInfo>{};
  auto c = ParseCacheJson(l.cache, l.source, l.tiers[0].name);
  if (!c.ok()) return c.error();
  for (std::size_t i = 0; i < l.tiers.size(); ++i) {
    if (l.tiers[i].name == c->tier) return std::optional<CacheInfo>(CacheInfo{i, *c});
  }
  return MakeError(l.source + ": cache.tier: unknown tier \"" + c->tier + "\"");
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

}  // namespace

std::string DefaultVolumeRoot() {
  const char* env = std::getenv("TIERLAB_VOLUMES");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("tierlab-volumes");
}

Expected<std::string> ResolveVolumeDir(std::string_view name_or_dir) {
  const std::string s(name_or_dir);
  std::error_code ec;
  if (!s.empty() && fs::is_regular_file(fs::path(s) / kVolumeFile, ec)) {
    return fs::absolute(s, ec).lexically_normal().string();
  }
  const fs::path under = fs::path(DefaultVolumeRoot()) / s;
  if (!s.empty() && s.find('/') == std::string::npos &&
      fs::is_regular_file(under / kVolumeFile, ec)) {
    return fs::absolute(under, ec).lexically_normal().string();
  }
  return MakeError(
      "no volume \"" + s + "\" (neither a directory with volume.json nor " + under.string() + ")",
      kExitUsage);
}

Expected<VolumeInfo> ReadVolumeInfo(const std::string& dir) {
  const std::string path = (fs::path(dir) / kVolumeFile).string();
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.error();
  VolumeInfo info;
  try {
    info.name = j->at("name").get<std::string>();
    info.uuid = j->at("uuid").get<std::string>();
    info.layout = j->at("layout");
    info.metadata_reserve = j->value("metadata_reserve", std::uint64_t{0});
    if (j->contains("created_files")) {
      info.created_files = j->at("created_files").get<std::vector<std::string>>();
    }
  } catch (const nlohmann::json::exception& e) {
    return MakeError(path + ": " + e.what(), kExitUsage);
  }
  info.dir = dir;
  FillPaths(info);
  return info;
}

Expected<VolumeInfo> CreateVolume(const LayoutSpec& layout, const std::string& name,
                                  const std::string& dir_in) {
  if (name.empty() || name.find('/') != std::string::npos) {
    return MakeError("--name: \"" + name + "\" must be a non-empty name without '/'", kExitUsage);
  }
  std::error_code ec;
  const std::string dir = fs::absolute(dir_in, ec).lexically_normal().string();
  if (fs::exists(fs::path(dir) / kVolumeFile, ec)) {
    return MakeError(dir + ": a volume already exists there", kExitUsage);
  }
  fs::create_directories(dir, ec);
  if (ec) return MakeError(dir + ": " + ec.message(), kExitIo);

  LayoutSpec l = layout;
  auto cache = FindCache(l);
  if (!cache.ok()) return cache.error();
  MetadataGeometry geo;
  if (*cache) {
    // A persistent cache needs a fixed line size and destage that flushes the
    // origin before lines turn clean (a clean line may be forgotten).
    std::uint64_t line = (*cache)->spec.config.line_size;
    if (line == 0) line = 4096;
    l.cache["line_size"] = FormatBytes(line);
    l.cache["destage_flush"] = true;
    const TierSpec& ct = l.tiers[(*cache)->tier];
    std::uint64_t slots = 0;
    for (std::uint32_t i = 0; i < ct.count; ++i) {
      const std::uint64_t cap =
          ct.paths.empty() || ct.capacity != 0 ? DeviceCapacity(ct) : PathSize(ct.paths[i]);
      slots += cap / line;
    }
    if ((*cache)->spec.capacity_bytes != 0) {
      slots = std::min(slots, (*cache)->spec.capacity_bytes / line);
    }
    geo = MetadataGeometry::For(line, slots);
  }

  VolumeInfo info;
  info.name = name;
  info.dir = dir;
  const VolumeUuid uuid = NewUuid();
  info.uuid = FormatUuid(uuid);
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
      for (const auto& p : t.paths) {
        if (!fs::exists(p, ec) && t.capacity != 0) info.created_files.push_back(p);
      }
    }
  }
  info.layout = LayoutToJson(l);
  FillPaths(info);

  // Build once: creates and sizes the files, and checks the layout against
  // the real devices.
  std::uint64_t origin_bytes = 0;
  std::uint64_t capacity_lines = 0;
  {
    RealEngine engine;
    BuildOptions bo;
    bo.real = true;
    bo.keep_files = true;
    bo.metadata_reserve = geo.reserve;
    auto v = BuildVolume(engine, l, bo);
    if (!v.ok()) {
      for (const auto& f : info.created_files) fs::remove(f, ec);
      return v.error();
    }
    origin_bytes = v->top().Size();
    if (v->cache() != nullptr) capacity_lines = v->cache()->capacity_lines();
  }
  if (*cache) {
    if (capacity_lines > geo.slots) {
      return MakeError("internal: cache capacity exceeds the metadata geometry", kExitIo);
    }
    Superblock sb;
    sb.uuid = uuid;
    sb.geo = geo;
    sb.device_count = static_cast<std::uint32_t>(info.cache_paths.size());
    sb.origin_bytes = origin_bytes;
    sb.created_unix = static_cast<std::uint64_t>(std::time(nullptr));
    sb.layout_json = info.layout.dump();
    for (std::size_t i = 0; i < info.cache_paths.size(); ++i) {
      sb.device_index = static_cast<std::uint32_t>(i);
      if (auto r = WriteSuperblock(info.cache_paths[i], sb); !r.ok()) return r.error();
    }
    sb.device_index = 0;
    const std::vector<std::uint32_t> empty(geo.slots, kNotDirty);
    // Both copies valid and empty (gen 0 and 1): nothing stale on a reused device.
    for (std::uint64_t gen = 0; gen < 2; ++gen) {
      if (auto r = WriteCheckpoint(info.cache_paths[0], sb, gen, 1, empty, {}, /*clean=*/true);
          !r.ok()) {
        return r.error();
      }
    }
  }
  nlohmann::json j;
  j["tierlab_volume"] = 1;
  j["name"] = info.name;
  j["uuid"] = info.uuid;
  j["created_unix"] = static_cast<std::uint64_t>(std::time(nullptr));
  j["metadata_reserve"] = info.metadata_reserve;
  j["created_files"] = info.created_files;
  j["layout"] = info.layout;
  if (auto r = WriteJsonAtomically((fs::path(dir) / kVolumeFile).string(), j); !r.ok()) {
    return r.error();
  }
  return info;
}

int VolumeServerPid(const VolumeInfo& info) {
  auto j = ReadJsonFile((fs::path(info.dir) / "serve.json").string());
  if (!j.ok() || !j->is_object()) return 0;
  const int pid = j->value("pid", 0);
  if (pid <= 0 || ::kill(pid, 0) != 0) return 0;
  // Still holding the lock? (A stale serve.json of a killed server is not.)
  int fd = ::open((fs::path(info.dir) / "lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return 0;
  const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return free ? 0 : pid;
}

Expected<RecoveredMetadata> ReadVolumeMetadata(const VolumeInfo& info) {
  if (info.cache_paths.empty()) return MakeError("volume " + info.name + " has no cache", 2);
  auto sb = ReadSuperblock(info.cache_paths[0]);
  if (!sb.ok()) return sb.error();
  const std::uint64_t lines = (sb->origin_bytes + sb->geo.line_size - 1) / sb->geo.line_size;
  auto m = RecoverMetadata(info.cache_paths[0], lines);
  if (!m.ok()) return m.error();
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

OpenedVolume::~OpenedVolume() {
  fua_.reset();
  journal_.reset();
  volume_ = Volume();
  if (lock_fd_ >= 0) ::close(lock_fd_);
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
  volume_ = Volume();  // closes every device (requests in the kernel are waited for)
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
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
  return st;
}

Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine& engine, const VolumeInfo& info) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<OpenedVolume> v(new OpenedVolume());
  v->info_ = info;
  const std::string lock_path = (fs::path(info.dir) / "lock").string();
  v->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (v->lock_fd_ < 0) return MakeError(lock_path + ": " + std::strerror(errno), kExitIo);
  if (::flock(v->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    return MakeError("volume " + info.name + " is open in another process (" + lock_path + ")", 1);
  }
  auto layout = ParseLayoutJson(info.layout, (fs::path(info.dir) / kVolumeFile).string());
  if (!layout.ok()) return layout.error();

  std::optional<RecoveredMetadata> meta;
  if (!info.cache_paths.empty()) {
    auto m = ReadVolumeMetadata(info);
    if (!m.ok()) return m.error();
    if (!m->report.problems.empty()) {
      return MakeError("volume " + info.name + ": metadata inconsistent (" +
                           m->report.problems.front() + "); run tierlab check",
                       1);
    }
    // The data of every dirty line against its checksums: a write lost or
    // torn below the cache must not be served as the line's data.
    // After a crash a mismatch may be a write acknowledged after the last
    // flush (CacheJournal.h): its current checksum is adopted, with a note.
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
                       1);
    }
    // A new generation: journal blocks of a torn commit are never replayed
    // after blocks written from now on.
    ++m->generation;
    if (auto r = WriteCheckpoint(info.cache_paths[0], m->sb, m->generation, m->next_seq, m->dirty,
                                 m->crc);
        !r.ok()) {
      return r.error();
    }
    meta = std::move(m.value());
  }

  BuildOptions bo;
  bo.real = true;
  bo.keep_files = true;
  bo.metadata_reserve = info.metadata_reserve;
  auto built = BuildVolume(engine, *layout, bo);
  if (!built.ok()) return built.error();
  v->volume_ = std::move(built.value());
  v->top_ = &v->volume_.top();
  if (meta) {
    CacheTarget* cache = v->volume_.cache();
    if (cache == nullptr) return MakeError("volume " + info.name + ": layout lost its cache", 2);
    v->recovery_ = meta->report;
    auto j = CacheJournal::Attach(*cache, std::move(*meta));
    if (!j.ok()) return MakeError("volume " + info.name + ": " + j.error().message, 1);
    v->journal_ = std::move(j.value());
    v->fua_ = std::make_unique<FuaFlushTarget>(engine, "volume", v->volume_.top());
    v->top_ = v->fua_.get();
  }
  v->recovery_.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace tierlab
