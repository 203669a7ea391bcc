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
//
// tierlab's `snia` criterion is the SNIA Solid State Storage Performance
// Test Specification's (PTS 2.0, section 3): over a window of rounds (PTS:
// five), the range of the per-round IOPS is at most 20 % of their mean, and
// the least-squares line's excursion across the window (|slope| x (rounds -
// 1)) at most 10 % of it. Rounds may be shorter than a second (simulated
// time is cheap to sample). Its attainment ends the ramp, not the job, and
// the rounds go on being checked during the measured window: when the
// criterion stops holding there (a write cache that has filled), the job has
// left steady state, and Json() says at which round.

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
  // Adds an interval's sample, taken `at` (the end of its interval, from
  // the start of the section's jobs; for the snia times in Json()); true
  // once the criterion holds (then stays). snia: `absorbing` says the
  // stack knows the interval was not steady (a write cache taking writes
  // faster than it drains them: it will fill, and its rounds can look
  // steady until it does), so the criterion cannot first hold on it.
  bool Add(std::uint64_t iops, std::uint64_t bw, std::uint64_t lat_ns, Nanos at = 0,
           bool absorbing = false);
  bool attained() const { return attained_; }
  std::size_t window() const { return window_; }
  // snia: the sample (1-based) whose window first met the criterion, and
  // the first one after it whose window did not; 0: none.
  std::uint64_t attained_sample() const { return attained_sample_; }
  std::uint64_t left_sample() const { return left_sample_; }

  // fio's jobs[].steadystate object: ss, duration, attained, criterion,
  // max_deviation, slope, and data (the window's samples in time order,
  // zeros where none was taken, and their means, as fio prints them).
  nlohmann::json Json() const;

 private:
  std::uint64_t Value(std::size_t i) const;  // the criterion's metric, i-th of the window
  // Least-squares slope of the window's values per sample.
  double Slope(double sum_y, double sum_xy) const;
  bool SniaHolds(double mean);

  SteadyStateSpec spec_;
  std::size_t window_ = 0;
  // The last window_ samples, oldest first.
  std::vector<std::uint64_t> iops_, bw_, lat_;
  bool attained_ = false;
  double criterion_ = 0, deviation_ = 0, slope_ = 0;
  double excursion_ = 0;  // snia: % of the mean (criterion_ is the range's %)
  std::uint64_t samples_ = 0;
  std::uint64_t attained_sample_ = 0, left_sample_ = 0;
  Nanos attained_at_ = 0, left_at_ = 0;
};

}  // namespace tierlab
