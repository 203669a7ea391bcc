// Volume management: tierlab create / status / flush / check / destroy.
// The volume format and the durability contract: docs/DURABILITY.md.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "cli/Commands.h"
#include "cli/VolumeReport.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "layouts/VolumeStore.h"
#include "tiering/RealEngine.h"

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

std::uint64_t FileSize(const std::string& p) {
  std::error_code ec;
  const auto s = fs::file_size(p, ec);
  return ec ? 0 : s;
}

// ---- create ------------------------------------------------------------------

struct CreateArgs {
  std::string layout;
  std::string name;
  std::string dir;
};

int Create(const CreateArgs& a) {
  auto layout = LoadLayout(a.layout);
  if (!layout.ok()) return Fail(layout.error().message, layout.error().exit_code);
  const std::string dir = a.dir.empty() ? (fs::path(DefaultVolumeRoot()) / a.name).string() : a.dir;
  auto info = CreateVolume(*layout, a.name, dir);
  if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
  std::printf("created volume %s (uuid %s) in %s\n", info->name.c_str(), info->uuid.c_str(),
              info->dir.c_str());
  for (const auto& p : info->all_paths) {
    std::printf("  device %s (%s)\n", p.c_str(), FormatBytes(FileSize(p)).c_str());
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
  if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
  nlohmann::json j;
  j["name"] = info->name;
  j["uuid"] = info->uuid;
  j["dir"] = info->dir;
  j["layout"] = info->layout;
  const int pid = VolumeServerPid(*info);
  j["served_by_pid"] = pid;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& p : info->all_paths) {
    std::error_code ec;
    devices.push_back({{"path", p}, {"exists", fs::exists(p, ec)}, {"bytes", FileSize(p)}});
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
  if (pid != 0) {
    auto live = ReadJsonFile((fs::path(info->dir) / "serve.json").string());
    if (live.ok()) j["live"] = *live;
  }
  if (a.format == "json") {
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  if (a.format != "table") return Fail("--format: table or json", kExitUsage);
  std::printf("volume      %s\nuuid        %s\ndir         %s\n", info->name.c_str(),
              info->uuid.c_str(), info->dir.c_str());
  if (pid != 0) {
    std::printf("state       served by pid %d on %s\n", pid,
                j.contains("live") ? j["live"].value("endpoint", "?").c_str() : "?");
  } else {
    std::printf("state       closed\n");
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

int FlushServed(const VolumeInfo& info, int pid) {
  const std::string path = (fs::path(info.dir) / "serve.json").string();
  auto before = ReadJsonFile(path);
  const std::uint64_t start = before.ok() ? before->value("drains_completed", 0ull) : 0;
  if (::kill(pid, SIGUSR1) != 0)
    return Fail("cannot signal the server (pid " + std::to_string(pid) + ")", kExitIo);
  Progress progress;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto j = ReadJsonFile(path);
    if (!j.ok()) {
      if (VolumeServerPid(info) == 0) return Fail("the server exited during the flush", kExitIo);
      continue;
    }
    if (j->contains("cache")) progress.Show((*j)["cache"].value("dirty_bytes", 0ull));
    if (j->value("drains_completed", 0ull) > start) break;
  }
  std::printf("flushed volume %s (served by pid %d)\n", info.name.c_str(), pid);
  return kExitOk;
}

int FlushCmd(const std::string& v) {
  auto info = Find(v);
  if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
  if (const int pid = VolumeServerPid(*info); pid != 0) return FlushServed(*info, pid);
  RealEngine engine;
  auto opened = OpenVolume(engine, *info);
  if (!opened.ok()) return Fail(opened.error().message, opened.error().exit_code);
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
  if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
  std::vector<std::string> problems;
  const int pid = VolumeServerPid(*info);
  if (pid != 0) {
    if (repair)
      return Fail("volume is served by pid " + std::to_string(pid) + "; stop it first", 1);
    std::printf("note: served by pid %d; checking the last committed state\n", pid);
  }
  auto layout = ParseLayoutJson(info->layout, info->dir + "/volume.json");
  if (!layout.ok()) return Fail(layout.error().message, 1);
  for (const auto& t : layout->tiers) {
    for (const auto& p : t.paths) {
      std::error_code ec;
      if (!fs::exists(p, ec)) {
        problems.push_back(p + ": missing");
      } else if (t.capacity != 0 && FileSize(p) != 0 && FileSize(p) < t.capacity &&
                 fs::is_regular_file(p, ec)) {
        problems.push_back(p + ": " + std::to_string(FileSize(p)) + " bytes, expected " +
                           std::to_string(t.capacity));
      }
    }
  }
  std::optional<RecoveredMetadata> meta;
  std::vector<BadLine> bad_data;
  if (!info->cache_paths.empty()) {
    auto m = ReadVolumeMetadata(*info);
    if (!m.ok()) {
      problems.push_back(m.error().message);
      // The superblock has a copy on every other cache device.
      if (repair && info->cache_paths.size() > 1) {
        auto copy = ReadSuperblock(info->cache_paths[1]);
        if (copy.ok() && FormatUuid(copy->uuid) == info->uuid) {
          copy->device_index = 0;
          if (WriteSuperblock(info->cache_paths[0], *copy).ok()) {
            std::printf("repaired: superblock of %s restored from %s\n",
                        info->cache_paths[0].c_str(), info->cache_paths[1].c_str());
            m = ReadVolumeMetadata(*info);
            if (m.ok()) problems.pop_back();
          }
        }
      }
    }
    if (m.ok()) {
      const RecoveryReport& r = m->report;
      std::printf("superblock  ok (uuid %s, line %s, %llu slots)\n", FormatUuid(m->sb.uuid).c_str(),
                  FormatBytes(m->sb.geo.line_size).c_str(),
                  static_cast<unsigned long long>(m->sb.geo.slots));
      std::printf("checkpoint  A %s, B %s; using generation %llu\n",
                  r.checkpoint_ok[0] ? "ok" : "invalid", r.checkpoint_ok[1] ? "ok" : "invalid",
                  static_cast<unsigned long long>(r.checkpoint_generation));
      std::printf("journal     %llu blocks, %llu records to replay\n",
                  static_cast<unsigned long long>(r.journal_blocks),
                  static_cast<unsigned long long>(r.journal_records));
      std::printf("dirty       %llu lines\n", static_cast<unsigned long long>(r.dirty_lines));
      std::printf("shutdown    %s\n", m->clean ? "clean (data must match its checksums)"
                                               : "not clean (a crash, or served now)");
      for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
      for (const auto& p : r.problems) problems.push_back(p);
      // Line map against the devices: every dirty slot inside its device.
      const std::size_t n = info->cache_paths.size();
      for (std::uint64_t s = 0; s < m->dirty.size(); ++s) {
        if (m->dirty[s] == kNotDirty) continue;
        const std::string& dev = info->cache_paths[s % n];
        const std::uint64_t end = m->sb.geo.reserve + (s / n + 1) * m->sb.geo.line_size;
        if (end > FileSize(dev) && fs::is_regular_file(dev)) {
          problems.push_back("slot " + std::to_string(s) + " lies beyond the end of " + dev);
        }
      }
      // Dirty data against its checksums: a lost or torn write on a cache
      // device (the origin never saw that data: repair cannot bring it back).
      auto data = VerifyDirtyData(*m, info->cache_paths);
      if (!data.ok()) {
        problems.push_back(data.error().message);
      } else {
        std::printf(
            "data        %llu dirty lines read, %llu sectors checked, %llu without a "
            "checksum, %zu bad\n",
            static_cast<unsigned long long>(data->lines),
            static_cast<unsigned long long>(data->sectors_checked),
            static_cast<unsigned long long>(data->sectors_unknown), data->bad.size());
        const std::uint64_t ls = m->sb.geo.line_size;
        for (const BadLine& b : data->bad) {
          const std::string what =
              "line " + std::to_string(b.line) + " (volume offset " +
              std::to_string(std::uint64_t{b.line} * ls) + ", slot " + std::to_string(b.slot) +
              "): " + std::to_string(b.bad_sectors) +
              " sector(s) differ from their data checksum, first at line offset " +
              std::to_string(std::uint64_t{b.sector} * m->sb.geo.sector_bytes);
          if (m->clean) {
            problems.push_back(what + " (a lost or torn write on the cache device)");
          } else {
            // After a crash: possibly a write acknowledged after the last
            // flush (allowed), possibly a lost or torn one; no way to tell.
            std::printf(
                "warning: %s (after a crash: written after the last flush, or lost or "
                "torn)\n",
                what.c_str());
          }
        }
        if (m->clean) bad_data = std::move(data->bad);
      }
      meta = std::move(m.value());
    }
  }
  for (const auto& p : problems) std::printf("PROBLEM: %s\n", p.c_str());
  if (repair && meta && !problems.empty()) {
    // Keep what is certain: drop slots beyond the devices or the volume, and
    // for a line dirty in two slots keep the lower slot. Then a fresh
    // checkpoint (a new generation: the journal tail is not replayed again).
    const std::uint64_t lines =
        (meta->sb.origin_bytes + meta->sb.geo.line_size - 1) / meta->sb.geo.line_size;
    std::vector<bool> seen(lines, false);
    std::uint64_t dropped = 0;
    const std::size_t n = info->cache_paths.size();
    for (std::uint64_t s = 0; s < meta->dirty.size(); ++s) {
      std::uint32_t& l = meta->dirty[s];
      if (l == kNotDirty) continue;
      const std::uint64_t end = meta->sb.geo.reserve + (s / n + 1) * meta->sb.geo.line_size;
      if (l >= lines || seen[l] || end > FileSize(info->cache_paths[s % n])) {
        l = kNotDirty;
        ++dropped;
        continue;
      }
      seen[l] = true;
    }
    // Dirty lines whose data fails its checksum: the cache device does not
    // hold what was acknowledged, and the origin holds an older version.
    // Dropping them serves that older version from now on; the loss is
    // reported line by line and the exit status stays 1.
    for (const BadLine& b : bad_data) {
      if (meta->dirty[b.slot] == kNotDirty) continue;
      const std::uint64_t ls = meta->sb.geo.line_size;
      std::printf(
          "LOST: line %u (volume bytes %llu-%llu): its dirty data failed the checksum; "
          "dropped, the origin's older copy is served from now on\n",
          b.line, static_cast<unsigned long long>(std::uint64_t{b.line} * ls),
          static_cast<unsigned long long>((std::uint64_t{b.line} + 1) * ls - 1));
      DropDirtyLine(*meta, b.slot);
      ++dropped;
    }
    auto w = WriteCheckpoint(info->cache_paths[0], meta->sb, meta->generation + 1, meta->next_seq,
                             meta->dirty, meta->crc, meta->clean);
    if (!w.ok()) return Fail(w.error().message, kExitIo);
    std::printf("repaired: wrote checkpoint generation %llu, dropped %llu inconsistent entries\n",
                static_cast<unsigned long long>(meta->generation + 1),
                static_cast<unsigned long long>(dropped));
    auto again = ReadVolumeMetadata(*info);
    if (again.ok() && again->report.problems.empty()) {
      if (!bad_data.empty()) {
        std::printf("volume %s: repaired, %zu dirty line(s) lost\n", info->name.c_str(),
                    bad_data.size());
        return 1;
      }
      std::printf("volume %s: repaired\n", info->name.c_str());
      return kExitOk;
    }
    return 1;
  }
  if (!problems.empty()) {
    std::printf("volume %s: %zu problem(s)\n", info->name.c_str(), problems.size());
    return 1;
  }
  std::printf("volume %s: ok\n", info->name.c_str());
  return kExitOk;
}

// ---- destroy -----------------------------------------------------------------

int DestroyCmd(const std::string& v, bool force) {
  auto info = Find(v);
  if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
  if (const int pid = VolumeServerPid(*info); pid != 0) {
    return Fail("volume " + info->name + " is served by pid " + std::to_string(pid), 1);
  }
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
  std::error_code ec;
  for (const auto& f : info->created_files) fs::remove(f, ec);
  for (const char* f : {"volume.json", "lock", "serve.json", "nbd.sock"}) {
    fs::remove(fs::path(info->dir) / f, ec);
  }
  fs::remove(info->dir, ec);  // only if empty: files the user put there stay
  std::printf("destroyed volume %s\n", info->name.c_str());
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
    CLI::App* c = app.add_subcommand("flush", "Destage every dirty line of a volume to capacity");
    c->add_option("volume", *v, "Volume name or directory")->required();
    c->callback([v, &result] { result.exit_code = FlushCmd(*v); });
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
}

}  // namespace tierlab::cli
