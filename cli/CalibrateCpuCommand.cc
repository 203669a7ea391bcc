// tierlab calibrate --cpu (CalibrateCpu.h): builds the probe's cached volume
// on RAM files, runs the probe on the real engine, fits the CPU and writes
// the cpu file with what was measured.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/lab/HostCpuCalibration.h"
#include "bench/lab/HostStalls.h"
#include "bench/lab/Rounded.h"
#include "cli/CalibrateCpu.h"
#include "cli/Commands.h"
#include "layouts/HostCpuSpec.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/RealEngine.h"

namespace tierlab::cli {
namespace {

using json = nlohmann::json;

json PointJson(const ProbeResult& r, const FitPoint& f) {
  json runs = json::array();
  for (const PointFigures& run : r.runs) runs.push_back(std::round(run.iops));
  return {{"point", r.point.Name()},
          {"iops", std::round(f.measured.iops)},
          {"lat_mean_us", Rounded(f.measured.lat_mean_ns / 1e3, 2)},
          {"ns_per_io", Rounded(1e9 / f.measured.iops, 2)},
          {"runs", std::move(runs)},
          {"spread", Rounded(r.spread, 3)},
          {"model_iops", std::round(f.model.iops)},
          {"iops_error", Rounded(f.iops_error, 3)}};
}

// Beyond this share of the time away the host is too busy to be
// calibrated (and a model of it would be mostly stalls).
constexpr double kMaxLostShare = 0.25;

void PrintTable(const HostCpuFit& fit, const std::vector<ProbeResult>& probe) {
  std::printf("%-20s %12s %10s %12s %7s %7s\n", "point", "IOPS", "ns/io", "model", "error",
              "spread");
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const FitPoint& f = fit.points[i];
    std::printf("%-20s %12.0f %10.1f %12.0f %+6.1f%% %6.1f%%\n", f.point.Name().c_str(),
                f.measured.iops, 1e9 / f.measured.iops, f.model.iops, f.iops_error * 100,
                probe[i].spread * 100);
  }
  std::printf(
      "fitted cpu: a read %lld ns + %lld ns a KiB, a write %lld ns + %lld ns a KiB, on one "
      "core (the 16k points are not fitted: their error checks the model)\n",
      static_cast<long long>(fit.cpu.per_io), static_cast<long long>(fit.cpu.per_kib),
      static_cast<long long>(fit.cpu.per_write_io), static_cast<long long>(fit.cpu.per_write_kib));
  const HostStalls& h = fit.stalls;
  std::printf(
      "host stalls: %llu in %.1f s, %.2f%% of the time (the costs are net of them), the "
      "longest %.0f us:",
      static_cast<unsigned long long>(h.count), static_cast<double>(h.window) / 1e9,
      h.lost_share * 100, static_cast<double>(h.longest) / 1e3);
  for (const CpuStall& c : h.stalls) {
    std::printf(" %.1f us %.0f/s;", static_cast<double>(c.duration) / 1e3, c.per_second);
  }
  std::printf("\n");
  const HostSpeed& s = h.speed;
  if (s.windows > 0) {
    std::printf(
        "host speed: over %zu windows of %lld ms, the probe's units a us p10 / p50 / p90 %.2f / "
        "%.2f / %.2f, p90 / p10 = %.2f\n",
        s.windows, static_cast<long long>(kSpeedWindow / kMilli), s.p10, s.p50, s.p90,
        s.p10 > 0 ? s.p90 / s.p10 : 0.0);
  }
  const std::vector<double>& levels = fit.cpu.speed.levels;
  if (levels.empty()) {
    std::printf("stack speed: one (no spread in the 4k points' latency)\n");
  } else {
    std::printf(
        "stack speed: %zu levels from the 4k points' latency at QD32, the slowest %.3f and the "
        "fastest %.3f of the median's, fastest / slowest = %.2f (cpu.speed)\n",
        levels.size(), levels.front(), levels.back(), levels.back() / levels.front());
  }
}

}  // namespace

json StallsJson(const HostStalls& h) {
  json j = {{"window_ms", h.window / kMilli},
            {"count", h.count},
            {"lost_share", Rounded(h.lost_share, 4)},
            {"longest_us", Rounded(static_cast<double>(h.longest) / 1e3, 1)}};
  if (h.speed.windows > 0) {
    j["speed"] = {{"window_ms", kSpeedWindow / kMilli},
                  {"windows", h.speed.windows},
                  {"p10_units_per_us", Rounded(h.speed.p10, 3)},
                  {"p50_units_per_us", Rounded(h.speed.p50, 3)},
                  {"p90_units_per_us", Rounded(h.speed.p90, 3)}};
  }
  return j;
}

std::string TodayUtc() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

int EmitCalibration(const json& doc, const std::string& output, const std::string& format,
                    const std::function<void()>& table, CalibrationFileHint hint) {
  const bool file = !output.empty() && output != "-";
  if (file) {
    const int rc = WriteOutput(output, doc.dump(2) + "\n");
    if (rc != kExitOk) return rc;
  }
  if (format == "json") {
    std::printf("%s\n", doc.dump(2).c_str());
    return kExitOk;
  }
  table();
  if (file) {
    std::printf("%s written to %s: name it %s as \"%s\": \"file:%s\"\n", hint.what, output.c_str(),
                hint.where, hint.key, output.c_str());
  }
  return kExitOk;
}

