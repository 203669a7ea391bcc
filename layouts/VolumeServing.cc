// Drain and shutdown of a served stack (VolumeServing.h).

#include "layouts/VolumeServing.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

#include "layouts/ServeStatus.h"

namespace tierlab {
namespace {

// Runs the engine until `done` is set (timers of the stack may keep it busy
// or let it go idle in between).
void RunUntilSet(RealEngine& engine, const bool& done) {
  while (!done) engine.RunUntil(engine.Now() + 50 * kMilli);
}

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

}  // namespace

Expected<Volume> BuildLayoutForServing(RealEngine& engine, const LayoutSpec& layout,
                                       const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);  // an error shows when a file is made there
  BuildOptions bo;
  bo.temp_dir = dir;
  bo.keep_files = true;
  return BuildVolume(engine, layout, bo);
}

void DrainAndCommit(BlockDevice& top, CacheTarget& cache,
                    std::function<void(std::uint64_t)> progress, std::function<void(Status)> done) {
  cache.Drain(std::move(progress), [&top, done = std::move(done)](Status st) {
    IoRequest f;
    f.op = IoOp::kFlush;
    top.Submit(f, [done, st](Status) { done(st); });
  });
}

StopResult DrainAndFlush(RealEngine& engine, BlockDevice& top, CacheTarget* cache,
                         std::function<void(std::uint64_t)> progress) {
  StopResult r;
  if (cache != nullptr) {
    bool done = false;
    cache->Drain(std::move(progress), [&](Status s) {
      r.destage = s;
      done = true;
    });
    RunUntilSet(engine, done);
  }
  bool flushed = false;
  IoRequest f;
  f.op = IoOp::kFlush;
  top.Submit(f, [&](Status st) {
    r.flush = st;
    flushed = true;
  });
  RunUntilSet(engine, flushed);
  return r;
}

StopResult StopServing(RealEngine& engine, BlockDevice& top, CacheTarget* cache, bool drain) {
  // Let requests still in flight finish, then make everything durable.
  bool idle = false;
  while (!idle) {
    engine.RunUntil(engine.Now() + 10 * kMilli);
    idle = top.in_flight() == 0;
  }
  return DrainAndFlush(engine, top, drain ? cache : nullptr, nullptr);
}

Expected<void> FlushServedVolume(const VolumeInfo& info, int pid, double stall_timeout,
                                 const ServedFlushHooks& hooks) {
  using Clock = std::chrono::steady_clock;
  auto before = ReadServeStatus(info, pid);
  const std::uint64_t start = before ? before->value("drains_completed", 0ull) : 0;
  if (!before && hooks.opening) hooks.opening();
  if (::kill(pid, SIGUSR1) != 0) {
    return MakeError("cannot signal the server (pid " + std::to_string(pid) + ")", ErrorKind::kIo);
  }
  std::uint64_t seq = before ? before->value("status_seq", 0ull) : 0;
  ProcessSample last = SampleProcess(pid);
  Clock::time_point last_change = Clock::now();
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (VolumeServerPid(info) != pid) {
      return MakeError("the server exited during the flush", ErrorKind::kIo);
    }
    auto j = ReadServeStatus(info, pid);
    bool moved = false;
    if (j) {
      if (j->contains("cache") && hooks.progress) {
        hooks.progress((*j)["cache"].value("dirty_bytes", 0ull));
      }
      if (j->value("drains_completed", 0ull) > start) return {};
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
      return MakeError(what, ErrorKind::kIo);
    }
  }
}

}  // namespace tierlab
