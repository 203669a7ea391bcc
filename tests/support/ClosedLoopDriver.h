#pragma once
// A small closed-loop load generator for model tests: keeps `queue_depth`
// requests in flight on one device until `total_ops` have completed, like fio
// with a fixed iodepth. Deterministic for a given seed (SplitMix64 offsets).
//
// Measurement: the first `warmup_ops` completions are excluded; IOPS and
// bandwidth are over the window from the last warm-up completion to the last
// completion, latency is the mean over measured requests.

#include <cstdint>
#include <functional>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/SimEngine.h"

namespace tierlab::testing {

struct ClosedLoopConfig {
  std::uint32_t queue_depth = 1;
  std::uint64_t block_size = 4096;
  double read_fraction = 1.0;  // 1 = all reads, 0 = all writes
  bool sequential = false;     // else uniform random, block-aligned
  std::uint64_t region_offset = 0;
  std::uint64_t region_bytes = 0;  // 0 = to the end of the device
  std::uint64_t total_ops = 10000;
  std::uint64_t warmup_ops = 0;
  std::uint64_t seed = 1;
  // Give each slot a data buffer (required by with-data devices).
  bool with_buffers = false;
  // Called after every submission (e.g. to sample a device's queue).
  std::function<void()> on_submit;
};

struct ClosedLoopResult {
  std::uint64_t ops = 0;  // measured completions
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;
  Nanos window_start = 0;
  Nanos window_end = 0;
  double mean_latency_ns = 0;
  std::vector<Nanos> completion_times;  // every completion, in order

  double seconds() const { return static_cast<double>(window_end - window_start) / 1e9; }
  double iops() const { return seconds() > 0 ? static_cast<double>(ops) / seconds() : 0; }
  double bytes_per_second() const {
    return seconds() > 0 ? static_cast<double>(bytes) / seconds() : 0;
  }
};

// Runs the engine until the load completes. The device must be idle.
ClosedLoopResult RunClosedLoop(SimEngine& engine, BlockDevice& device,
                               const ClosedLoopConfig& config);

}  // namespace tierlab::testing
