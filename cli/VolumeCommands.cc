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
#include "cli/VolumeReport.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "layouts/VolumeCheck.h"
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

const char* PlaceName(VolumePlace p) {
  switch (p) {
    case VolumePlace::kHome: return "home";
    case VolumePlace::kMoved: return "moved";
    case VolumePlace::kCopy: return "copy";
  }
  return "?";
}

std::string Who(const VolumeUser& u) {
  std::string s = u.pid > 0 ? "pid " + std::to_string(u.pid) : std::string("another process");
  if (!u.command.empty()) s += " (" + u.command + ")";
  return s;
}

// serve.json, if it is the live status of server `pid`.
std::optional<nlohmann::json> LiveStatus(const VolumeInfo& info, int pid) {
  if (pid <= 0) return std::nullopt;
  auto j = ReadJsonFile((fs::path(info.dir) / "serve.json").string());
  if (!j.ok() || !j->is_object() || j->value("pid", 0) != pid) return std::nullopt;
  return *j;
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
  nlohmann::json j;
  j["name"] = info->name;
  j["uuid"] = info->uuid;
  j["dir"] = info->dir;
  j["layout"] = info->layout;
  // The lock says whether the volume is in use; serve.json only adds live
  // counters (it is written once the server listens, never by flush).
  const VolumeUser user = VolumeLockHolder(*info);
  const int pid = user.locked && user.command == "serve" && user.pid > 0 ? user.pid : 0;
  const std::optional<nlohmann::json> live = LiveStatus(*info, pid);
  j["served_by_pid"] = live ? pid : 0;
  j["in_use"] = user.locked;
  j["in_use_by"] = {{"pid", user.pid}, {"command", user.command}};
  j["place"] = PlaceName(info->place);
  j["recorded_dir"] = info->recorded_dir;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& p : info->all_paths) {
    std::error_code ec;
    devices.push_back({{"path", p}, {"exists", fs::exists(p, ec)}, {"bytes", PathBytes(p)}});
  }
  j["devices"] = devices;
  if (!info->cache_paths.empty()) {
    auto m = ReadVolumeMetadata(*info);
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
  if (a.format == "json") {
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (a.format != "table") return Fail("--format: table or json", kExitUsage);
  std::printf("volume      %s\nuuid        %s\ndir         %s\n", info->name.c_str(),
              info->uuid.c_str(), info->dir.c_str());
  if (live) {
    std::printf("state       served by pid %d on %s\n", pid,
                (*live).value("endpoint", std::string("?")).c_str());
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
  for (const auto& d : devices) {
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

// What moves in a live process: its CPU time (utime + stime, in clock
// ticks) and its state letter (R, S, D, T for stopped...), from
// /proc/PID/stat. Empty state if the process is gone.
struct ProcessSample {
  char state = 0;
  unsigned long long cpu = 0;
};
ProcessSample SampleProcess(int pid) {
  ProcessSample p;
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (f == nullptr) return p;
  char buf[1024];
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // "pid (comm) S ppid ...": comm may hold spaces and parentheses.
  const char* close = std::strrchr(buf, ')');
  if (close == nullptr) return p;
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(close + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &p.state,
                  &utime, &stime) == 3) {
    p.cpu = utime + stime;
  }
  return p;
}

// Asks server `pid` to destage everything (SIGUSR1) and waits until its
// serve.json counts one more completed drain. Gives up when the server
// shows no progress (no status update, no CPU time) for `stall_timeout`
// seconds: a stopped or hung server is reported, never waited on forever.
int FlushServed(const VolumeInfo& info, int pid, double stall_timeout) {
  using Clock = std::chrono::steady_clock;
  auto before = LiveStatus(info, pid);
  const std::uint64_t start = before ? before->value("drains_completed", 0ull) : 0;
  if (!before) {
    std::fprintf(stderr, "tierlab: the server (pid %d) is still opening the volume; waiting\n",
                 pid);
  }
  if (::kill(pid, SIGUSR1) != 0)
    return Fail("cannot signal the server (pid " + std::to_string(pid) + ")", kExitIo);
  Progress progress;
  std::uint64_t seq = before ? before->value("status_seq", 0ull) : 0;
  ProcessSample last = SampleProcess(pid);
  Clock::time_point last_change = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (VolumeServerPid(info) != pid) return Fail("the server exited during the flush", kExitIo);
    auto j = LiveStatus(info, pid);
    bool moved = false;
    if (j) {
      if (j->contains("cache")) progress.Show((*j)["cache"].value("dirty_bytes", 0ull));
      if (j->value("drains_completed", 0ull) > start) break;
      const std::uint64_t s = j->value("status_seq", 0ull);
      moved = s != seq;
      seq = s;
    }
    const ProcessSample now = SampleProcess(pid);
    moved = moved || now.cpu != last.cpu;
    last = now;
    if (moved) {
      last_change = Clock::now();
    } else if (std::chrono::duration<double>(Clock::now() - last_change).count() >= stall_timeout) {
      char what[160];
      std::snprintf(what, sizeof what,
                    "the server (pid %d) is not making progress: no status update and no CPU "
                    "time for %.1f s%s; the volume was not flushed",
                    pid, stall_timeout,
                    now.state == 'T' || now.state == 't' ? " (the process is stopped)" : "");
      return Fail(what, kExitIo);
    }
  }
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
  int code = kExitOk;
  if (cache != nullptr) {
    Progress progress;
    progress.Show(cache->cache_stats().dirty_lines * cache->line_size(), true);
    bool done = false;
    Status st = Status::kOk;
    cache->Drain([&](std::uint64_t dirty) { progress.Show(dirty); },
                 [&](Status s) {
                   st = s;
                   done = true;
                 });
    while (!done) engine.RunUntil(engine.Now() + 50 * kMilli);
    progress.Show(cache->cache_stats().dirty_lines * cache->line_size(), true);
    if (st != Status::kOk) code = Fail("destage failed", kExitIo);
  }
  bool done = false;
  Status fst = Status::kOk;
  IoRequest f;
  f.op = IoOp::kFlush;
  (*opened)->top().Submit(f, [&](Status s) {
    fst = s;
    done = true;
  });
  while (!done) engine.RunUntil(engine.Now() + 50 * kMilli);
  if (fst != Status::kOk) code = Fail("flush failed", kExitIo);
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
  // Held to the end: nothing opens the volume or a device while it goes.
  auto lock = LockVolume(*info, "destroy");
  if (!lock.ok()) return Fail(lock.error());
  auto device_locks = LockVolumeDevices(*info);
  if (!device_locks.ok()) return Fail(device_locks.error());
  if (!info->cache_paths.empty() && !force) {
    auto m = ReadVolumeMetadata(*info);
    if (!m.ok()) {
      return Fail(m.error().message + "; cannot tell whether lines are dirty (use --force)", 1);
    }
    if (m->report.dirty_lines > 0) {
      return Fail("volume " + info->name + " has " + std::to_string(m->report.dirty_lines) +
                      " dirty lines (" + FormatBytes(m->report.dirty_lines * m->sb.geo.line_size) +
                      ") not on the capacity tier; run tierlab flush " + v +
                      " first, or --force to lose them",
                  1);
    }
  }
  const DestroyReport r = RemoveVolumeFiles(*info);
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
