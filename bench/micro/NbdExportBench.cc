// The NBD export against nbdkit, with the same fio job against each: 4k
// random 50/50 read/write at QD16 over one connection (fio --ioengine=nbd).
// Target: tierlab's IOPS >= nbdkit's (ratio >= 1.0). Figures:
// docs/PERFORMANCE.md, "NBD export vs nbdkit"; bench/nbd_vs_nbdkit.sh runs it.
//
// Two pairs:
//   Ram:  tierlab RamDevice            vs  nbdkit memory plugin
//   File: tierlab FileDevice on a file vs  nbdkit file plugin, same file,
//         in /dev/shm (tmpfs: the page cache, no disk; O_DIRECT is refused
//         there, so both sides do buffered I/O)
// The tierlab server runs on a RealEngine in a thread of this process; fio
// and nbdkit are subprocesses. Both servers listen on Unix sockets.
//
// Environment:
//   TIERLAB_NBD_BENCH_SECONDS  fio runtime per side and round (default 10)
//   TIERLAB_NBD_BENCH_ROUNDS   rounds; the sides alternate (default 2)
//   TIERLAB_NBD_BENCH_SIZE_MB  export size (default 1024)
//   TIERLAB_NBD_BENCH_DIR      where the file pair lives (default /dev/shm)
// Counters: tierlab_iops, nbdkit_iops (means over the rounds), ratio, and
// each server's CPU time per I/O (tierlab: its engine thread; nbdkit: the
// whole process, all threads).
//
// Also: `NbdExportBench --serve=unix:PATH [--seconds=N]` only serves a RAM
// export (name "") for N seconds (default 60), for trying clients by hand.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/nbd/NbdServer.h"

namespace tierlab {
namespace {

int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : def;
}
std::string EnvStr(const char* name, const char* def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : def;
}

double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string TempDir() {
  std::string t = EnvStr("TMPDIR", "/tmp") + "/tierlab-nbdbench-XXXXXX";
  if (::mkdtemp(t.data()) == nullptr) return "";
  return t;
}

// Runs `cmd` (through sh) and returns its stdout.
std::string Capture(const std::string& cmd, int* exit_code) {
  std::string out;
  FILE* f = ::popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = ::pclose(f);
  *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

struct FioResult {
  double iops = -1;  // read + write
  double ios = 0;    // completed I/Os
};

// The fio job; iops < 0 on failure.
FioResult RunFio(const std::string& uri, int seconds, std::uint64_t size_mb, std::string* err) {
  FioResult res;
  const std::string cmd = "fio --name=nbdbench --ioengine=nbd --uri='" + uri +
                          "' --rw=randrw --rwmixread=50 --bs=4k --iodepth=16 --numjobs=1"
                          " --size=" +
                          std::to_string(size_mb) +
                          "m --time_based --runtime=" + std::to_string(seconds) +
                          " --output-format=json 2>/dev/null";
  int rc = -1;
  const std::string out = Capture(cmd, &rc);
  if (rc != 0) {
    *err = "fio failed (exit " + std::to_string(rc) + ")";
    return res;
  }
  // The nbd engine prints "fio: connected to NBD server" before the JSON.
  const auto brace = out.find('{');
  const auto j = nlohmann::json::parse(
      brace == std::string::npos ? std::string() : out.substr(brace), nullptr, false);
  if (j.is_discarded() || !j.contains("jobs") || j["jobs"].empty()) {
    *err = "fio output is not JSON";
    return res;
  }
  const auto& job = j["jobs"][0];
  if (job.value("error", 0) != 0) {
    *err = "fio job error " + std::to_string(job.value("error", 0));
    return res;
  }
  res.iops = job["read"].value("iops", 0.0) + job["write"].value("iops", 0.0);
  res.ios = job["read"].value("total_ios", 0.0) + job["write"].value("total_ios", 0.0);
  return res;
}

// A tierlab export served from a background engine thread.
class TierlabExport {
 public:
  // `make_device` runs here, before the loop thread starts.
  template <typename MakeDevice>
  bool Start(const std::string& socket, MakeDevice make_device, std::string* err) {
    device_ = make_device(engine_, err);
    if (!device_) return false;
    auto s = NbdServer::Listen(engine_, *device_, "unix:" + socket, "");
    if (!s) {
      *err = s.error().message;
      return false;
    }
    server_ = std::move(s.value());
    loop_ = std::thread([this] {
      const double start = ThreadCpuSeconds();
      engine_.Run();
      cpu_seconds_ = ThreadCpuSeconds() - start;
    });
    return true;
  }
  // Stops the loop; returns the CPU seconds the server thread used.
  double Stop() {
    if (loop_.joinable()) {
      engine_.Wake();
      loop_.join();
    }
    return cpu_seconds_;
  }
  ~TierlabExport() {
    Stop();
    server_.reset();
    engine_.RunUntil(engine_.Now() + 200 * kMilli);  // let orphans complete
    device_.reset();
  }

 private:
  RealEngine engine_;
  std::unique_ptr<BlockDevice> device_;
  std::unique_ptr<NbdServer> server_;
  std::thread loop_;
  double cpu_seconds_ = 0;
};

// nbdkit in the foreground as a child; killed by the destructor.
class Nbdkit {
 public:
  bool Start(const std::string& socket, const std::vector<std::string>& plugin_args) {
    ::unlink(socket.c_str());  // a previous round's socket would look like readiness
    std::vector<std::string> args = {"nbdkit", "-f", "--exit-with-parent", "-U", socket};
    args.insert(args.end(), plugin_args.begin(), plugin_args.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      const int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) ::dup2(devnull, STDOUT_FILENO);
      ::execvp("nbdkit", argv.data());
      _exit(127);
    }
    for (int i = 0; i < 100; ++i) {  // up to 5 s for the socket to appear
      struct stat st {};
      if (::stat(socket.c_str(), &st) == 0) return true;
      int status;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // User + system CPU seconds of the nbdkit process so far (all threads).
  double CpuSeconds() const {
    std::ifstream f("/proc/" + std::to_string(pid_) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), {});
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos) return 0;
    std::istringstream in(stat.substr(paren + 2));
    std::string field;
    double utime = 0, stime = 0;
    for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 14, 15: utime, stime
      if (i == 14) utime = std::atof(field.c_str());
      if (i == 15) stime = std::atof(field.c_str());
    }
    return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  }
  ~Nbdkit() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }

 private:
  pid_t pid_ = -1;
};

