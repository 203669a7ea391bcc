#include "bench/lab/HostCpuCalibration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <queue>
#include <utility>

namespace tierlab {

namespace {

constexpr std::uint32_t kQd = 32;
// Simulated time of the loop that tells the stalls' spread
// (StallsAloneLatency), and the most requests it runs (a million and a
// quarter at this host's 800 ns a request; the bound holds its time to a
// fraction of a second whatever the fitted cost).
constexpr Nanos kStallsAloneSpan = kSecond;
constexpr std::size_t kStallsAloneMaxRequests = std::size_t{1} << 21;
// A spread of speeds narrower than this (fastest over slowest, less 1) is
// taken for none.
constexpr double kLeastSpread = 0.02;

const ProbeResult* Find(const std::vector<ProbeResult>& probe, RwMode rw, std::uint64_t bs) {
  for (const ProbeResult& r : probe) {
    if (r.point.rw == rw && r.point.bs == bs && r.median.iops > 0) return &r;
  }
  return nullptr;
}

// Wall time per I/O at a point that saturates the thread.
double NsPerIo(const ProbeResult& r) {
  return 1e9 / r.median.iops;
}

// The speed of each tenth of the requests, slowest first, relative to the
// median's: at a saturated QD a request's latency is the time the work
// ahead of it takes, so its speed is as the inverse of its latency.
LatencyTenths SpeedsOfLatency(const LatencyTenths& lat) {
  const double median = (lat[kLatencyTenths / 2 - 1] + lat[kLatencyTenths / 2]) / 2;
  LatencyTenths speed{};
  for (std::size_t i = 0; i < kLatencyTenths; ++i) speed[i] = median / lat[kLatencyTenths - 1 - i];
  return speed;
}

// The latency tenths of a closed loop of kQd requests on `cpu` at one
// speed, over `span` of simulated time (or its first
// kStallsAloneMaxRequests): what its stalls alone spread. A
// request's work ends when NodeCpu says; the next one is issued then, as a
// probe's job does on a stack whose devices take no time of their own.
LatencyTenths StallsAloneLatency(const NodeCpuSpec& cpu, std::uint64_t bytes, bool write,
                                 Nanos span) {
  NodeCpuSpec one = cpu;
  one.speed = {};
  NodeCpu core("host.cpu", one);
  using Flight = std::pair<Nanos, Nanos>;  // done, issued
  std::priority_queue<Flight, std::vector<Flight>, std::greater<>> flying;
  for (std::uint32_t i = 0; i < kQd; ++i) flying.push({core.Run(0, bytes, write), 0});
  LatencyHistogram lat;
  while (flying.top().first < span && lat.Count() < kStallsAloneMaxRequests) {
    const auto [done, issued] = flying.top();
    flying.pop();
    lat.Record(done - issued);
    flying.push({core.Run(done, bytes, write), done});
  }
  return TenthsOf(lat);
}

// The speed levels of the 4 KiB points' latency spread net of what the
// stalls of `cpu` spread (the header says why), or none when there is no
// spread left to give.
CpuSpeedSpread SpeedOfLatencySpread(const std::vector<ProbeResult>& probe, const NodeCpuSpec& cpu) {
  // Each tenth's speed, averaged over the directions, slowest first.
  LatencyTenths seen{};
  int directions = 0;
  for (const RwMode rw : {RwMode::kRandRead, RwMode::kRandWrite}) {
    const ProbeResult* r = Find(probe, rw, 4096);
    if (r == nullptr) continue;
    const LatencyTenths& lat = r->median.lat_tenths_ns;
    if (!std::all_of(lat.begin(), lat.end(), [](double v) { return v > 0; })) return {};
    const LatencyTenths measured = SpeedsOfLatency(lat);
    // The stalls' share of the spread, as a model with them alone has it
    // (the quantiles' ratio: for a spread of a few tens of percent, what
    // is left is the speed's).
    LatencyTenths stalls;
    stalls.fill(1);
    if (!cpu.stalls.empty()) {
      const bool write = rw == RwMode::kRandWrite;
      const LatencyTenths alone = StallsAloneLatency(cpu, 4096, write, kStallsAloneSpan);
      if (std::all_of(alone.begin(), alone.end(), [](double v) { return v > 0; })) {
        stalls = SpeedsOfLatency(alone);
      }
    }
    for (std::size_t i = 0; i < kLatencyTenths; ++i) seen[i] += measured[i] / stalls[i];
    ++directions;
  }
  if (directions == 0) return {};
  for (double& v : seen) v /= directions;
  std::sort(seen.begin(), seen.end());
  // Within the quantiles' own noise: one speed.
  if (seen.back() < seen.front() * (1 + kLeastSpread)) return {};
  // The tenths are of requests, and a slow spell serves fewer of them
  // than a fast one as long: a tenth at speed v stands for time in
  // proportion to 1 / v. The levels are equally likely in time, so each
  // is the speed at the middle of a tenth of the time.
  LatencyTenths time{};
  double total = 0;
  for (std::size_t i = 0; i < kLatencyTenths; ++i) total += time[i] = 1 / seen[i];
  CpuSpeedSpread speed{kSpeedWindow, {}};
  double below = 0;  // share of the time at the tenths before i
  std::size_t i = 0;
  for (std::size_t k = 0; k < kLatencyTenths; ++k) {
    const double middle = (static_cast<double>(k) + 0.5) / static_cast<double>(kLatencyTenths);
    while (i + 1 < kLatencyTenths && below + time[i] / total < middle) below += time[i++] / total;
    // To three places, as a file keeps them.
    speed.levels.push_back(std::max(0.001, std::round(seen[i] * 1000) / 1000));
  }
  return speed;
}

}  // namespace

CalibrationPlan HostCpuPlan(bool quick, std::uint64_t region) {
  CalibrationPlan p;
  for (const RwMode rw : {RwMode::kRandRead, RwMode::kRandWrite}) {
    for (const std::uint64_t bs : {4096u, 16384u, 65536u}) p.points.push_back({rw, bs, kQd});
  }
  p.region = region;
  p.ramp = quick ? 200 * kMilli : 500 * kMilli;
  p.runtime = quick ? kSecond : 2 * kSecond;
  p.max_repeats = quick ? 5 : 6;
  return p;
}

LayoutSpec HostCpuLayout(std::uint64_t region) {
  // Read as a user's layout is, so the cache has a layout's defaults.
  const nlohmann::json j = {
      {"name", "cpu-probe"},
      {"size", 4 * region},
      {"tiers",
       {{{"name", "cache"}, {"preset", "ram"}, {"capacity", 2 * region}},
        {{"name", "capacity"}, {"preset", "ram"}, {"capacity", 4 * region}}}},
      {"cache", {{"tier", "cache"}, {"read", true}, {"write", "writeback"}, {"line_size", "4k"}}}};
  auto l = ParseLayoutJson(j, "calibrate --cpu");
  return std::move(l.value());  // a fixed layout: it always parses
}

Expected<HostCpuFit> FitHostCpu(const std::vector<ProbeResult>& probe, const HostStalls& stalls) {
  HostCpuFit fit;
  fit.cpu.cores = 1;
  fit.stalls = stalls;
  fit.cpu.stalls = stalls.stalls;
  const double running = 1 - std::clamp(stalls.lost_share, 0.0, 0.5);
  for (const RwMode rw : {RwMode::kRandRead, RwMode::kRandWrite}) {
    const ProbeResult* small = Find(probe, rw, 4096);
    const ProbeResult* large = Find(probe, rw, 65536);
    if (small == nullptr || large == nullptr) {
      return MakeError("the CPU's fit needs 4k and 64k random reads and writes");
    }
    const double per_kib = std::max(0.0, (NsPerIo(*large) - NsPerIo(*small)) / 60);
    const Nanos per_io =
        std::max<Nanos>(1, std::llround((NsPerIo(*small) - 4 * per_kib) * running));
    if (rw == RwMode::kRandRead) {
      fit.cpu.per_io = per_io;
      fit.cpu.per_kib = std::llround(per_kib * running);
    } else {
      fit.cpu.per_write_io = per_io;
      fit.cpu.per_write_kib = std::llround(per_kib * running);
    }
  }
  fit.cpu.speed = SpeedOfLatencySpread(probe, fit.cpu);
  for (const ProbeResult& r : probe) {
    const bool write = !r.point.is_read();
    const Nanos per_io = write ? fit.cpu.per_write_io : fit.cpu.per_io;
    const Nanos per_kib = write ? fit.cpu.per_write_kib : fit.cpu.per_kib;
    const std::uint64_t kib_started = (r.point.bs + 1023) / 1024;  // as NodeCpu counts
    // The wall time per request: the work's own and the stalls' share.
    const double cost = (static_cast<double>(per_io) +
                         static_cast<double>(per_kib) * static_cast<double>(kib_started)) /
                        running;
    FitPoint p;
    p.point = r.point;
    p.measured = r.median;
    p.model.iops = 1e9 / cost;
    p.model.bw_bytes = p.model.iops * static_cast<double>(r.point.bs);
    p.model.lat_mean_ns = cost * r.point.iodepth;
    p.iops_error = (p.model.iops - p.measured.iops) / p.measured.iops;
    p.lat_mean_error = p.measured.lat_mean_ns > 0
                           ? (p.model.lat_mean_ns - p.measured.lat_mean_ns) / p.measured.lat_mean_ns
                           : 0;
    fit.max_iops_error = std::max(fit.max_iops_error, std::abs(p.iops_error));
    fit.points.push_back(p);
  }
  return fit;
}

}  // namespace tierlab
