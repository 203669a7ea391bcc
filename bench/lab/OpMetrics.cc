#include "bench/lab/OpMetrics.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tierlab {

void OpStats::Merge(const OpStats& other) {
  ops += other.ops;
  bytes += other.bytes;
  errors += other.errors;
  lat.Merge(other.lat);
}

double OpStats::Iops(Nanos window) const {
  return window > 0 ? static_cast<double>(ops) * kSecond / static_cast<double>(window) : 0.0;
}

double OpStats::BandwidthBytesPerSec(Nanos window) const {
  return window > 0 ? static_cast<double>(bytes) * kSecond / static_cast<double>(window) : 0.0;
}

OpStats OpMetrics::complete() const {
  OpStats c = read_;
  c.Merge(write_);
  c.Merge(other_);
  return c;
}

void OpMetrics::Merge(const OpMetrics& other) {
  const bool mine_empty = window() == 0, theirs_empty = other.window() == 0;
  read_.Merge(other.read_);
  write_.Merge(other.write_);
  other_.Merge(other.other_);
  if (mine_empty) {
    start_ = other.start_, end_ = other.end_;
  } else if (!theirs_empty) {
    start_ = std::min(start_, other.start_);
    end_ = std::max(end_, other.end_);
  }
}

void OpMetrics::Reset() {
  read_ = OpStats{};
  write_ = OpStats{};
  other_ = OpStats{};
  start_ = end_ = 0;
}

nlohmann::json LatencyToFioJson(const LatencyHistogram& h) {
  std::array<std::uint64_t, kFioPercentiles.size()> values{};
  h.Percentiles(kFioPercentiles, values);
  nlohmann::json pct = nlohmann::json::object();
  for (std::size_t i = 0; i < kFioPercentiles.size(); ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", kFioPercentiles[i]);
    pct[key] = values[i];
  }
  return {{"min", h.Min()},       {"max", h.Max()}, {"mean", h.Mean()},
          {"stddev", h.Stddev()}, {"N", h.Count()}, {"percentile", std::move(pct)}};
}

nlohmann::json OpMetrics::ToJson() const {
  auto one = [&](const OpStats& s) {
    return nlohmann::json{
        {"io_bytes", s.bytes},      {"total_ios", s.ops},
        {"errors", s.errors},       {"bw_bytes", s.BandwidthBytesPerSec(window())},
        {"iops", s.Iops(window())}, {"lat_ns", LatencyToFioJson(s.lat)}};
  };
  return {{"read", one(read_)},
          {"write", one(write_)},
          {"complete", one(complete())},
          {"window_ns", window()}};
}

}  // namespace tierlab
