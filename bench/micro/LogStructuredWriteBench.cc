// Random 4 KiB writes per HDD (issue 21 item 5): a log-structured volume
// (LogStructuredTarget: NVRAM log, segments written as full stripes) against
// in-place RAID-6 on the same simulated disks, in simulated time.
//
// Disks: 8 x hdd-7200 models (timing-only) of 1 GiB each -- the preset's
// mechanics over a small capacity (ModelOptions: full stroke and zone range
// kept), so a run fills and overwrites the log in seconds of CPU -- as RAID-6
// 6 + 2 with 64 KiB chunks (384 KiB stripes). The log's NVRAM is the "ram"
// preset (a DRAM-backed device, NVDIMM-class: microseconds, never the
// bottleneck here). Segments of 4.5 MiB (12 stripes), volume 80% of the
// segment slots, the cleaner keeping 5% of them free (the defaults).
//
// Phases for the log: "fresh" is the first pass over an empty log (no
// cleaning: every segment slot is free); "steady" follows five full
// overwrites of the volume at random, so the cleaner runs as it would at
// steady state. RAID-6 in place has no such phases. Closed loop at QD 64
// of uniform random 4 KiB writes over the whole volume.
//
// Run:
//   build/bench/micro/LogStructuredWriteBench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "tiering/core/SimEngine.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/targets/LogStructuredTarget.h"
#include "tiering/targets/ParityTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr int kDisks = 8;
constexpr std::uint64_t kDiskBytes = 1024 * kMiB;
constexpr std::uint32_t kDepth = 64;

std::unique_ptr<ParityTarget> Raid6(Engine& e) {
  const DevicePreset hdd = FindPreset("hdd-7200").value();
  std::vector<std::unique_ptr<BlockDevice>> disks;
  for (int i = 0; i < kDisks; ++i) {
    ModelOptions o;
    o.capacity = kDiskBytes;
    o.seed = static_cast<std::uint64_t>(i + 1);
    disks.push_back(MakeModelDevice(e, hdd, "hdd" + std::to_string(i), o));
  }
  return std::make_unique<ParityTarget>(e, "raid6", std::move(disks), 2, 64 * kKiB);
}

struct Window {
  std::uint64_t writes = 0;
  Nanos elapsed = 0;
};

// Closed loop of `writes` 4 KiB writes over `dev`, kDepth in flight: at
// random, or (`sequential`) block 0, 1, 2, ... in order.
Window Drive(SimEngine& e, BlockDevice& dev, std::uint64_t writes, std::mt19937_64& rng,
             bool sequential) {
  const std::uint64_t blocks = dev.Size() / 4096;
  std::uint64_t issued = 0;
  std::function<void()> next = [&] {
    if (issued >= writes) return;
    const std::uint64_t b = sequential ? issued % blocks : rng() % blocks;
    ++issued;
    dev.Submit({IoOp::kWrite, 0, b * 4096, 4096, nullptr}, [&](Status) { next(); });
  };
  const Nanos start = e.Now();
  for (std::uint32_t i = 0; i < kDepth; ++i) next();
  e.Run();
  return {writes, e.Now() - start};
}

void Report(benchmark::State& state, const Window& w) {
  const double iops = static_cast<double>(w.writes) / (static_cast<double>(w.elapsed) / 1e9);
  state.counters["sim_iops"] = iops;
  state.counters["iops_per_hdd"] = iops / kDisks;
}

DeviceStats DiskSum(const BlockDevice& array) {
  DeviceStats sum;
  for (BlockDevice* d : array.Children()) sum.Add(d->stats());
  return sum;
}

// The disks over the window: busy share, MB/s and KiB per request, each disk's mean.
void ReportDisks(benchmark::State& state, const BlockDevice& array, const DeviceStats& before,
                 const Window& w) {
  const DeviceStats after = DiskSum(array);
  const double bytes = static_cast<double>(after.read_bytes + after.write_bytes -
                                           before.read_bytes - before.write_bytes);
  const double ops =
      static_cast<double>(after.read_ops + after.write_ops - before.read_ops - before.write_ops);
  const double secs = static_cast<double>(w.elapsed) / 1e9;
  state.counters["disk_busy"] =
      static_cast<double>(after.busy_ns - before.busy_ns) / kDisks / static_cast<double>(w.elapsed);
  state.counters["disk_MBps"] = bytes / kDisks / secs / 1e6;
  state.counters["disk_KiB_per_op"] = bytes / ops / 1024;
}

void BM_Raid6InPlace(benchmark::State& state) {
  for (auto _ : state) {
    SimEngine e;
    auto raid = Raid6(e);
    std::mt19937_64 rng(1);
    const Window w = Drive(e, *raid, 20'000, rng, false);
    Report(state, w);
    ReportDisks(state, *raid, DeviceStats{}, w);
    const ParityStats& p = raid->parity_stats();
    state.counters["rmw_share"] =
        static_cast<double>(p.rmw_writes) /
        static_cast<double>(p.rmw_writes + p.reconstruct_writes + p.full_stripe_writes);
  }
}

void BM_LogStructured(benchmark::State& state) {
  const bool steady = state.range(0) == 1;
  for (auto _ : state) {
    SimEngine e;
    LogStructuredOptions o;  // the defaults: 4.5 MiB, 80% usable, cleaner from 95%
    ModelOptions nv;
    nv.capacity = 256 * kMiB;
    LogStructuredTarget log(e, "log", MakeModelDevice(e, FindPreset("ram").value(), "nvram", nv),
                            Raid6(e), o);
    if (!log.config_error().empty()) {
      state.SkipWithError(log.config_error().c_str());
      return;
    }
    std::mt19937_64 rng(1);
    const std::uint64_t blocks = log.Size() / 4096;
    if (steady) {
      Drive(e, log, blocks, rng, true);       // fill
      Drive(e, log, 5 * blocks, rng, false);  // overwrite 5 times at random
    }
    const LogStructuredStats before = log.log_stats();
    const DeviceStats disks_before = DiskSum(log.capacity());
    // Fresh: half the volume, all of it before the cleaner has to start.
    const Window w = Drive(e, log, blocks / 2, rng, false);
    const LogStructuredStats after = log.log_stats();
    Report(state, w);
    const double user = static_cast<double>(after.user_bytes_written - before.user_bytes_written);
    state.counters["write_amp"] =
        static_cast<double>(after.segment_bytes_written - before.segment_bytes_written) / user;
    state.counters["cleaner_read_per_write"] =
        static_cast<double>(after.cleaner_bytes_read - before.cleaner_bytes_read) / user;
    state.counters["segments_cleaned"] =
        static_cast<double>(after.segments_cleaned - before.segments_cleaned);
    state.counters["volume_GiB"] = static_cast<double>(log.Size()) / (1024.0 * kMiB);
    state.counters["index_B_per_block"] = log.IndexBytesPerBlock();
    ReportDisks(state, log.capacity(), disks_before, w);
  }
}

BENCHMARK(BM_Raid6InPlace)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LogStructured)
    ->ArgName("steady")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tierlab

BENCHMARK_MAIN();
