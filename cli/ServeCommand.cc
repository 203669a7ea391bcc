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
#include "cli/VolumeReport.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "layouts/VolumeStore.h"
#include "tiering/RealEngine.h"
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
};

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

// Runs the engine until `done` is set (timers of the stack may keep it busy
// or let it go idle in between).
void RunUntilSet(RealEngine& engine, const bool& done) {
  while (!done) engine.RunUntil(engine.Now() + 50 * kMilli);
}

Status SubmitAndWait(RealEngine& engine, BlockDevice& dev, IoOp op) {
  bool done = false;
  Status result = Status::kOk;
  IoRequest r;
  r.op = op;
  dev.Submit(r, [&](Status st) {
    result = st;
    done = true;
  });
  RunUntilSet(engine, done);
  return result;
}

int Serve(const ServeArgs& a) {
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
    if (!info.ok()) return Fail(info.error().message, info.error().exit_code);
    auto v = OpenVolume(engine, *info);
    if (!v.ok()) return Fail(v.error().message, v.error().exit_code);
    opened = std::move(v.value());
    top = &opened->top();
    cache = opened->cache();
    name = info->name;
    if (endpoint.empty()) endpoint = "unix:" + (std::filesystem::path(*dir) / "nbd.sock").string();
    status_path = (std::filesystem::path(*dir) / "serve.json").string();
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
  } else {
    auto layout = LoadLayout(a.target);
    if (!layout.ok()) return Fail(layout.error().message, layout.error().exit_code);
    std::error_code ec;
    std::filesystem::create_directories(a.dir, ec);
    BuildOptions bo;
    bo.real = true;
    bo.temp_dir = a.dir;
    bo.keep_files = true;
    auto v = BuildVolume(engine, *layout, bo);
    if (!v.ok()) return Fail(v.error().message, v.error().exit_code);
    plain.emplace(std::move(v.value()));
    top = &plain->top();
    cache = plain->cache();
    name = layout->name;
    if (endpoint.empty()) endpoint = "unix:tierlab-" + name + ".sock";
    for (const auto& f : plain->created_files())
      std::fprintf(stderr, "tierlab: created %s\n", f.c_str());
  }

  NbdServerOptions so;
  so.export_name = a.export_name;
  so.description = "tierlab " + name;
  auto server = NbdServer::Listen(engine, *top, endpoint, so);
  if (!server.ok()) return Fail(server.error().message, server.error().exit_code);

  g_engine = &engine;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);  // `tierlab flush V`: destage everything
  signal(SIGPIPE, SIG_IGN);

  std::printf("serving %s (%llu bytes) on %s\n", name.c_str(),
              static_cast<unsigned long long>(top->Size()), (*server)->endpoint().c_str());
  std::fflush(stdout);

  // Live status for `tierlab status` and `tierlab flush` (volumes only).
  const Nanos interval = static_cast<Nanos>(a.status_interval * kSecond);
  std::uint64_t drains_completed = 0;
  bool draining = false;
  auto write_status = [&] {
    if (status_path.empty() || !opened) return;
    WriteServeStatus(status_path, *opened, endpoint,
                     {{"drains_completed", drains_completed}, {"draining", draining}});
  };
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
        cache->Drain(nullptr, [&](Status st) {
          // Commit the clean state too, so status and a crash see it.
          IoRequest f;
          f.op = IoOp::kFlush;
          top->Submit(f, [&, st](Status) {
            draining = false;
            if (st == Status::kOk) ++drains_completed;
            write_status();
          });
        });
      }
    }
  }
  if (status_timer != 0) engine.Cancel(status_timer);
  std::fprintf(stderr, "tierlab: signal %d: closing connections\n", static_cast<int>(g_signal));
  server->reset();

  // Let requests still in flight finish, then make everything durable.
  bool idle = false;
  while (!idle) {
    engine.RunUntil(engine.Now() + 10 * kMilli);
    idle = top->in_flight() == 0;
  }
  int code = kExitOk;
  if (cache != nullptr && !a.no_drain && !opened) {
    // No persistent metadata: the dirty lines must reach the origin.
    bool done = false;
    Status st = Status::kOk;
    cache->Drain(nullptr, [&](Status s) {
      st = s;
      done = true;
    });
    RunUntilSet(engine, done);
    if (st != Status::kOk) code = Fail("destage failed at exit", kExitIo);
  }
  if (SubmitAndWait(engine, *top, IoOp::kFlush) != Status::kOk) {
    code = Fail("flush failed at exit", kExitIo);
  }
  if (cache != nullptr) {
    std::fprintf(stderr, "tierlab: final cache stats: %s\n",
                 CacheStatsJson(cache->cache_stats()).dump().c_str());
  }
  if (opened) {
    if (!status_path.empty()) {
      std::error_code ec;
      std::filesystem::remove(status_path, ec);
    }
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
  cmd->callback([args, &result] { result.exit_code = Serve(*args); });
}

}  // namespace tierlab::cli
