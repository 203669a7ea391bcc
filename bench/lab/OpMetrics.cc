#include "bench/lab/OpMetrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/analysis/BatchMeans.h"
#include "bench/lab/CiFormat.h"

namespace tierlab {

void OpStats::Merge(const OpStats& other) {
  ops += other.ops;
  bytes += other.bytes;
  errors += other.errors;
  lat.Merge(other.lat);
  clat.Merge(other.clat);
  bins.Merge(other.bins);
  for (std::size_t i = 0; i < other.sample_ops.size(); ++i) {
    if (i >= sample_ops.size()) {
      sample_ops.resize(i + 1);
      sample_bytes.resize(i + 1);
    }
    sample_ops[i] += other.sample_ops[i];
    sample_bytes[i] += other.sample_bytes[i];
  }
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
  c.Merge(trim_);
  c.Merge(sync_);
  return c;
}

void OpMetrics::Merge(const OpMetrics& other) {
  const bool mine_empty = window() == 0, theirs_empty = other.window() == 0;
  read_.Merge(other.read_);
  write_.Merge(other.write_);
  trim_.Merge(other.trim_);
  sync_.Merge(other.sync_);
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
  trim_ = OpStats{};
  sync_ = OpStats{};
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

namespace {

struct SampleStats {
  double min = 0, max = 0, mean = 0, dev = 0;
  std::size_t n = 0;
};

// fio's sample statistics: mean and the (n - 1) standard deviation.
SampleStats Summarise(const std::vector<double>& v) {
  SampleStats s;
  s.n = v.size();
  if (v.empty()) return s;
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() > 1) {
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.dev = std::sqrt(sq / static_cast<double>(v.size() - 1));
  }
  return s;
}

nlohmann::json Summary(const LatencyHistogram& h) {
  return {{"min", h.Min()},
          {"max", h.Max()},
          {"mean", h.Mean()},
          {"stddev", h.Stddev()},
          {"N", h.Count()}};
}

// Batch means over the window's bins: the intervals around the window's own
// figures (IOPS and bandwidth over the whole window, the histogram's mean
// latency), added to the direction's object `out`.
void AddBatchMeansCi(const OpStats& s, Nanos window, nlohmann::json& out) {
  const TimeBins::Series series = s.bins.Over(window);
  std::vector<double> ops, bytes, lat;
  for (const TimeBins::Bin& b : series.bins) {
    ops.push_back(static_cast<double>(b.ops));
    bytes.push_back(static_cast<double>(b.bytes));
    lat.push_back(static_cast<double>(b.lat_ns));
  }
  const BatchPlan plan = s.ops > 0 ? PlanBatches(ops) : BatchPlan{};
  const std::vector<double> batch_ops = BatchSums(ops, plan);
  const std::vector<double> batch_bytes = BatchSums(bytes, plan);
  const std::vector<double> batch_lat = BatchSums(lat, plan);
  const double batch_s = static_cast<double>(plan.bins_per_batch) *
                         static_cast<double>(series.width) / static_cast<double>(kSecond);
  std::vector<double> iops, bw, mean_lat;
  for (std::size_t i = 0; i < plan.batches; ++i) {
    iops.push_back(batch_ops[i] / batch_s);
    bw.push_back(batch_bytes[i] / batch_s);
    if (batch_ops[i] > 0) mean_lat.push_back(batch_lat[i] / batch_ops[i]);
  }
  const std::string_view m = kCiBatchMeans;
  out["iops_ci95"] = CiToJson(IntervalAround(s.Iops(window), iops), m);
  out["bw_bytes_ci95"] = CiToJson(IntervalAround(s.BandwidthBytesPerSec(window), bw), m);
  out["lat_ns"]["mean_ci95"] = CiToJson(IntervalAround(s.lat.Mean(), mean_lat), m);
  out["ci95_batches"] = {{"batches", plan.batches},
                         {"batch_ns", static_cast<Nanos>(plan.bins_per_batch) * series.width},
                         {"lag1", plan.lag1}};
}

}  // namespace

nlohmann::json OpMetrics::ToJson() const {
  const Nanos w = window();
  // Full sample intervals inside the window; a window shorter than one is
  // its own sample.
  const std::size_t full =
      static_cast<std::size_t>(std::max<Nanos>(0, end_ - origin_) / kFioSampleInterval);
  auto one = [&](const OpStats& s) {
    std::vector<double> bw, iops;
    const double per_s = static_cast<double>(kSecond) / static_cast<double>(kFioSampleInterval);
    for (std::size_t i = 0; i < full; ++i) {
      const std::uint64_t ops = i < s.sample_ops.size() ? s.sample_ops[i] : 0;
      const std::uint64_t bytes = i < s.sample_bytes.size() ? s.sample_bytes[i] : 0;
      bw.push_back(static_cast<double>(bytes) / 1024.0 * per_s);
      iops.push_back(static_cast<double>(ops) * per_s);
    }
    if (full == 0 && w > 0 && s.ops > 0) {
      bw.push_back(s.BandwidthBytesPerSec(w) / 1024.0);
      iops.push_back(s.Iops(w));
    }
    const SampleStats b = Summarise(bw), io = Summarise(iops);
    nlohmann::json clat = LatencyToFioJson(s.clat.Count() > 0 ? s.clat : s.lat);
    LatencyHistogram none;
    const double bw_bytes = s.BandwidthBytesPerSec(w);
    nlohmann::json out{{"io_bytes", s.bytes},
                       {"io_kbytes", s.bytes / 1024},
                       {"bw_bytes", bw_bytes},
                       {"bw", static_cast<std::uint64_t>(bw_bytes / 1024.0)},
                       {"iops", s.Iops(w)},
                       {"runtime", s.ops > 0 ? w / kMilli : 0},
                       {"total_ios", s.ops},
                       {"short_ios", 0},
                       {"drop_ios", 0},
                       {"errors", s.errors},
                       {"slat_ns", Summary(none)},
                       {"clat_ns", std::move(clat)},
                       {"lat_ns", LatencyToFioJson(s.lat)},
                       {"bw_min", static_cast<std::uint64_t>(b.min)},
                       {"bw_max", static_cast<std::uint64_t>(b.max)},
                       {"bw_agg", s.ops > 0 ? 100.0 : 0.0},
                       {"bw_mean", b.mean},
                       {"bw_dev", b.dev},
                       {"bw_samples", b.n},
                       {"iops_min", static_cast<std::uint64_t>(io.min)},
                       {"iops_max", static_cast<std::uint64_t>(io.max)},
                       {"iops_mean", io.mean},
                       {"iops_stddev", io.dev},
                       {"iops_samples", io.n}};
    AddBatchMeansCi(s, std::max<Nanos>(0, end_ - origin_), out);
    return out;
  };
  return {{"read", one(read_)},
          {"write", one(write_)},
          {"trim", one(trim_)},
          {"sync", {{"total_ios", sync_.ops}, {"lat_ns", LatencyToFioJson(sync_.lat)}}},
          {"complete", one(complete())},
          {"window_ns", w}};
}

}  // namespace tierlab
