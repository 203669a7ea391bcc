// tierlab serve: build a layout (or open a volume) in real mode and export its
// top device over NBD until SIGINT/SIGTERM, then flush and exit 0.
//
// Device files: a layout's tiers with `paths` use them; the others get sparse
// files in --dir (default: the current directory), which are kept at exit so
// the next `serve` finds the same data. Only a volume (`tierlab create`) has
// persistent cache metadata: serving a bare layout with a write-back cache
// loses the dirty lines' mapping at exit unless the cache was flushed (the
// server destages everything before it exits, see --no-drain).

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "cli/Commands.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "layouts/ServeStatus.h"
#include "layouts/VolumeServing.h"
#include "layouts/VolumeStore.h"
#include "tiering/core/RealEngine.h"
#include "tiering/nbd/NbdEndpointCheck.h"
#include "tiering/nbd/NbdServer.h"

namespace tierlab::cli {
namespace {

struct ServeArgs {
  std::string target;
  std::string nbd;
  std::string dir = ".";
  std::string export_name;
  bool no_drain = false;
  double status_interval = 1.0;
  // NBD server limits (NbdServerOptions; docs/NBD.md).
  std::size_t max_connections = 64;
  std::string nbd_memory = "256m";
  double handshake_timeout = 10;
  double option_timeout = 5;
  double stall_timeout = 30;
  double idle_timeout = 0;
};

// The NBD limits of `a` into `so`; false (after a usage error) if bad.
bool SetNbdLimits(const ServeArgs& a, NbdServerOptions& so) {
  auto bytes = ParseBytesText(a.nbd_memory);
  if (!bytes.ok() || *bytes == 0) {
    Fail("--nbd-memory: bad size '" + a.nbd_memory + "'", kExitUsage);
    return false;
  }
  so.memory_limit = *bytes;
  if (so.memory_limit < NbdBufferPool::CapacityFor(so.max_payload)) {
    Fail("--nbd-memory: " + a.nbd_memory + " cannot hold one request of the maximum payload (" +
             FormatBytes(so.max_payload) + ")",
         kExitUsage);
    return false;
  }
  so.max_connections = a.max_connections;
  const std::pair<const char*, double> timeouts[] = {{"--handshake-timeout", a.handshake_timeout},
                                                     {"--option-timeout", a.option_timeout},
                                                     {"--stall-timeout", a.stall_timeout},
                                                     {"--idle-timeout", a.idle_timeout}};
  for (const auto& [name, seconds] : timeouts) {
    if (!(seconds >= 0 && seconds <= 86400 * 365)) {
      Fail(std::string(name) + ": seconds must be 0 (off) or more", kExitUsage);
      return false;
    }
  }
  so.timeouts.handshake = static_cast<Nanos>(a.handshake_timeout * kSecond);
  so.timeouts.option_idle = static_cast<Nanos>(a.option_timeout * kSecond);
  so.timeouts.stall = static_cast<Nanos>(a.stall_timeout * kSecond);
  so.timeouts.idle = static_cast<Nanos>(a.idle_timeout * kSecond);
  return true;
}

RealEngine* g_engine = nullptr;
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_drain = 0;

void OnSignal(int sig) {
  if (sig == SIGUSR1) {
    g_drain = 1;
  } else {
    g_signal = sig;
  }
  if (g_engine != nullptr) g_engine->Wake();
}

// The endpoint, checked before a volume's recovery (which can take a while)
// so that a typo, a missing directory or a port in use fails at once
// (CheckNbdEndpointFree).
Expected<void> CheckEndpoint(const std::string& spec) {
  auto ep = ParseNbdEndpoint(spec);
  if (!ep.ok()) return MakeError("--nbd: " + ep.error().message, ErrorKind::kInput);
  if (auto free = CheckNbdEndpointFree(*ep); !free.ok()) {
    return MakeError("--nbd: " + free.error().message, free.error().kind);
  }
  return {};
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);  // `tierlab flush V`: destage everything
  signal(SIGPIPE, SIG_IGN);
}

// What opening each log tier found on its devices (StackBuilder recovers
// them): one line a tier.
void PrintLogRecovery(const std::string& name, const Volume& v) {
  for (const TierView& t : v.tiers()) {
    if (t.log == nullptr) continue;
    const LogStructuredTarget& l = *t.log;
    std::fprintf(stderr,
                 "tierlab: volume %s: tier %s: log recovered: %u segments (%u torn, skipped), "
                 "%llu NVRAM records, %llu blocks replayed from them\n",
                 name.c_str(), t.name.c_str(), l.recovered_segments(), l.skipped_segments(),
                 static_cast<unsigned long long>(l.nvram_records_found()),
                 static_cast<unsigned long long>(l.replayed_blocks()));
  }
}

int Serve(const ServeArgs& a) {
  NbdServerOptions so;
  if (!SetNbdLimits(a, so)) return kExitUsage;
  // From the start: a `tierlab flush` during recovery (SIGUSR1) must not
  // kill the server, and SIGINT then stops it once the volume is open.
  InstallSignalHandlers();
  RealEngine engine;
  std::optional<Volume> plain;
  std::unique_ptr<OpenedVolume> opened;
  BlockDevice* top = nullptr;
  CacheTarget* cache = nullptr;
  std::string name;
  std::string endpoint = a.nbd;
  std::string status_path;

  if (auto dir = ResolveVolumeDir(a.target); dir.ok()) {
    auto info = ReadVolumeInfo(*dir);
    if (!info.ok()) return Fail(info.error());
    if (endpoint.empty()) endpoint = "unix:" + (std::filesystem::path(*dir) / "nbd.sock").string();
    if (auto r = CheckEndpoint(endpoint); !r.ok()) return Fail(r.error());
    auto v = OpenVolume(engine, *info, "serve");
    if (!v.ok()) return Fail(v.error());
    opened = std::move(v.value());
    top = &opened->top();
    cache = opened->cache();
    name = info->name;
    status_path = ServeStatusPath(*info);
    const RecoveryReport& rr = opened->recovery();
    std::fprintf(stderr,
                 "tierlab: volume %s: recovered %llu dirty lines (checkpoint %llu, %llu journal "
                 "blocks) in %.3f s, their data checked against its checksums in %.3f s\n",
                 name.c_str(), static_cast<unsigned long long>(rr.dirty_lines),
                 static_cast<unsigned long long>(rr.checkpoint_generation),
                 static_cast<unsigned long long>(rr.journal_blocks), rr.seconds,
                 rr.data_check_seconds);
    for (const auto& n : rr.notes)
      std::fprintf(stderr, "tierlab: volume %s: %s\n", name.c_str(), n.c_str());
    PrintLogRecovery(name, opened->volume());
  } else {
    auto layout = LoadLayout(a.target);
    if (!layout.ok()) return Fail(layout.error());
    if (endpoint.empty()) endpoint = "unix:tierlab-" + layout->name + ".sock";
    if (auto r = CheckEndpoint(endpoint); !r.ok()) return Fail(r.error());
    auto v = BuildLayoutForServing(engine, *layout, a.dir);
    if (!v.ok()) return Fail(v.error());
    plain.emplace(std::move(v.value()));
    top = &plain->top();
    cache = plain->cache();
    name = layout->name;
    for (const auto& f : plain->created_files())
      std::fprintf(stderr, "tierlab: created %s\n", f.c_str());
    PrintLogRecovery(name, *plain);
  }

  so.export_name = a.export_name;
  so.description = "tierlab " + name;
  auto server = NbdServer::Listen(engine, *top, endpoint, so);
  if (!server.ok()) return Fail(server.error());

  g_engine = &engine;

  std::printf("serving %s (%llu bytes) on %s\n", name.c_str(),
              static_cast<unsigned long long>(top->Size()), (*server)->endpoint().c_str());
  std::fflush(stdout);

  // Live status for `tierlab status` and `tierlab flush` (volumes only).
  const Nanos interval = static_cast<Nanos>(a.status_interval * kSecond);
  std::uint64_t drains_completed = 0;
  bool draining = false;
  // Bumped on every write: `tierlab flush` sees the server making progress.
  std::uint64_t status_seq = 0;
  bool status_failed = false;
  auto write_status = [&] {
    if (status_path.empty() || !opened) return;
    auto r = WriteServeStatus(status_path, *opened, endpoint,
                              {{"drains_completed", drains_completed},
                               {"draining", draining},
                               {"status_seq", ++status_seq}});
    if (!r.ok() && !status_failed) {
      std::fprintf(stderr, "tierlab: warning: %s (the previous status is kept)\n",
                   r.error().message.c_str());
    }
    status_failed = !r.ok();
  };
  Nanos last_progress_status = 0;
  TimerId status_timer = 0;
  std::function<void()> tick = [&] {
    write_status();
    if (interval > 0) status_timer = engine.ScheduleAfter(interval, [&] { tick(); });
  };
  tick();

  while (g_signal == 0) {
    engine.Run();
    if (g_drain != 0 && g_signal == 0) {
      g_drain = 0;
      if (cache != nullptr && !draining) {
        draining = true;
        write_status();
        // Progress into serve.json at most twice a second, whatever the
        // status interval: `tierlab flush` waits on it.
        auto on_progress = [&](std::uint64_t) {
          if (engine.Now() - last_progress_status < 500 * kMilli) return;
          last_progress_status = engine.Now();
          write_status();
        };
        DrainAndCommit(*top, *cache, on_progress, [&](Status st) {
          draining = false;
          if (st == Status::kOk) ++drains_completed;
          write_status();
        });
      }
    }
  }
  if (status_timer != 0) engine.Cancel(status_timer);
  std::fprintf(stderr, "tierlab: signal %d: closing connections\n", static_cast<int>(g_signal));
  server->reset();

  // No persistent metadata: the dirty lines must reach the origin.
  const StopResult stop = StopServing(engine, *top, cache, !a.no_drain && !opened);
  int code = kExitOk;
  if (stop.destage != Status::kOk) code = Fail("destage failed at exit", kExitIo);
  if (stop.flush != Status::kOk) code = Fail("flush failed at exit", kExitIo);
  if (cache != nullptr) {
    std::fprintf(stderr, "tierlab: final cache stats: %s\n",
                 CacheStatsJson(cache->cache_stats()).dump().c_str());
  }
  if (opened) {
    if (!status_path.empty()) RemoveServeStatus(status_path);
    if (Status st = opened->Close(); st != Status::kOk) {
      code = Fail("closing the volume failed", kExitIo);
    }
  }
  g_engine = nullptr;
  return code;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Export a volume (tierlab create) or a layout built on files over NBD");
  cmd->add_option("target", args->target,
                  "A volume name or directory, or a layout (JSON file or shorthand)")
      ->required();
  cmd->add_option("--nbd", args->nbd,
                  "unix:PATH (mode 0600), tcp:PORT (127.0.0.1) or tcp:HOST:PORT (default: "
                  "unix:VOLUME_DIR/nbd.sock, or unix:tierlab-LAYOUT.sock)");
  cmd->add_option("--dir", args->dir,
                  "Layout: where device files without paths are created and kept")
      ->capture_default_str();
  cmd->add_option("--export-name", args->export_name, "NBD export name (default: empty)");
  cmd->add_flag("--no-drain", args->no_drain,
                "Layout: do not destage dirty lines at exit (they are lost)");
  cmd->add_option("--status-interval", args->status_interval,
                  "Volume: seconds between serve.json status updates (0: off)")
      ->capture_default_str();
  cmd->add_option("--max-connections", args->max_connections,
                  "NBD clients at once; more are refused (logged)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{65536}))
      ->capture_default_str();
  cmd->add_option("--nbd-memory", args->nbd_memory,
                  "Buffers for read replies and write payloads of all clients together (>= 32m)")
      ->capture_default_str();
  cmd->add_option("--handshake-timeout", args->handshake_timeout,
                  "Seconds a client has to finish the NBD handshake (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--option-timeout", args->option_timeout,
                  "Seconds a client may stay silent during the handshake (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--stall-timeout", args->stall_timeout,
                  "Seconds a client that holds server memory (unread replies, an unfinished "
                  "write) may move no byte (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--idle-timeout", args->idle_timeout,
                  "Seconds a connection may be idle, nothing sent or in flight (0: no limit)")
      ->capture_default_str();
  cmd->callback([args, &result] { result.exit_code = Serve(*args); });
}

}  // namespace tierlab::cli
