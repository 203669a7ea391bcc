#pragma once
// fio's steady-state detection (its steadystate.c), over a section's
// samples: every ss_interval the runner adds the section's IOPS, bandwidth
// (bytes/s) and mean completion latency (ns) over that interval, once the
// interval after ss_ramp has begun. When the last ss_dur / ss_interval
// samples meet the criterion, the section has attained steady state and its
// jobs stop, as fio stops them.
//
// Criteria (fio's `ss`): on IOPS, bandwidth or latency, either the largest
// distance of a sample from the window's mean (`iops`, `bw`, `lat`) or the
// least-squares slope per interval (`iops_slope`...) must be below the
// limit; with `%` the limit is a share of the window's mean. Attained when
// the criterion is strictly below it, as fio's check.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench/workload/Profile.h"

namespace tierlab {

class SteadyState {
 public:
  // The profile's ss_* options; ss_dur 0 (no steady-state check) is allowed.
  explicit SteadyState(const SteadyStateSpec& spec);

  bool enabled() const { return window_ > 0; }
  // Adds an interval's sample; true once the criterion holds (then stays).
  bool Add(std::uint64_t iops, std::uint64_t bw, std::uint64_t lat_ns);
  bool attained() const { return attained_; }
  std::size_t window() const { return window_; }

  // fio's jobs[].steadystate object: ss, duration, attained, criterion,
  // max_deviation, slope, and data (the window's samples in time order,
  // zeros where none was taken, and their means, as fio prints them).
  nlohmann::json Json() const;

 private:
  std::uint64_t Value(std::size_t i) const;  // the criterion's metric, i-th of the window

  SteadyStateSpec spec_;
  std::size_t window_ = 0;
  // The last window_ samples, oldest first.
  std::vector<std::uint64_t> iops_, bw_, lat_;
  bool attained_ = false;
  double criterion_ = 0, deviation_ = 0, slope_ = 0;
};

}  // namespace tierlab
