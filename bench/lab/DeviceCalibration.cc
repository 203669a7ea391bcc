#include "bench/lab/DeviceCalibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench/analysis/Median.h"
#include "bench/lab/Runner.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/ModelDevice.h"

namespace tierlab {

namespace {

constexpr std::uint64_t kKi = 1024;

std::string SizeName(std::uint64_t bs) {
  if (bs % (kKi * kKi * kKi) == 0) return std::to_string(bs / (kKi * kKi * kKi)) + "g";
  if (bs >= kKi * kKi * kKi) {  // a fraction of a disk: "116.4g"
    char b[32];
    std::snprintf(b, sizeof b, "%.1fg", static_cast<double>(bs) / (kKi * kKi * kKi));
    return b;
  }
  if (bs % (kKi * kKi) == 0) return std::to_string(bs / (kKi * kKi)) + "m";
  if (bs % kKi == 0) return std::to_string(bs / kKi) + "k";
  return std::to_string(bs);
}

std::vector<ProbePoint> Points(std::initializer_list<std::uint32_t> depths) {
  std::vector<ProbePoint> p;
  for (RwMode rw : {RwMode::kRandRead, RwMode::kRandWrite}) {
    for (std::uint32_t qd : depths) p.push_back({rw, 4 * kKi, qd});
  }
  for (RwMode rw : {RwMode::kRead, RwMode::kWrite}) {
    p.push_back({rw, 128 * kKi, 8});
    p.push_back({rw, kKi * kKi, 4});
  }
  return p;
}

Profile PointProfile(const ProbePoint& point, std::uint64_t region, Nanos ramp, Nanos runtime,
                     std::uint64_t seed) {
  Profile p;
  p.name = point.Name();
  p.rw = point.rw;
  p.bs = point.bs;
  p.iodepth = point.iodepth;
  p.has_size = true;
  const std::uint64_t span = point.span == 0 ? region : std::min(point.span, region);
  p.size.bytes = span;
  if (point.at_end) p.offset.bytes = region - span;
  p.time_based = true;
  p.ramp_time = ramp;
  p.runtime = runtime;
  p.randseed = seed;
  return p;
}

Expected<PointFigures> Measure(Engine& engine, BlockDevice& device, const ProbePoint& point,
                               const Profile& profile) {
  auto r = RunWorkload(engine, device, profile);
  if (!r.ok()) return r.error();
  const OpStats& s = point.is_read() ? r->metrics.read() : r->metrics.write();
  if (s.errors != 0) {
    return MakeError(
        point.Name() + ": " + std::to_string(s.errors) + " I/O errors on " + device.name(),
        ErrorKind::kIo);
  }
  if (s.ops == 0) {
    return MakeError(point.Name() + ": no I/O completed in the measured window",
                     ErrorKind::kInconsistent);
  }
  const Nanos w = r->metrics.window();
  PointFigures f{s.Iops(w), s.BandwidthBytesPerSec(w), s.lat.Mean(),
                 static_cast<double>(s.lat.Percentile(99)),
                 static_cast<double>(s.lat.Percentile(1))};
  f.lat_tenths_ns = TenthsOf(s.lat);
  return f;
}

// The median of each figure and the IOPS spread over the last `window` runs.
void Summarise(ProbeResult& r, std::uint32_t window) {
  const std::size_t first = r.runs.size() > window ? r.runs.size() - window : 0;
  std::vector<double> iops, bw, lat, p99, p1;
  for (std::size_t i = first; i < r.runs.size(); ++i) {
    iops.push_back(r.runs[i].iops);
    bw.push_back(r.runs[i].bw_bytes);
    lat.push_back(r.runs[i].lat_mean_ns);
    p99.push_back(r.runs[i].lat_p99_ns);
    p1.push_back(r.runs[i].lat_p1_ns);
  }
  r.median = {Median(iops), Median(bw), Median(lat), Median(p99), Median(p1)};
  for (std::size_t t = 0; t < kLatencyTenths; ++t) {
    std::vector<double> band;
    for (std::size_t i = first; i < r.runs.size(); ++i) band.push_back(r.runs[i].lat_tenths_ns[t]);
    r.median.lat_tenths_ns[t] = Median(band);
  }
  const auto [lo, hi] = std::minmax_element(iops.begin(), iops.end());
  r.spread = r.median.iops > 0 ? (*hi - *lo) / r.median.iops : 0;
}

double RelError(double model, double measured) {
  return measured > 0 ? (model - measured) / measured : 0;
}

}  // namespace

LatencyTenths TenthsOf(const LatencyHistogram& lat) {
  std::array<double, kLatencyTenths> ps{};
  for (std::size_t i = 0; i < kLatencyTenths; ++i) ps[i] = 5.0 + 10.0 * static_cast<double>(i);
  std::array<std::uint64_t, kLatencyTenths> at{};
  lat.Percentiles(ps, at);
  LatencyTenths out{};
  for (std::size_t i = 0; i < kLatencyTenths; ++i) out[i] = static_cast<double>(at[i]);
  return out;
}

std::string ProbePoint::Name() const {
  std::string n = std::string(ToString(rw)) + " " + SizeName(bs) + " QD" + std::to_string(iodepth);
  if (span != 0) n += " over " + SizeName(span);
  if (at_end) n += " at end";
  return n;
}

CalibrationPlan FullPlan() {
  CalibrationPlan p;
  p.points = Points({1, 2, 4, 8, 16, 32, 64});
  p.pause_window = 5 * kSecond;
  return p;
}

CalibrationPlan QuickPlan() {
  CalibrationPlan p;
  p.points = Points({1, 4, 32});
  p.region = 512ull << 20;
  p.ramp = 250 * kMilli;
  p.runtime = 1500 * kMilli;
  p.max_repeats = 5;
  p.pause_window = 2 * kSecond;
  return p;
}

Nanos PlannedTime(const CalibrationPlan& plan) {
  return static_cast<Nanos>(plan.points.size()) * plan.repeats * (plan.ramp + plan.runtime) +
         plan.pause_window;
}

Expected<std::vector<ProbeResult>> RunProbe(
    Engine& engine, BlockDevice& device, const CalibrationPlan& plan,
    const std::function<void(const ProbeProgress&)>& progress) {
  if (plan.region == 0 || plan.region > device.Size()) {
    return MakeError("calibration region of " + std::to_string(plan.region) +
                     " bytes does not fit " + device.name() + " (" + std::to_string(device.Size()) +
                     " bytes)");
  }
  if (plan.repeats == 0 || plan.max_repeats < plan.repeats) {
    return MakeError("calibration repeats must be 1..max_repeats");
  }
  if (plan.fill) {
    if (progress) progress({nullptr, 1});
    Profile fill;
    fill.name = "fill";
    fill.rw = RwMode::kWrite;
    fill.bs = kKi * kKi;
    fill.iodepth = 4;
    fill.has_size = true;
    fill.size.bytes = plan.region;
    auto r = RunWorkload(engine, device, fill);
    if (!r.ok()) return r.error();
    if (r->metrics.write().errors != 0) {
      return MakeError(
          "fill: " + std::to_string(r->metrics.write().errors) + " I/O errors on " + device.name(),
          ErrorKind::kIo);
    }
  }
  std::vector<ProbeResult> out;
  for (const ProbePoint& point : plan.points) {
    ProbeResult r{point, {}, {}, false, 0};
    while (r.runs.size() < plan.max_repeats) {
      const auto run = static_cast<std::uint32_t>(r.runs.size());
      if (progress) progress({&point, run + 1});
      auto f = Measure(
          engine, device, point,
          PointProfile(point, plan.region, plan.ramp, plan.runtime, kDefaultRandSeed + run));
      if (!f.ok()) return f.error();
      r.runs.push_back(*f);
      if (r.runs.size() < plan.repeats) continue;
      Summarise(r, plan.repeats);
      if (r.spread <= plan.tolerance) {
        r.settled = true;
        break;
      }
    }
    if (!r.settled) {
      char why[200];
      std::snprintf(why, sizeof why,
                    "%s did not settle: its last %u runs' IOPS range over %.0f%% of their median "
                    "(the limit is %.0f%%) after %zu runs; IOPS per run:",
                    point.Name().c_str(), plan.repeats, r.spread * 100, plan.tolerance * 100,
                    r.runs.size());
      std::string message = why;
      for (const PointFigures& f : r.runs) message += " " + std::to_string(std::llround(f.iops));
      return MakeError(message, ErrorKind::kInconsistent);
    }
    out.push_back(std::move(r));
  }
  return out;
}

Expected<CalibrationFit> FitFlashModel(const std::vector<ProbeResult>& probe,
                                       const CalibrationPlan& plan, const DevicePreset& base) {
  if (base.is_hdd()) return MakeError("the flash model does not fit an HDD");
  CalibrationFit fit;
  fit.preset = base;
  DevicePreset& p = fit.preset;
  bool qd1[2] = {false, false}, seq[2] = {false, false};
  double iops[2] = {0, 0}, bw[2] = {0, 0};
  Nanos lat[2] = {0, 0};
  for (const ProbeResult& r : probe) {
    const int d = r.point.is_read() ? 0 : 1;
    if (r.point.is_random() && r.point.bs == 4 * kKi) {
      iops[d] = std::max(iops[d], r.median.iops);
      if (r.point.iodepth == 1) {
        qd1[d] = true;
        lat[d] = std::max<Nanos>(1, std::llround(r.median.lat_mean_ns));
      }
    } else if (!r.point.is_random()) {
      seq[d] = true;
      bw[d] = std::max(bw[d], r.median.bw_bytes);
    }
  }
  for (int d = 0; d < 2; ++d) {
    const char* dir = d == 0 ? "read" : "write";
    if (!qd1[d]) return MakeError(std::string("the probe has no random 4k ") + dir + " at QD1");
    if (!seq[d]) return MakeError(std::string("the probe has no sequential ") + dir);
  }
  p.read_latency = lat[0];
  p.write_latency = lat[1];
  p.read_iops_4k = iops[0];
  p.write_iops_4k = iops[1];
  p.seq_read_mbps = bw[0] / 1e6;
  p.seq_write_mbps = bw[1] / 1e6;
  const double knee = std::ceil(iops[0] * static_cast<double>(lat[0]) / 1e9);
  p.service_units = static_cast<std::uint32_t>(std::clamp(knee, 1.0, 65536.0));
  if (auto s = PredictProbe(probe, plan, fit); !s.ok()) return s.error();
  return fit;
}

Expected<PointFigures> PredictPoint(const DevicePreset& preset, const CalibrationPlan& plan,
                                    const ProbePoint& point) {
  // Flash models are deterministic, so a short run is their steady state; a
  // disk's QD1 points average a rotational wait (sd: a turn / sqrt(12)) and
  // a seek per I/O, so they run for a thousand-odd of them.
  const Nanos runtime = preset.is_hdd() ? 10 * kSecond : 200 * kMilli;
  SimEngine sim;
  ModelOptions mo;
  // A disk keeps its stroke: its region is the whole disk.
  mo.capacity = preset.is_hdd() ? plan.region : std::max(plan.region, preset.capacity_bytes);
  auto dev = MakeModelDevice(sim, preset, "model", mo);
  return Measure(sim, *dev, point,
                 PointProfile(point, plan.region, 20 * kMilli, runtime, kDefaultRandSeed));
}

Expected<void> PredictProbe(const std::vector<ProbeResult>& probe, const CalibrationPlan& plan,
                            CalibrationFit& fit) {
  fit.points.clear();
  fit.max_iops_error = 0;
  fit.max_lat_error = 0;
  for (const ProbeResult& r : probe) {
    auto f = PredictPoint(fit.preset, plan, r.point);
    if (!f.ok()) return f.error();
    FitPoint fp{r.point, r.median, *f, RelError(f->iops, r.median.iops),
                RelError(f->lat_mean_ns, r.median.lat_mean_ns)};
    fit.max_iops_error = std::max(fit.max_iops_error, std::abs(fp.iops_error));
    fit.max_lat_error = std::max(fit.max_lat_error, std::abs(fp.lat_mean_error));
    fit.points.push_back(fp);
  }
  return {};
}

}  // namespace tierlab
