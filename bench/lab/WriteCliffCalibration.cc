// The write cliff's probe and fit (DeviceCalibration.h has the method).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "bench/analysis/Median.h"
#include "bench/lab/DeviceCalibration.h"
#include "bench/lab/Runner.h"

namespace tierlab {

namespace {

constexpr std::uint64_t kBlock = 4096;
constexpr std::uint32_t kDepth = 32;
constexpr std::uint32_t kMinSamples = 8;

// `bytes` of 4k random writes at QD32 over the region, measured whole.
Expected<CliffSample> WriteRun(Engine& engine, BlockDevice& device, std::uint64_t region,
                               std::uint64_t bytes, std::uint64_t seed) {
  Profile p;
  p.name = "write cliff";
  p.rw = RwMode::kRandWrite;
  p.bs = kBlock;
  p.iodepth = kDepth;
  p.has_size = true;
  p.size.bytes = region;
  p.has_io_size = true;
  p.io_size = bytes;
  p.randseed = seed;
  CliffSample s{device.stats().write_bytes, bytes, 0};
  auto r = RunWorkload(engine, device, p);
  if (!r.ok()) return r.error();
  const OpStats& w = r->metrics.write();
  if (w.errors != 0) {
    return MakeError("write cliff: " + std::to_string(w.errors) + " I/O errors on " + device.name(),
                     ErrorKind::kIo);
  }
  if (w.ops == 0) return MakeError("write cliff: no write completed", ErrorKind::kInconsistent);
  s.iops = w.Iops(r->metrics.window());
  return s;
}

// The rated rate (the median of the first three runs) and the steady one
// (the median of the last quarter).
std::pair<double, double> Rates(const std::vector<CliffSample>& runs) {
  std::vector<double> head, tail;
  for (std::size_t i = 0; i < 3; ++i) head.push_back(runs[i].iops);
  for (std::size_t i = runs.size() * 3 / 4; i < runs.size(); ++i) tail.push_back(runs[i].iops);
  return {Median(head), Median(tail)};
}

// The share of a run's bytes written before the cliff, from its IOPS (the
// harmonic blend of the rated and steady rates).
double ShareBefore(double iops, double rated, double steady) {
  const double f = (1 / steady - 1 / iops) / (1 / steady - 1 / rated);
  return std::clamp(f, 0.0, 1.0);
}

// The first run below the midpoint of the rates.
std::optional<std::size_t> FirstBelow(const std::vector<CliffSample>& runs, double rated,
                                      double steady) {
  const double mid = (rated + steady) / 2;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].iops < mid) return i;
  }
  return std::nullopt;
}

// Where the rate fell for good (FirstBelow), if it did: the steady rate is
// more than kCliffDrop below the rated one and below the probe's own rated
// figure, at least three runs come before the fall, and at most a tenth of
// the runs after it are back at or above the midpoint (a dip, or a rate
// that wanders, is no cliff).
std::optional<std::size_t> Fall(const std::vector<CliffSample>& runs, double rated, double steady,
                                double probe_rated) {
  if (steady >= (1 - kCliffDrop) * std::min(rated, probe_rated)) return std::nullopt;
  const auto i = FirstBelow(runs, rated, steady);
  if (!i || *i < 3) return std::nullopt;
  const double mid = (rated + steady) / 2;
  std::size_t back = 0;
  for (std::size_t k = *i + 1; k < runs.size(); ++k) back += runs[k].iops >= mid ? 1 : 0;
  if (back * 10 > runs.size() - *i - 1) return std::nullopt;
  return i;
}

// Bytes the runs wrote, from the first one's start, before the cliff that
// falls in run i (the first below the midpoint) or the run before it.
double BytesBefore(const std::vector<CliffSample>& runs, std::size_t i, double rated,
                   double steady) {
  double before = static_cast<double>(runs[i].written - runs.front().written) +
                  ShareBefore(runs[i].iops, rated, steady) * static_cast<double>(runs[i].bytes);
  if (i > 0) {
    // The part of the run before it that the blend says came after the
    // cliff is taken back (its share is under 1 when the cliff fell in it).
    before -=
        (1 - ShareBefore(runs[i - 1].iops, rated, steady)) * static_cast<double>(runs[i - 1].bytes);
  }
  return std::max(0.0, before);
}

}  // namespace