struct Pair {
  double tierlab = -1, nbdkit = -1;
  // Server CPU time per I/O (user + system), a figure that depends less on
  // what else runs on the machine than IOPS do.
  double tierlab_cpu_us = 0, nbdkit_cpu_us = 0;
  std::string error;
};

template <typename MakeDevice>
Pair Compare(MakeDevice make_device, const std::vector<std::string>& nbdkit_args) {
  Pair p;
  const int seconds = EnvInt("TIERLAB_NBD_BENCH_SECONDS", 10);
  const int rounds = std::max(1, EnvInt("TIERLAB_NBD_BENCH_ROUNDS", 2));
  const auto size_mb = static_cast<std::uint64_t>(EnvInt("TIERLAB_NBD_BENCH_SIZE_MB", 1024));
  const std::string dir = TempDir();
  if (dir.empty()) {
    p.error = "mkdtemp failed";
    return p;
  }
  const std::string tsock = dir + "/tierlab.sock", ksock = dir + "/nbdkit.sock";
  // The servers alternate, so load from other processes spreads over both.
  double tsum = 0, ksum = 0, tcpu = 0, kcpu = 0, tios = 0, kios = 0;
  for (int r = 0; r < rounds && p.error.empty(); ++r) {
    {
      TierlabExport t;
      if (!t.Start(tsock, make_device, &p.error)) break;
      const FioResult f = RunFio("nbd+unix:///?socket=" + tsock, seconds, size_mb, &p.error);
      tcpu += t.Stop();
      if (f.iops <= 0) break;
      tsum += f.iops;
      tios += f.ios;
    }
    Nbdkit k;
    if (!k.Start(ksock, nbdkit_args)) {
      p.error = "nbdkit did not start";
      break;
    }
    const FioResult f = RunFio("nbd+unix:///?socket=" + ksock, seconds, size_mb, &p.error);
    kcpu += k.CpuSeconds();
    if (f.iops <= 0) break;
    ksum += f.iops;
    kios += f.ios;
  }
  if (p.error.empty()) {
    p.tierlab = tsum / rounds;
    p.nbdkit = ksum / rounds;
    p.tierlab_cpu_us = tios > 0 ? tcpu * 1e6 / tios : 0;
    p.nbdkit_cpu_us = kios > 0 ? kcpu * 1e6 / kios : 0;
  }
  std::remove(tsock.c_str());
  std::remove(ksock.c_str());
  ::rmdir(dir.c_str());
  return p;
}

