// The rotational half of DeviceCalibration.h: HddPlan and FitHddModel.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "bench/lab/DeviceCalibration.h"

namespace tierlab {

namespace {

constexpr std::uint64_t kKi = 1024;
constexpr std::uint64_t kSeqSpan = 256 * kKi * kKi;  // per sequential point
// The spindle speeds drives are sold at.
constexpr std::array<double, 7> kStandardRpm = {4200, 5400, 5900, 7200, 10000, 10500, 15000};

const ProbeResult* FindPoint(const std::vector<ProbeResult>& probe, RwMode rw, std::uint64_t bs,
                             std::uint32_t qd, std::uint64_t span, bool at_end = false) {
  for (const ProbeResult& r : probe) {
    const ProbePoint& p = r.point;
    if (p.rw == rw && p.bs == bs && p.iodepth == qd && p.span == span && p.at_end == at_end) {
      return &r;
    }
  }
  return nullptr;
}

// Mean time to transfer `bytes` at a uniformly random offset within the
// first `fraction` of a disk whose media rate falls linearly from `outer` to
// `inner` (bytes per ns): the integral of 1 / rate.
double MeanTransferNs(double bytes, double outer, double inner, double fraction) {
  const double at_end = outer - (outer - inner) * fraction;
  if (outer - at_end < 1e-9 * outer) return bytes / outer;
  return bytes * std::log(outer / at_end) / (outer - at_end);
}

}  // namespace

CalibrationPlan HddPlan(bool quick, std::uint64_t device_bytes) {
  CalibrationPlan p;
  p.region = device_bytes;
  p.fill = false;
  const std::uint64_t sixteenth = device_bytes / 16 / (4 * kKi) * (4 * kKi);
  for (RwMode rw : {RwMode::kRandRead, RwMode::kRandWrite}) {
    p.points.push_back({rw, 4 * kKi, 1, kHddNearSpan});
    p.points.push_back({rw, 4 * kKi, 1, sixteenth});
    p.points.push_back({rw, 4 * kKi, 1});
  }
  const std::vector<std::uint32_t> depths =
      quick ? std::vector<std::uint32_t>{8, 32} : std::vector<std::uint32_t>{4, 16, 32, 64};
  for (std::uint32_t qd : depths) {
    p.points.push_back({RwMode::kRandRead, 4 * kKi, qd});
  }
  p.points.push_back({RwMode::kRandWrite, 4 * kKi, 32});
  p.points.push_back({RwMode::kRead, 4 * kKi, 1, kSeqSpan});
  p.points.push_back({RwMode::kRead, kKi * kKi, 4, kSeqSpan});
  p.points.push_back({RwMode::kRead, kKi * kKi, 4, kSeqSpan, true});
  p.points.push_back({RwMode::kWrite, kKi * kKi, 4, kSeqSpan});
  // A QD1 point completes a hundred-odd I/Os a second: runs of seconds give
  // the few hundred samples its mean and tails need.
  p.ramp = quick ? 150 * kMilli : 500 * kMilli;
  p.runtime = quick ? 1250 * kMilli : 4 * kSecond;
  p.max_repeats = quick ? 5 : 6;
  return p;
}

Expected<CalibrationFit> FitHddModel(const std::vector<ProbeResult>& probe,
                                     const CalibrationPlan& plan, const DevicePreset& base) {
  if (!base.is_hdd()) return MakeError("the HDD model fits only an HDD preset");
  const std::uint64_t sixteenth = plan.region / 16 / (4 * kKi) * (4 * kKi);
  const ProbeResult* near[2];
  const ProbeResult* mid[2];
  const ProbeResult* full[2];
  for (int d = 0; d < 2; ++d) {
    const RwMode rw = d == 0 ? RwMode::kRandRead : RwMode::kRandWrite;
    near[d] = FindPoint(probe, rw, 4 * kKi, 1, kHddNearSpan);
    mid[d] = FindPoint(probe, rw, 4 * kKi, 1, sixteenth);
    full[d] = FindPoint(probe, rw, 4 * kKi, 1, 0);
    if (near[d] == nullptr || mid[d] == nullptr || full[d] == nullptr) {
      return MakeError(std::string("the probe lacks a QD1 random 4k ") +
                       (d == 0 ? "read" : "write") + " near, over a sixteenth or over the disk");
    }
  }
  const ProbeResult* hit = FindPoint(probe, RwMode::kRead, 4 * kKi, 1, kSeqSpan);
  const ProbeResult* outer = FindPoint(probe, RwMode::kRead, kKi * kKi, 4, kSeqSpan);
  const ProbeResult* inner = FindPoint(probe, RwMode::kRead, kKi * kKi, 4, kSeqSpan, true);
  if (hit == nullptr || outer == nullptr || inner == nullptr) {
    return MakeError("the probe lacks the sequential reads (4k QD1, 1m at the start and end)");
  }

  CalibrationFit fit;
  fit.preset = base;
  DevicePreset& p = fit.preset;

  // Rotation: the near reads' seeks are all about a track-to-track one,
  // and the platter's wait after them is uniform over a turn, so their
  // latencies spread over 98% of a revolution from p1 to p99.
  const double spread = (near[0]->median.lat_p99_ns - near[0]->median.lat_p1_ns) / 0.98;
  if (spread < static_cast<double>(kHddMinRevolution)) {
    char why[200];
    std::snprintf(why, sizeof why,
                  "does not look rotational: 4k random reads within %llu MiB spread over %.0f us "
                  "(p1 to p99); a platter's turn takes at least %.0f us",
                  static_cast<unsigned long long>(kHddNearSpan >> 20), spread / 1e3,
                  static_cast<double>(kHddMinRevolution) / 1e3);
    return MakeError(why, ErrorKind::kInconsistent);
  }
  double rpm = 60e9 / spread;
  for (double standard : kStandardRpm) {
    if (std::abs(rpm - standard) <= 0.04 * standard) {
      char note[160];
      std::snprintf(note, sizeof note,
                    "rpm: %.0f measured ((p99 - p1) / 0.98 of the near reads), %.0f taken, the "
                    "nearest standard speed",
                    rpm, standard);
      fit.notes.emplace_back(note);
      rpm = standard;
      break;
    }
  }
  p.rpm = rpm;
  const double rev = 60e9 / rpm;

  // Zones: the sustained rate at the start and at the end of the disk.
  p.max_transfer_mbps = outer->median.bw_bytes / 1e6;
  p.min_transfer_mbps = std::min(inner->median.bw_bytes / 1e6, p.max_transfer_mbps);
  p.seq_read_mbps = p.max_transfer_mbps;
  p.seq_write_mbps = p.max_transfer_mbps;
  const double rate_outer = p.max_transfer_mbps * 1e6 / 1e9;  // bytes per ns
  const double rate_inner = p.min_transfer_mbps * 1e6 / 1e9;

  // Per direction, a line through the QD1 means (less transfer) in sqrt(f).
  double slope[2], sum[2];
  for (int d = 0; d < 2; ++d) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const ProbeResult* r : {near[d], mid[d], full[d]}) {
      const double f = static_cast<double>(r->point.span == 0 ? plan.region : r->point.span) /
                       static_cast<double>(plan.region);
      const double x = std::sqrt(f);
      const double y =
          r->median.lat_mean_ns - MeanTransferNs(4096, rate_outer, rate_inner, f) - rev / 2;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double det = 3 * sxx - sx * sx;
    slope[d] = std::max(0.0, (3 * sxy - sx * sy) / det);
    sum[d] = std::max(0.0, (sy - slope[d] * sx) / 3);  // overhead + t2t
  }