Expected<CliffProbe> RunCliffProbe(Engine& engine, BlockDevice& device, const CalibrationPlan& plan,
                                   const CliffPlan& cliff) {
  if (cliff.samples < kMinSamples) {
    return MakeError("write cliff: at least " + std::to_string(kMinSamples) + " samples",
                     ErrorKind::kInput);
  }
  const std::uint64_t run = cliff.bytes / cliff.samples / kBlock * kBlock;
  if (run < kBlock * kDepth) {
    return MakeError("write cliff: " + std::to_string(cliff.bytes) + " bytes in " +
                         std::to_string(cliff.samples) + " runs is under " +
                         std::to_string(kBlock * kDepth) + " bytes a run",
                     ErrorKind::kInput);
  }
  if (plan.region == 0 || plan.region > device.Size()) {
    return MakeError("write cliff: region does not fit " + device.name(), ErrorKind::kInput);
  }
  CliffProbe out;
  for (std::uint32_t i = 0; i < cliff.samples; ++i) {
    auto s = WriteRun(engine, device, plan.region, run, kDefaultRandSeed + i);
    if (!s.ok()) return s.error();
    out.samples.push_back(*s);
  }
  Profile seq;
  seq.name = "write cliff: sequential";
  seq.rw = RwMode::kWrite;
  seq.bs = 1u << 20;
  seq.iodepth = 4;
  seq.has_size = true;
  seq.size.bytes = plan.region;
  seq.time_based = true;
  seq.runtime = plan.runtime;
  auto r = RunWorkload(engine, device, seq);
  if (!r.ok()) return r.error();
  const OpStats& w = r->metrics.write();
  if (w.ops == 0) return MakeError("write cliff: no sequential write completed");
  const Nanos window = r->metrics.window();
  out.steady_seq = {w.Iops(window), w.BandwidthBytesPerSec(window), w.lat.Mean(),
                    static_cast<double>(w.lat.Percentile(99)),
                    static_cast<double>(w.lat.Percentile(1))};
  const auto [rated, steady] = Rates(out.samples);
  if (cliff.idle > 0 && Fall(out.samples, rated, steady, rated)) {
    out.idle = cliff.idle;
    // A timer keeps a real engine's loop waiting out the idle time.
    const Nanos until = engine.Now() + cliff.idle;
    engine.ScheduleAt(until, [] {});
    engine.RunUntil(until);
    // Runs of an eighth of the bytes probed, until one is below the
    // midpoint of the rates (at most twice the bytes probed).
    const double mid = (rated + steady) / 2;
    const std::uint64_t step = std::max<std::uint64_t>(cliff.bytes / 8 / kBlock, kDepth) * kBlock;
    for (std::uint32_t i = 0; i < 16; ++i) {
      auto s = WriteRun(engine, device, plan.region, step, kDefaultRandSeed + 1000 + i);
      if (!s.ok()) return s.error();
      out.after_idle.push_back(*s);
      if (s->iops < mid) break;
    }
  }
  return out;
}

Expected<void> FitWriteCliff(const CliffProbe& probe, CalibrationFit& fit) {
  const std::size_t n = probe.samples.size();
  if (n < kMinSamples) {
    return MakeError("write cliff: at least " + std::to_string(kMinSamples) + " samples",
                     ErrorKind::kInput);
  }
  const auto [rated, steady] = Rates(probe.samples);
  const double written = static_cast<double>(
      probe.samples.back().written - probe.samples.front().written + probe.samples.back().bytes);
  char line[240];
  DevicePreset& p = fit.preset;
  p.write_cliff_bytes = 0;
  p.steady_write_iops_4k = p.steady_seq_write_mbps = p.cliff_recovery_mbps = 0;
  const auto fall = Fall(probe.samples, rated, steady, p.write_iops_4k);
  if (!fall) {
    const auto low = std::min_element(
        probe.samples.begin(), probe.samples.end(),
        [](const CliffSample& a, const CliffSample& b) { return a.iops < b.iops; });
    std::snprintf(line, sizeof line,
                  "no write cliff in %.0f MiB of 4k random writes: %.0f IOPS at the start, %.0f "
                  "at the end, %.0f in the slowest run",
                  written / (1 << 20), rated, steady, low->iops);
    fit.notes.emplace_back(line);
    return {};
  }
  const double before = BytesBefore(probe.samples, *fall, rated, steady);
  p.write_cliff_bytes =
      static_cast<std::uint64_t>(std::llround(before)) + probe.samples.front().written;
  p.write_cliff_bytes = std::max<std::uint64_t>(p.write_cliff_bytes / kBlock * kBlock, kBlock);
  p.steady_write_iops_4k = steady;
  p.steady_seq_write_mbps = std::min(probe.steady_seq.bw_bytes / 1e6, p.seq_write_mbps);
  std::snprintf(line, sizeof line,
                "write cliff after %.0f MiB written (the calibration's %.0f MiB before the "
                "probe included): 4k random writes at QD32 fell from %.0f to %.0f IOPS",
                static_cast<double>(p.write_cliff_bytes) / (1 << 20),
                static_cast<double>(probe.samples.front().written) / (1 << 20), rated, steady);
  fit.notes.emplace_back(line);
  if (probe.steady_seq.bw_bytes / 1e6 > p.seq_write_mbps) {
    fit.notes.emplace_back(
        "sequential writes past the cliff were faster than the probe's: kept at its figure");
  }
  if (probe.idle > 0 && !probe.after_idle.empty()) {
    const double idle_s = static_cast<double>(probe.idle) / 1e9;
    const auto i = FirstBelow(probe.after_idle, rated, steady);
    double bytes = 0;
    if (i) {
      bytes = BytesBefore(probe.after_idle, *i, rated, steady);
    } else {
      for (const CliffSample& s : probe.after_idle) bytes += static_cast<double>(s.bytes);
      std::snprintf(line, sizeof line,
                    "the rate had not fallen again after %.0f MiB written after the idle time: "
                    "cliff_recovery_mbps is at least the figure given",
                    bytes / (1 << 20));
      fit.notes.emplace_back(line);
    }
    p.cliff_recovery_mbps = bytes / idle_s / 1e6;
  }
  return {};
}

}  // namespace tierlab
