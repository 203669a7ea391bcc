// Volume management: tierlab create / status / flush / check / destroy /
// reidentify.
// The volume format and the durability contract: docs/DURABILITY.md.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "cachedev/MetadataFile.h"
#include "cli/Commands.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "layouts/ServeStatus.h"
#include "layouts/VolumeCheck.h"
#include "layouts/VolumeServing.h"
#include "layouts/VolumeStore.h"
#include "tiering/core/RealEngine.h"

namespace tierlab::cli {
namespace fs = std::filesystem;
namespace {

Expected<VolumeInfo> Find(const std::string& v) {
  auto dir = ResolveVolumeDir(v);
  if (!dir.ok()) return dir.error();
  return ReadVolumeInfo(*dir);
}

std::string Age(std::uint64_t ns) {
  char b[64];
  std::snprintf(b, sizeof b, "%.1f s", static_cast<double>(ns) / 1e9);
  return b;
}

std::string Who(const VolumeUser& u) {
  std::string s = u.pid > 0 ? "pid " + std::to_string(u.pid) : std::string("another process");
  if (!u.command.empty()) s += " (" + u.command + ")";
  return s;
}

// ---- create ------------------------------------------------------------------

struct CreateArgs {
  std::string layout;
  std::string name;
  std::string dir;
};

int Create(const CreateArgs& a) {
  auto layout = LoadLayout(a.layout);
  if (!layout.ok()) return Fail(layout.error());
  const std::string dir = a.dir.empty() ? (fs::path(DefaultVolumeRoot()) / a.name).string() : a.dir;
  auto info = CreateVolume(*layout, a.name, dir);
  if (!info.ok()) return Fail(info.error());
  std::printf("created volume %s (uuid %s) in %s\n", info->name.c_str(), info->uuid.c_str(),
              info->dir.c_str());
  for (const auto& p : info->all_paths) {
    std::printf("  device %s (%s)\n", p.c_str(), FormatBytes(PathBytes(p)).c_str());
  }
  // The NVRAM devices of log tiers (not devices with a size record: the
  // log's label names them as its own).
  for (const auto& t : info->layout["tiers"]) {
    if (!t.contains("log") || !t["log"].contains("nvram")) continue;
    for (const auto& p : t["log"]["nvram"].value("paths", nlohmann::json::array())) {
      const std::string path = p.get<std::string>();
      std::printf("  nvram %s (%s)\n", path.c_str(), FormatBytes(PathBytes(path)).c_str());
    }
  }
  if (info->metadata_reserve != 0) {
    std::printf("  metadata: %s reserved at the start of each cache device\n",
                FormatBytes(info->metadata_reserve).c_str());
  }
  return kExitOk;
}

// ---- status ------------------------------------------------------------------

struct StatusArgs {
  std::string volume;
  std::string format = "table";
};

int StatusCmd(const StatusArgs& a) {
  auto info = Find(a.volume);
  if (!info.ok()) return Fail(info.error());
  const nlohmann::json j = VolumeStatusJson(*info);
  const VolumeUser user{j["in_use"].get<bool>(), j["in_use_by"]["pid"].get<int>(),
                        j["in_use_by"]["command"].get<std::string>()};
  const bool live = j.contains("live");
  if (a.format == "json") {
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (a.format != "table") return Fail("--format: table or json", kExitUsage);
  std::printf("volume      %s\nuuid        %s\ndir         %s\n", info->name.c_str(),
              info->uuid.c_str(), info->dir.c_str());
  if (live) {
    std::printf("state       served by pid %d on %s\n", j["served_by_pid"].get<int>(),
                j["live"].value("endpoint", std::string("?")).c_str());
  } else if (user.locked && user.command == "serve") {
    std::printf("state       opening: %s is recovering it, not serving yet\n", Who(user).c_str());
  } else if (user.locked) {
    std::printf("state       in use by %s\n", Who(user).c_str());
  } else {
    std::printf("state       closed\n");
  }
  if (info->place == VolumePlace::kCopy) {
    std::printf(
        "place       COPY of the volume in %s (same uuid): tierlab reidentify %s gives it "
        "its own\n",
        info->recorded_dir.c_str(), info->dir.c_str());
  } else if (info->place == VolumePlace::kMoved) {
    std::printf("place       moved from %s (recorded at the next open)\n",
                info->recorded_dir.c_str());
  }
  if (j.contains("metadata")) {
    const auto& m = j["metadata"];
    if (m.contains("error")) {
      std::printf("metadata    ERROR %s\n", m["error"].get<std::string>().c_str());
    } else {
      std::printf("cache       line %s, %llu slots, metadata %s\n",
                  FormatBytes(m["line_size"].get<std::uint64_t>()).c_str(),
                  static_cast<unsigned long long>(m["slots"].get<std::uint64_t>()),
                  FormatBytes(m["reserve"].get<std::uint64_t>()).c_str());
      std::printf("committed   %llu dirty lines (%s), checkpoint generation %llu\n",
                  static_cast<unsigned long long>(m["committed_dirty_lines"].get<std::uint64_t>()),
                  FormatBytes(m["committed_dirty_bytes"].get<std::uint64_t>()).c_str(),
                  static_cast<unsigned long long>(m["checkpoint_generation"].get<std::uint64_t>()));
      if (!m["problems"].empty()) {
        std::printf("metadata    %zu problem(s), first: %s; run tierlab check\n",
                    m["problems"].size(), m["problems"][0].get<std::string>().c_str());
      }
    }
  }
  if (j.contains("live") && j["live"].contains("cache")) {
    const auto& c = j["live"]["cache"];
    const double cap = std::max<double>(1, c["capacity_lines"].get<double>());
    std::printf("occupancy   %.1f%% (%llu clean, %llu dirty of %llu lines)\n",
                100.0 * (c["clean_lines"].get<double>() + c["dirty_lines"].get<double>()) / cap,
                static_cast<unsigned long long>(c["clean_lines"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["dirty_lines"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["capacity_lines"].get<std::uint64_t>()));
    std::printf("dirty       %s, oldest %s\n",
                FormatBytes(c["dirty_bytes"].get<std::uint64_t>()).c_str(),
                Age(c["dirty_age_ns"].get<std::uint64_t>()).c_str());
    std::printf("reads       %llu, hit ratio %.3f\n",
                static_cast<unsigned long long>(c["read_requests"].get<std::uint64_t>()),
                c["read_hit_ratio"].get<double>());
    std::printf("writes      %llu (absorbed %llu, bypassed %llu, throttled %llu)\n",
                static_cast<unsigned long long>(c["write_requests"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["write_absorbed"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["write_bypassed"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["write_throttled"].get<std::uint64_t>()));
    std::printf("destage     %llu ops, %s, %llu errors; evictions %llu\n",
                static_cast<unsigned long long>(c["destage_ops"].get<std::uint64_t>()),
                FormatBytes(c["destaged_bytes"].get<std::uint64_t>()).c_str(),
                static_cast<unsigned long long>(c["destage_errors"].get<std::uint64_t>()),
                static_cast<unsigned long long>(c["evictions"].get<std::uint64_t>()));
  }
  std::printf("devices\n");
  for (const auto& d : j["devices"]) {
    std::printf("  %-60s %10s %s\n", d["path"].get<std::string>().c_str(),
                FormatBytes(d["bytes"].get<std::uint64_t>()).c_str(),
                d["exists"].get<bool>() ? "ok" : "MISSING");
  }
  return kExitOk;
}

// ---- flush -------------------------------------------------------------------

class Progress {
 public:
  void Show(std::uint64_t dirty_bytes, bool force = false) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(tty_ ? 200 : 1000)) return;
    last_ = now;
    std::fprintf(stderr, tty_ ? "\r\033[Kdestaging: %s dirty" : "destaging: %s dirty\n",
                 FormatBytes(dirty_bytes).c_str());
    shown_ = true;
  }
  ~Progress() {
    if (shown_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool tty_ = isatty(STDERR_FILENO) != 0;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

// Asks the server to destage everything and waits (FlushServedVolume).
int FlushServed(const VolumeInfo& info, int pid, double stall_timeout) {
  Progress progress;
  ServedFlushHooks hooks;
  hooks.opening = [pid] {
    std::fprintf(stderr, "tierlab: the server (pid %d) is still opening the volume; waiting\n",
                 pid);
  };
  hooks.progress = [&progress](std::uint64_t dirty) { progress.Show(dirty); };
  if (auto r = FlushServedVolume(info, pid, stall_timeout, hooks); !r.ok()) return Fail(r.error());
  std::printf("flushed volume %s (served by pid %d)\n", info.name.c_str(), pid);
  return kExitOk;
}

int FlushCmd(const std::string& v, double stall_timeout) {
  auto info = Find(v);
  if (!info.ok()) return Fail(info.error());
  if (const VolumeUser u = VolumeLockHolder(*info); u.locked) {
    if (u.command == "serve" && u.pid > 0) return FlushServed(*info, u.pid, stall_timeout);
    return Fail("volume " + info->name + " is in use by " + Who(u), kExitCheckFailed);
  }
  RealEngine engine;
  auto opened = OpenVolume(engine, *info, "flush");
  if (!opened.ok()) return Fail(opened.error());
  CacheTarget* cache = (*opened)->cache();
  std::optional<Progress> progress;
  if (cache != nullptr) {
    progress.emplace();
    progress->Show(cache->cache_stats().dirty_lines * cache->line_size(), true);
  }
  const StopResult r =
      DrainAndFlush(engine, (*opened)->top(), cache, [&](std::uint64_t d) { progress->Show(d); });
  int code = kExitOk;
  if (cache != nullptr) {
    progress->Show(cache->cache_stats().dirty_lines * cache->line_size(), true);
    if (r.destage != Status::kOk) code = Fail("destage failed", kExitIo);
    progress.reset();
  }
  if (r.flush != Status::kOk) code = Fail("flush failed", kExitIo);
  if ((*opened)->Close() != Status::kOk) code = Fail("closing the volume failed", kExitIo);
  if (code == kExitOk) std::printf("flushed volume %s\n", info->name.c_str());
  return code;
}

// ---- check -------------------------------------------------------------------

int CheckCmd(const std::string& v, bool repair) {
  auto info = Find(v);
  if (!info.ok()) return Fail(info.error());
  const VolumeCheckReport r = CheckVolume(*info, repair);
  if (r.in_use.locked) {
    std::printf("note: in use by %s; checking the last committed state\n", Who(r.in_use).c_str());
  }
  if (!r.copy_of.empty()) {
    std::printf(
        "note: this directory is a copy of the volume in %s (same uuid); its own files "
        "are checked\n",
        r.copy_of.c_str());
  }
  if (!r.superblock_restored_from.empty()) {
    std::printf("repaired: superblock of %s restored from %s\n", info->cache_paths[0].c_str(),
                r.superblock_restored_from.c_str());
  }
  if (r.metadata) {
    const RecoveredMetadata& m = *r.metadata;
    const RecoveryReport& rr = m.report;
    std::printf("superblock  ok (uuid %s, line %s, %llu slots)\n", FormatUuid(m.sb.uuid).c_str(),
                FormatBytes(m.sb.geo.line_size).c_str(),
                static_cast<unsigned long long>(m.sb.geo.slots));
    std::printf("checkpoint  A %s, B %s; using generation %llu\n",
                rr.checkpoint_ok[0] ? "ok" : "invalid", rr.checkpoint_ok[1] ? "ok" : "invalid",
                static_cast<unsigned long long>(rr.checkpoint_generation));
    std::printf("journal     %llu blocks, %llu records to replay%s\n",
                static_cast<unsigned long long>(rr.journal_blocks),
                static_cast<unsigned long long>(rr.journal_records),
                rr.journal_damaged_blocks == 0
                    ? ""
                    : (", " + std::to_string(rr.journal_damaged_blocks) + " damaged").c_str());
    std::printf("dirty       %llu lines\n", static_cast<unsigned long long>(rr.dirty_lines));
    std::printf("shutdown    %s\n", m.clean ? "clean (data must match its checksums)"
                                            : "not clean (a crash, or served now)");
    for (const auto& n : rr.notes) std::printf("note: %s\n", n.c_str());
  }
  if (r.data) {
    std::printf(
        "data        %llu dirty lines read, %llu sectors checked, %llu without a "
        "checksum, %zu bad\n",
        static_cast<unsigned long long>(r.data->lines),
        static_cast<unsigned long long>(r.data->sectors_checked),
        static_cast<unsigned long long>(r.data->sectors_unknown), r.data->bad.size());
  }
  for (const auto& w : r.warnings) {
    std::printf("warning: %s (after a crash: written after the last flush, or lost or torn)\n",
                w.c_str());
  }
  for (const auto& p : r.problems) std::printf("PROBLEM: %s\n", p.c_str());
  for (const LostLine& l : r.lost) {
    const auto first = static_cast<unsigned long long>(l.first_byte);
    const auto last = static_cast<unsigned long long>(l.last_byte);
    if (l.why == LostLine::Why::kDamagedJournal) {
      std::printf(
          "LOST: line %u (volume bytes %llu-%llu): named by a damaged journal block; its "
          "newest write may be lost, the origin's copy is served from now on\n",
          l.line, first, last);
    } else {
      std::printf(
          "LOST: line %u (volume bytes %llu-%llu): its dirty data %s; dropped, the origin's "
          "older copy is served from now on\n",
          l.line, first, last,
          l.why == LostLine::Why::kChecksumFailed ? "failed the checksum" : "cannot be verified");
    }
  }
  if (r.failure) return Fail(*r.failure);
  if (r.repaired) {
    std::printf("repaired: wrote checkpoint generation %llu, dropped %llu inconsistent entries\n",
                static_cast<unsigned long long>(r.repair_generation),
                static_cast<unsigned long long>(r.dropped));
    if (!r.repair_verified) return kExitCheckFailed;
    if (r.salvaged) {
      std::printf("volume %s: repaired, %llu dirty line(s) lost\n", info->name.c_str(),
                  static_cast<unsigned long long>(r.lost_lines));
      return kExitCheckFailed;
    }
    std::printf("volume %s: repaired\n", info->name.c_str());
    return kExitOk;
  }
  if (!r.problems.empty()) {
    std::printf("volume %s: %zu problem(s)\n", info->name.c_str(), r.problems.size());
    return kExitCheckFailed;
  }
  std::printf("volume %s: ok\n", info->name.c_str());
  return kExitOk;
}

// ---- destroy -----------------------------------------------------------------

int DestroyCmd(const std::string& v, bool force) {
  auto info = Find(v);
  if (!info.ok()) return Fail(info.error());
  auto destroyed = DestroyVolume(*info, force, v);
  if (!destroyed.ok()) return Fail(destroyed.error());
  const DestroyReport& r = *destroyed;
  for (const auto& f : r.wiped) std::printf("wiped the superblock of %s\n", f.c_str());
  for (const auto& f : r.kept) std::printf("kept %s\n", f.c_str());
  if (!r.errors.empty()) {
    for (const auto& e : r.errors) std::fprintf(stderr, "tierlab: %s\n", e.c_str());
    return Fail("volume " + info->name + " not destroyed (" + std::to_string(r.errors.size()) +
                    " file(s) could not be removed; volume.json kept, run destroy again)",
                kExitIo);
  }
  std::printf("destroyed volume %s\n", info->name.c_str());
  return kExitOk;
}

// ---- reidentify --------------------------------------------------------------

struct ReidentifyArgs {
  std::string volume;
  std::string name;
};

int ReidentifyCmd(const ReidentifyArgs& a) {
  auto info = Find(a.volume);
  if (!info.ok()) return Fail(info.error());
  auto next = ReidentifyVolume(*info, a.name);
  if (!next.ok()) return Fail(next.error());
  std::printf("volume %s in %s: new uuid %s (was %s)\n", next->name.c_str(), next->dir.c_str(),
              next->uuid.c_str(), info->uuid.c_str());
  return kExitOk;
}

}  // namespace

void RegisterVolumeCommands(CLI::App& app, CommandResult& result) {
  {
    auto a = std::make_shared<CreateArgs>();
    CLI::App* c = app.add_subcommand(
        "create", "Create a persistent volume on a layout's files or block devices");
    c->add_option("layout", a->layout, "Layout: JSON file or shorthand")->required();
    c->add_option("--name", a->name, "Volume name")->required();
    c->add_option("--dir", a->dir, "Volume directory (default: ./tierlab-volumes/NAME)");
    c->callback([a, &result] { result.exit_code = Create(*a); });
  }
  {
    auto a = std::make_shared<StatusArgs>();
    CLI::App* c = app.add_subcommand("status", "Show a volume's config, cache state and devices");
    c->add_option("volume", a->volume, "Volume name or directory")->required();
    c->add_option("--format,-f", a->format, "table or json")->capture_default_str();
    c->callback([a, &result] { result.exit_code = StatusCmd(*a); });
  }
  {
    auto v = std::make_shared<std::string>();
    auto stall = std::make_shared<double>(30.0);
    CLI::App* c = app.add_subcommand("flush", "Destage every dirty line of a volume to capacity");
    c->add_option("volume", *v, "Volume name or directory")->required();
    c->add_option("--stall-timeout", *stall,
                  "Served volume: give up when the server shows no progress for this many "
                  "seconds")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    c->callback([v, stall, &result] { result.exit_code = FlushCmd(*v, *stall); });
  }
  {
    auto v = std::make_shared<std::string>();
    auto repair = std::make_shared<bool>(false);
    CLI::App* c =
        app.add_subcommand("check", "Check a volume's metadata offline (exit 1 on a problem)");
    c->add_option("volume", *v, "Volume name or directory")->required();
    c->add_flag("--repair", *repair, "Repair what can be repaired safely");
    c->callback([v, repair, &result] { result.exit_code = CheckCmd(*v, *repair); });
  }
  {
    auto v = std::make_shared<std::string>();
    auto force = std::make_shared<bool>(false);
    CLI::App* c = app.add_subcommand("destroy", "Remove a volume and the files it created");
    c->add_option("volume", *v, "Volume name or directory")->required();
    c->add_flag("--force", *force, "Destroy even with dirty lines (their data is lost)");
    c->callback([v, force, &result] { result.exit_code = DestroyCmd(*v, *force); });
  }
  {
    auto a = std::make_shared<ReidentifyArgs>();
    CLI::App* c = app.add_subcommand(
        "reidentify", "Give a copied volume directory a new UUID (and name) of its own");
    c->add_option("volume", a->volume, "Volume name or directory")->required();
    c->add_option("--name", a->name, "New volume name (default: keep it)");
    c->callback([a, &result] { result.exit_code = ReidentifyCmd(*a); });
  }
}

}  // namespace tierlab::cli