  // The split of each sum between overhead and t2t: the deep-queue points.
  auto apply = [&](int d, double t2t) {
    const double ms = t2t / 1e6;
    (d == 0 ? p.track_to_track_read_ms : p.track_to_track_write_ms) = ms;
    (d == 0 ? p.avg_seek_read_ms : p.avg_seek_write_ms) = (slope[d] + t2t) / 1e6;
    (d == 0 ? p.overhead_read_miss : p.overhead_write) = std::llround(sum[d] - t2t);
  };
  for (int d = 0; d < 2; ++d) apply(d, sum[d] / 2);
  p.overhead_read_hit = base.overhead_read_hit;
  for (int d = 0; d < 2; ++d) {
    const RwMode rw = d == 0 ? RwMode::kRandRead : RwMode::kRandWrite;
    std::vector<const ProbeResult*> deep;
    for (const ProbeResult& r : probe) {
      if (r.point.rw == rw && r.point.span == 0 && r.point.iodepth >= 16) deep.push_back(&r);
    }
    if (deep.empty()) {
      fit.notes.push_back(std::string("no deep-queue ") + (d == 0 ? "read" : "write") +
                          " points: overhead and track-to-track seek split evenly");
      continue;
    }
    std::string failure;
    auto error = [&](double t2t) {
      apply(d, t2t);
      double e = 0;
      for (const ProbeResult* r : deep) {
        auto f = PredictPoint(p, plan, r->point);
        if (!f.ok()) {
          failure = f.error().message;
          return 0.0;
        }
        const double rel = (f->iops - r->median.iops) / r->median.iops;
        e += rel * rel;
      }
      return e;
    };
    // Golden-section search over [0, sum]: the error is unimodal in t2t (a
    // longer short seek lowers deep-queue IOPS, a longer overhead hides).
    constexpr double kPhi = 0.6180339887498949;
    double lo = 0, hi = sum[d];
    double x1 = hi - kPhi * (hi - lo), x2 = lo + kPhi * (hi - lo);
    double e1 = error(x1), e2 = error(x2);
    for (int i = 0; i < 16 && failure.empty(); ++i) {
      if (e1 <= e2) {
        hi = x2;
        x2 = x1;
        e2 = e1;
        x1 = hi - kPhi * (hi - lo);
        e1 = error(x1);
      } else {
        lo = x1;
        x1 = x2;
        e1 = e2;
        x2 = lo + kPhi * (hi - lo);
        e2 = error(x2);
      }
    }
    if (!failure.empty()) return MakeError(failure, ErrorKind::kInconsistent);
    apply(d, (lo + hi) / 2);
  }

