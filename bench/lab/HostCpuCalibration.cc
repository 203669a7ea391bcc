#include "bench/lab/HostCpuCalibration.h"

#include <algorithm>
#include <cmath>

namespace tierlab {

namespace {

constexpr std::uint32_t kQd = 32;

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