int RunCalibrateCpu(const CalibrateCpuArgs& a) {
  std::error_code ec;
  if (!std::filesystem::is_directory(a.dir, ec)) {
    return Fail("calibrate --cpu: " + a.dir +
                    ": not a directory (the probe's RAM files go there; tmpfs, as /dev/shm)",
                kExitUsage);
  }
  // The region is written into the cache file and destaged into the
  // capacity file: twice it in memory, which must fit.
  const std::filesystem::space_info space = std::filesystem::space(a.dir, ec);
  if (!ec && 2 * a.region > space.available) {
    return Fail("--size: the probe keeps twice its region, " + FormatBytes(2 * a.region) + ", in " +
                    a.dir + ", which has " + std::to_string(space.available >> 20) + " MiB free",
                kExitUsage);
  }
  CalibrationPlan plan = HostCpuPlan(a.quick, a.region);
  if (a.runtime_s > 0) {
    plan.runtime = static_cast<Nanos>(a.runtime_s * 1e9);
    plan.ramp = std::min(plan.ramp, plan.runtime / 4);
  }
  if (a.tolerance_pct > 0) plan.tolerance = a.tolerance_pct / 100;

  RealEngine engine;
  BuildOptions bo;
  bo.temp_dir = a.dir;
  auto volume = BuildVolume(engine, HostCpuLayout(a.region), bo);
  if (!volume.ok()) return Fail(volume.error());
  if (!a.quiet) {
    std::fprintf(stderr,
                 "calibrate --cpu: a write-back cache over RAM files in %s, %zu points x %u "
                 "runs over %s, about %.0f s\n",
                 a.dir.c_str(), plan.points.size(), plan.repeats, FormatBytes(plan.region).c_str(),
                 static_cast<double>(PlannedTime(plan)) / 1e9 + (a.quick ? 1 : 3));
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto probe = RunProbe(engine, volume->top(), plan, [&](const ProbeProgress& p) {
    if (a.quiet || p.point == nullptr) return;
    if (p.run == 1) std::fprintf(stderr, "calibrate --cpu: %s\n", p.point->Name().c_str());
    if (p.run > plan.repeats) {
      std::fprintf(stderr, "calibrate --cpu: %s not settled, run %u\n", p.point->Name().c_str(),
                   p.run);
    }
  });
  if (!probe.ok()) {
    std::string m = "calibrate --cpu: " + probe.error().message;
    if (probe.error().kind == ErrorKind::kInconsistent) {
      m += " (another job sharing the cores: a quieter moment, longer runs (--runtime) or "
           "--tolerance)";
    }
    return Fail(m, ExitCodeFor(probe.error().kind));
  }
  // The host's stalls, beside the points: their share comes out of the
  // costs and they go into the model as they are (HostCpuCalibration.h).
  if (!a.quiet) std::fprintf(stderr, "calibrate --cpu: the host's stalls\n");
  const HostStalls stalls = MeasureHostStalls(a.quick ? kSecond : 3 * kSecond);
  if (stalls.lost_share >= kMaxLostShare) {
    return Fail("calibrate --cpu: the host took the core away " +
                    std::to_string(std::lround(stalls.lost_share * 100)) +
                    "% of the time (another job sharing the cores: a quieter moment)",
                ExitCodeFor(ErrorKind::kInconsistent));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto fit = FitHostCpu(*probe, stalls);
  if (!fit.ok()) return Fail(fit.error());

  json points = json::array();
  for (std::size_t i = 0; i < probe->size(); ++i) {
    points.push_back(PointJson((*probe)[i], fit->points[i]));
  }
  const json calibration = {{"date", TodayUtc()},
                            {"stack", "write-back cache, 4k lines, over RAM files in " + a.dir},
                            {"region", FormatBytes(plan.region)},
                            {"plan", a.quick ? "quick" : "full"},
                            {"ramp_ms", plan.ramp / kMilli},
                            {"runtime_ms", plan.runtime / kMilli},
                            {"repeats", plan.repeats},
                            {"tolerance", plan.tolerance},
                            {"seconds", std::round(seconds)},
                            {"max_iops_error", Rounded(fit->max_iops_error, 3)},
                            {"stalls", StallsJson(stalls)},
                            {"points", std::move(points)}};
  // The host's speed now, for validate to measure again after each real
  // cell (bench/lab/HostReference.h): the 4 KiB points' wall time per I/O.
  HostCpuReference reference{plan.region, std::filesystem::absolute(a.dir, ec).string(), 0, 0};
  for (const ProbeResult& r : *probe) {
    if (r.point.bs != 4096 || !(r.median.iops > 0)) continue;
    (r.point.is_read() ? reference.read_ns_per_io : reference.write_ns_per_io) =
        Rounded(1e9 / r.median.iops, 1);
  }
  return EmitCalibration(CpuFileJson(fit->cpu, calibration, reference), a.output, a.format,
                         [&] { PrintTable(*fit, *probe); }, {"cpu", "in a layout", "cpu"});
}

}  // namespace tierlab::cli