void Report(benchmark::State& state, const Pair& p) {
  if (p.tierlab <= 0 || p.nbdkit <= 0) {
    state.SkipWithError(p.error.c_str());
    return;
  }
  state.counters["tierlab_iops"] = p.tierlab;
  state.counters["nbdkit_iops"] = p.nbdkit;
  state.counters["ratio"] = p.tierlab / p.nbdkit;
  state.counters["tierlab_cpu_us_per_io"] = p.tierlab_cpu_us;
  state.counters["nbdkit_cpu_us_per_io"] = p.nbdkit_cpu_us;
}

bool HaveTools() {
  int rc = -1;
  const std::string help = Capture("fio --enghelp 2>/dev/null", &rc);
  if (help.find("nbd") == std::string::npos) return false;
  Capture("nbdkit --version >/dev/null 2>&1", &rc);
  return rc == 0;
}

void BM_NbdRandRW4kQD16_Ram(benchmark::State& state) {
  if (!HaveTools()) {
    state.SkipWithError("needs fio with the nbd engine and nbdkit");
    return;
  }
  const std::uint64_t size = static_cast<std::uint64_t>(EnvInt("TIERLAB_NBD_BENCH_SIZE_MB", 1024))
                             << 20;
  Pair p;
  for (auto _ : state) {
    p = Compare(
        [size](RealEngine& e, std::string*) -> std::unique_ptr<BlockDevice> {
          return std::make_unique<RamDevice>(e, "ram", size, 512);
        },
        {"memory", std::to_string(size)});
  }
  Report(state, p);
}

void BM_NbdRandRW4kQD16_File(benchmark::State& state) {
  if (!HaveTools()) {
    state.SkipWithError("needs fio with the nbd engine and nbdkit");
    return;
  }
  const std::uint64_t size = static_cast<std::uint64_t>(EnvInt("TIERLAB_NBD_BENCH_SIZE_MB", 1024))
                             << 20;
  std::string path = EnvStr("TIERLAB_NBD_BENCH_DIR", "/dev/shm") + "/tierlab-nbdbench-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    state.SkipWithError("cannot create the backing file");
    return;
  }
  ::close(fd);
  Pair p;
  for (auto _ : state) {
    p = Compare(
        [&path](RealEngine& e, std::string* err) -> std::unique_ptr<BlockDevice> {
          FileDeviceOptions o;
          o.path = path;
          o.queue_depth = 64;
          auto d = FileDevice::Open(e, "file", o);
          if (!d) {
            *err = d.error().message;
            return nullptr;
          }
          return std::move(d.value());
        },
        {"file", path});
  }
  ::unlink(path.c_str());
  Report(state, p);
}

BENCHMARK(BM_NbdRandRW4kQD16_Ram)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_NbdRandRW4kQD16_File)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

int ServeOnly(const std::string& endpoint, int seconds) {
  RealEngine engine;
  RamDevice dev(engine, "ram", 1ull << 30, 512);
  auto s = NbdServer::Listen(engine, dev, endpoint, "");
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().message.c_str());
    return 2;
  }
  std::printf("serving %s for %d s\n", (*s)->endpoint().c_str(), seconds);
  std::fflush(stdout);
  engine.RunUntil(engine.Now() + seconds * kSecond);
  return 0;
}

}  // namespace
}  // namespace tierlab

int main(int argc, char** argv) {
  std::string serve;
  int seconds = 60;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.starts_with("--serve=")) {
      serve = a.substr(8);
    } else if (a.starts_with("--seconds=")) {
      seconds = std::atoi(a.c_str() + 10);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!serve.empty()) return tierlab::ServeOnly(serve, seconds);
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
