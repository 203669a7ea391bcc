#include "bench/lab/SteadyState.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tierlab {

SteadyState::SteadyState(const SteadyStateSpec& spec) : spec_(spec) {
  if (spec.snia && spec.dur > 0 && spec.interval > 0) {
    window_ = static_cast<std::size_t>(spec.dur / spec.interval);
  } else if (spec.dur > 0 && spec.interval >= kSecond) {
    // fio: whole seconds of window over whole seconds of interval.
    window_ = static_cast<std::size_t>((spec.dur / kSecond) / (spec.interval / kSecond));
  }
}

std::uint64_t SteadyState::Value(std::size_t i) const {
  switch (spec_.metric) {
    case SteadyStateSpec::Metric::kIops: return iops_[i];
    case SteadyStateSpec::Metric::kBw: return bw_[i];
    case SteadyStateSpec::Metric::kLat: break;
  }
  return lat_[i];
}

double SteadyState::Slope(double sum_y, double sum_xy) const {
  // Least squares over x = 0..n-1 (fio takes the samples as evenly spaced).
  const auto n = static_cast<double>(window_);
  const double sum_x = n * (n - 1) / 2;
  const double sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;
  return (sum_xy - sum_x * sum_y / n) / (sum_x_sq - sum_x * sum_x / n);
}

bool SteadyState::SniaHolds(double mean) {
  double lo = static_cast<double>(Value(0)), hi = lo;
  for (std::size_t i = 1; i < window_; ++i) {
    lo = std::min(lo, static_cast<double>(Value(i)));
    hi = std::max(hi, static_cast<double>(Value(i)));
  }
  const double excursion = std::fabs(slope_) * static_cast<double>(window_ - 1);
  criterion_ = mean > 0 ? 100.0 * (hi - lo) / mean : 0;
  excursion_ = mean > 0 ? 100.0 * excursion / mean : 0;
  return mean > 0 && hi - lo <= 0.2 * mean && excursion <= 0.1 * mean;
}

bool SteadyState::Add(std::uint64_t iops, std::uint64_t bw, std::uint64_t lat_ns, Nanos at,
                      bool absorbing) {
  if (window_ < 2 || (attained_ && !spec_.snia)) return attained_;
  ++samples_;
  iops_.push_back(iops);
  bw_.push_back(bw);
  lat_.push_back(lat_ns);
  if (iops_.size() > window_) {
    iops_.erase(iops_.begin());
    bw_.erase(bw_.begin());
    lat_.erase(lat_.begin());
  }
  if (iops_.size() < window_) return false;
  const auto n = static_cast<double>(window_);
  double sum_y = 0;
  double sum_xy = 0;
  for (std::size_t i = 0; i < window_; ++i) {
    sum_y += static_cast<double>(Value(i));
    sum_xy += static_cast<double>(i) * static_cast<double>(Value(i));
  }
  const double mean = sum_y / n;
  deviation_ = 0;
  for (std::size_t i = 0; i < window_; ++i) {
    deviation_ = std::max(deviation_, std::fabs(static_cast<double>(Value(i)) - mean));
  }
  if (spec_.snia) {
    if (left_sample_ != 0) return attained_;  // the samples of the first departure are kept
    slope_ = Slope(sum_y, sum_xy);
    const bool holds = SniaHolds(mean);
    if (holds && !attained_ && !absorbing) {
      attained_ = true;
      attained_sample_ = samples_;
      attained_at_ = at;
    } else if (!holds && attained_) {
      left_sample_ = samples_;
      left_at_ = at;
    }
    return attained_;
  }
  if (spec_.slope) {
    slope_ = Slope(sum_y, sum_xy);
    criterion_ = spec_.percent ? 100.0 * slope_ / mean : slope_;
    attained_ = std::fabs(criterion_) < spec_.limit;
  } else {
    criterion_ = spec_.percent ? 100.0 * deviation_ / mean : deviation_;
    attained_ = criterion_ < spec_.limit;
  }
  return attained_;
}

nlohmann::json SteadyState::Json() const {
  using M = SteadyStateSpec::Metric;
  const char* metric = spec_.metric == M::kIops ? "iops" : spec_.metric == M::kBw ? "bw" : "lat";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%s:%f%s", metric, spec_.slope ? "_slope" : "", spec_.limit,
                spec_.percent ? "%" : "");
  nlohmann::json j;
  j["ss"] = spec_.snia ? "snia" : buf;
  j["duration"] = spec_.dur / kSecond;
  if (spec_.snia) {
    // The window in seconds (rounds may be shorter), how far each of the
    // two conditions was from its limit, and when the criterion was met
    // and left (seconds from the start of the section's jobs, at the end of
    // the round that decided it; 0: never).
    j["duration"] = static_cast<double>(spec_.dur) / kSecond;
    j["rounds"] = window_;
    j["range_pct"] = criterion_;
    j["excursion_pct"] = excursion_;
    j["attained_at_s"] = static_cast<double>(attained_at_) / kSecond;
    j["left_at_s"] = static_cast<double>(left_at_) / kSecond;
  }
  j["attained"] = attained_ ? 1 : 0;
  std::snprintf(buf, sizeof buf, "%f%s", criterion_, spec_.percent ? "%" : "");
  j["criterion"] = buf;
  j["max_deviation"] = deviation_;
  j["slope"] = slope_;
  // fio prints the whole window, zeros where no sample was taken, and
  // means over the window.
  auto padded = [&](const std::vector<std::uint64_t>& v, std::uint64_t* mean) {
    std::vector<std::uint64_t> out = v;
    out.resize(window_, 0);
    std::uint64_t sum = 0;
    for (auto x : out) sum += x;
    *mean = window_ > 0 ? sum / window_ : 0;
    return out;
  };
  std::uint64_t bw_mean = 0, iops_mean = 0, lat_mean = 0;
  nlohmann::json data;
  const auto bw = padded(bw_, &bw_mean);
  const auto iops = padded(iops_, &iops_mean);
  data["bw_mean"] = bw_mean;
  data["iops_mean"] = iops_mean;
  if (spec_.metric == M::kLat) {
    const auto lat = padded(lat_, &lat_mean);
    data["lat_mean"] = lat_mean;
    data["lat_ns"] = lat;
  }
  data["iops"] = iops;
  data["bw"] = bw;
  j["data"] = std::move(data);
  return j;
}

}  // namespace tierlab
