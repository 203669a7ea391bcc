// FileDevice 4k random reads or writes at a fixed queue depth on a
// RealEngine, through io_uring or libaio: the tierlab side of
// bench/real_vs_fio.sh (fio --direct=1 --rw=randread|randwrite --bs=4k
// --iodepth=QD --numjobs=JOBS, --ioengine=io_uring or libaio).
//
// Arguments: engine (0 = io_uring, 1 = libaio), write (0 = randread,
// 1 = randwrite), qd (per job), jobs. Jobs share one device and one engine
// thread, as a `tierlab run --real` job file's sections do; the device's
// queue depth is qd x jobs, so every job keeps qd requests in the kernel.
//
// Environment:
//   TIERLAB_BENCH_FILE     file or block device to read (laid out beforehand;
//                          a hole reads without touching the disk). Without
//                          it, a 256 MiB sparse temporary file is used, which
//                          measures the software path only.
//   TIERLAB_BENCH_SECONDS  run time per benchmark (default 2).
// Reported counter IOPS = completed reads / wall seconds.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"

namespace tierlab {
namespace {

constexpr std::uint32_t kBs = 4096;

struct Run {
  FileDevice* dev = nullptr;
  RealEngine* engine = nullptr;
  std::vector<AlignedBuffer> bufs;
  std::uint64_t blocks = 0;
  std::uint64_t rng = 0x9e3779b97f4a7c15ull;
  Nanos deadline = 0;
  std::uint64_t done = 0;
  std::uint64_t errors = 0;

  std::uint64_t NextBlock() {
    // xorshift64*: cheap, uniform enough for block picking.
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (rng * 0x2545f4914f6cdd1dull) % blocks;
  }

  IoOp op = IoOp::kRead;

  void Issue(std::size_t slot) {
    IoRequest r;
    r.op = op;
    r.offset = NextBlock() * kBs;
    r.length = kBs;
    r.data = bufs[slot].data();
    dev->Submit(r, [this, slot](Status s) {
      ++done;
      if (s != Status::kOk) ++errors;
      if (engine->Now() < deadline) Issue(slot);
    });
  }
};

std::string DefaultFile(bool* temporary) {
  if (const char* f = std::getenv("TIERLAB_BENCH_FILE"); f != nullptr && *f != '\0') {
    *temporary = false;
    return f;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/tierlab-filedev-bench-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd >= 0) {
    if (ftruncate(fd, 256 << 20) != 0) std::perror("ftruncate");
    close(fd);
  }
  *temporary = true;
  return path;
}

void BM_FileDevice4k(benchmark::State& state) {
  const FileEngine kind = state.range(0) == 0 ? FileEngine::kIoUring : FileEngine::kLibaio;
  const bool write = state.range(1) != 0;
  const auto qd = static_cast<std::uint32_t>(state.range(2) * state.range(3));
  double seconds = 2;
  if (const char* s = std::getenv("TIERLAB_BENCH_SECONDS")) seconds = std::atof(s);
  bool temporary = false;
  const std::string path = DefaultFile(&temporary);

  RealEngine engine;
  FileDeviceOptions o;
  o.path = path;
  o.queue_depth = qd;
  o.engine = kind;
  // The device's own choice unless this says otherwise (to compare).
  if (const char* b = std::getenv("TIERLAB_BENCH_SUBMIT_BATCH")) {
    o.submit_batch = static_cast<std::uint32_t>(std::atoi(b));
  }
  // This compares the kernel queues with fio's: keep them on /dev/shm too.
  o.map_memory_files = false;
  auto dev = FileDevice::Open(engine, "bench", o);
  if (!dev.ok()) {
    state.SkipWithError(dev.error().message.c_str());
    if (temporary) unlink(path.c_str());
    return;
  }
  Run run;
  run.dev = dev->get();
  run.engine = &engine;
  run.blocks = (*dev)->Size() / kBs;
  run.op = write ? IoOp::kWrite : IoOp::kRead;
  for (std::uint32_t i = 0; i < qd; ++i) {
    run.bufs.emplace_back(kBs);
    std::memset(run.bufs.back().data(), 0x5a, kBs);
  }

  for (auto _ : state) {
    const Nanos start = engine.Now();
    run.deadline = start + static_cast<Nanos>(seconds * kSecond);
    for (std::uint32_t i = 0; i < qd; ++i) run.Issue(i);
    engine.Run();
    const double elapsed = static_cast<double>(engine.Now() - start) / kSecond;
    state.SetIterationTime(elapsed);
    state.counters["IOPS"] = static_cast<double>(run.done) / elapsed;
  }
  state.counters["errors"] = static_cast<double>(run.errors);
  state.counters["ios_per_submit"] =
      static_cast<double>(run.done) / static_cast<double>((*dev)->submit_calls());
  // Loop turns and sleeps per I/O show how well completions are batched.
  state.counters["turns_per_io"] =
      static_cast<double>(engine.turns()) / static_cast<double>(run.done);
  state.counters["sleeps_per_io"] =
      static_cast<double>(engine.sleeps()) / static_cast<double>(run.done);
  state.counters["buffered"] = (*dev)->buffered() ? 1 : 0;
  state.counters["submit_batch"] = (*dev)->submit_batch();
  state.counters["io_uring"] = (*dev)->engine() == FileEngine::kIoUring ? 1 : 0;
  state.SetItemsProcessed(static_cast<std::int64_t>(run.done));
  if (run.errors > 0) state.SkipWithError("I/O errors");
  dev->reset();
  if (temporary) unlink(path.c_str());
}

BENCHMARK(BM_FileDevice4k)
    ->ArgNames({"engine", "write", "qd", "jobs"})
    ->ArgsProduct({{0, 1}, {0, 1}, {1, 32}, {1}})
    ->Args({0, 0, 32, 4})
    ->Args({1, 0, 32, 4})
    ->Args({0, 1, 32, 4})
    ->Args({1, 1, 32, 4})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
