#pragma once
// fio's completion latencies per I/O priority (its clat_prio statistics),
// for a job with per-I/O priorities (cmdprio_percentage, cmdprio_bssplit;
// bench/workload/IoPriority.h): per direction, a histogram for each
// priority its I/Os can have, in fio's order (the job's own first).
//
// Not thread-safe: the run's engine thread.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <utility>
#include <vector>

#include "bench/lab/LatencyHistogram.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

class PrioLatencies {
 public:
  // The priorities of a direction (0 reads, 1 writes), in fio's order.
  void Declare(int dir, const std::vector<std::uint32_t>& values);
  // An I/O of that direction and priority completed after `clat`; a
  // priority not declared is added at the end.
  void Record(int dir, std::uint32_t ioprio, Nanos clat);
  // Empties the histograms (the figures start again).
  void Clear();
  // fio's "prios" array of a direction: {"prioclass", "prio", "priohint",
  // "clat_ns"} for each priority with completions; null unless two or more
  // have some, as fio prints it.
  nlohmann::json Json(int dir) const;

 private:
  std::vector<std::pair<std::uint32_t, LatencyHistogram>> dirs_[2];
};

}  // namespace tierlab
