#include "bench/lab/HostReference.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <vector>

#include "bench/lab/DeviceCalibration.h"
#include "bench/lab/HostCpuCalibration.h"
#include "bench/lab/Rounded.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/QuotedText.h"
#include "tiering/core/RealEngine.h"

namespace tierlab {

namespace {

// Each point the median of three runs of some 150,000 I/Os at RAM speed
// (a median, so that a burst of the host's other work in one run does not
// make the measurement), short enough that one after each of the
// example's six cells adds about six seconds to it.
constexpr Nanos kRamp = 30 * kMilli;
constexpr Nanos kRuntime = 150 * kMilli;
constexpr std::uint32_t kRuns = 3;

}  // namespace

struct HostReferenceProbe::State {
  RealEngine engine;  // before the volume: it outlives it
  std::optional<Volume> volume;
  CalibrationPlan plan;
};

HostReferenceProbe::HostReferenceProbe(std::unique_ptr<State> s) : s_(std::move(s)) {}
HostReferenceProbe::~HostReferenceProbe() = default;

Expected<std::unique_ptr<HostReferenceProbe>> HostReferenceProbe::Make(
    const HostCpuReference& ref) {
  std::error_code ec;
  if (!std::filesystem::is_directory(ref.dir, ec)) {
    return MakeError("host reference: " + ref.dir +
                         ": not a directory (the cpu file's reference.dir, where its RAM "
                         "files go)",
                     ErrorKind::kIo);
  }
  auto s = std::make_unique<State>();
  BuildOptions bo;
  bo.temp_dir = ref.dir;
  auto volume = BuildVolume(s->engine, HostCpuLayout(ref.region), bo);
  if (!volume.ok()) {
    return Error{"host reference: " + volume.error().message, volume.error().kind};
  }
  s->volume.emplace(std::move(*volume));
  s->plan = HostCpuPlan(true, ref.region);
  std::vector<ProbePoint> points;
  for (const ProbePoint& p : s->plan.points) {
    if (p.bs == 4096) points.push_back(p);  // the 4 KiB read, then the write
  }
  s->plan.points = std::move(points);
  s->plan.ramp = kRamp;
  s->plan.runtime = kRuntime;
  s->plan.repeats = kRuns;
  s->plan.max_repeats = kRuns;
  s->plan.tolerance = 1e9;  // the median of the runs, however far apart
  // The region written once, and the points run unmeasured: the first
  // runs after a fill carry its destage.
  s->plan.fill = true;
  auto warm = RunProbe(s->engine, s->volume->top(), s->plan);
  if (!warm.ok()) return Error{"host reference: " + warm.error().message, warm.error().kind};
  s->plan.fill = false;
  return std::unique_ptr<HostReferenceProbe>(new HostReferenceProbe(std::move(s)));
}

Expected<HostReferenceProbe::Sample> HostReferenceProbe::Measure() {
  auto r = RunProbe(s_->engine, s_->volume->top(), s_->plan);
  if (!r.ok()) return Error{"host reference: " + r.error().message, r.error().kind};
  Sample out;
  for (const ProbeResult& p : *r) {
    if (!(p.median.iops > 0)) return MakeError("host reference: no I/O completed", ErrorKind::kIo);
    (p.point.is_read() ? out.read_ns_per_io : out.write_ns_per_io) = 1e9 / p.median.iops;
  }
  return out;
}

NodeCpuSpec ScaleCpuCosts(const NodeCpuSpec& cpu, double read, double write) {
  NodeCpuSpec c = cpu;
  auto times = [](Nanos n, double f) {
    return static_cast<Nanos>(std::llround(static_cast<double>(n) * f));
  };
  c.per_io = times(cpu.per_io, read);
  c.per_kib = times(cpu.per_kib, read);
  c.per_write_io = times(cpu.per_write_io != 0 ? cpu.per_write_io : cpu.per_io, write);
  c.per_write_kib = times(cpu.per_write_kib != 0 ? cpu.per_write_kib : cpu.per_kib, write);
  return c;
}

Expected<HostReferenceProbe*> CellHostReference::ProbeFor(const HostCpuReference& ref) {
  auto& p = probes_[{ref.dir, ref.region}];
  if (p == nullptr) {
    auto made = HostReferenceProbe::Make(ref);
    if (!made.ok()) return made.error();
    p = std::move(*made);
  }
  return p.get();
}

Expected<void> CellHostReference::Before(const MatrixCell& cell) {
  if (!cell.layout.cpu || !cell.layout.cpu->reference) return {};
  auto probe = ProbeFor(*cell.layout.cpu->reference);
  if (!probe.ok()) return probe.error();
  return {};
}

Expected<void> CellHostReference::After(const MatrixCell& cell, nlohmann::json& cell_json) {
  if (!cell.layout.cpu || !cell.layout.cpu->reference) return {};
  const HostCpuReference& ref = *cell.layout.cpu->reference;
  auto probe = ProbeFor(ref);
  if (!probe.ok()) return probe.error();
  auto now = (*probe)->Measure();
  if (!now.ok()) return now.error();

  cell_json["host_reference"] = {
      {"read_ns_per_io", Rounded(now->read_ns_per_io, 1)},
      {"write_ns_per_io", Rounded(now->write_ns_per_io, 1)},
      {"calibrated_read_ns_per_io", Rounded(ref.read_ns_per_io, 1)},
      {"calibrated_write_ns_per_io", Rounded(ref.write_ns_per_io, 1)},
      {"read_scale", Rounded(now->read_ns_per_io / ref.read_ns_per_io, 3)},
      {"write_scale", Rounded(now->write_ns_per_io / ref.write_ns_per_io, 3)}};
  return {};
}

Expected<void> ApplyHostReference(MatrixCell& cell, const nlohmann::json& measured_cell) {
  const auto ref = measured_cell.find("host_reference");
  if (ref == measured_cell.end() || !cell.layout.cpu) return {};
  auto bad = [&cell](const std::string& what) {
    return MakeError(
        "cell " + QuotedText(cell.label, '"', 256) + ": the measured host_reference " + what,
        ErrorKind::kInconsistent);
  };
  std::array<double, 2> scales{};
  constexpr std::array<const char*, 2> keys = {"read_scale", "write_scale"};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto s = ref->find(keys[i]);
    if (s == ref->end() || !s->is_number() || !(s->get<double>() > 0)) {
      return bad(std::string("has no ") + keys[i]);
    }
    scales[i] = s->get<double>();
  }
  cell.layout.cpu->cpu = ScaleCpuCosts(cell.layout.cpu->cpu, scales[0], scales[1]);
  return {};
}

}  // namespace tierlab