  // Read-ahead hits: the command overhead and the trip over the host link.
  const double link = p.interface_mbps > 0 ? p.interface_mbps * 1e6 / 1e9 : rate_outer;
  p.overhead_read_hit = std::max<Nanos>(0, std::llround(hit->median.lat_mean_ns - 4096 / link));

  // NCQ: the depth from which deeper queues no longer help.
  double best = 0;
  for (const ProbeResult& r : probe) {
    if (r.point.rw == RwMode::kRandRead && r.point.span == 0) best = std::max(best, r.median.iops);
  }
  std::optional<std::uint32_t> depth;
  for (const ProbeResult& r : probe) {
    if (r.point.rw != RwMode::kRandRead || r.point.span != 0) continue;
    if (r.median.iops >= 0.97 * best && (!depth || r.point.iodepth < *depth)) {
      depth = r.point.iodepth;
    }
  }
  p.ncq_depth = depth.value_or(1) <= 1 ? 0 : *depth;
  fit.notes.push_back("kept from " + base.name + ": cache_mib " + std::to_string(p.cache_mib) +
                      ", interface_mbps " + std::to_string(std::lround(p.interface_mbps)));

  if (auto s = PredictProbe(probe, plan, fit); !s.ok()) return s.error();
  return fit;
}

}  // namespace tierlab
