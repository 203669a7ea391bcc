#include "bench/lab/RunCell.h"

#include <type_traits>

#include "bench/lab/RunReport.h"
#include "bench/trace/TraceFactory.h"

namespace tierlab {
namespace {

class CellRunner {
 public:
  CellRunner(Engine& engine, Volume& volume, const RunSettings& s)
      : engine_(engine), volume_(volume), s_(s) {}

  // Sections run one after another on the volume; each reports its devices
  // over its own window, and the last also the whole run's.
  Expected<void> Run(const std::vector<Profile>& profiles) {
    DeviceWindow whole;
    whole.Begin(volume_);
    for (Profile p : profiles) {
      if (s_.randseed) p.randseed = *s_.randseed;
      RunOptions ro = Options("run " + p.name);
      whole.KeepPeaks(volume_);
      DeviceWindow section;
      section.Begin(volume_);
      auto r = RunWorkload(engine_, volume_.top(), p, ro);
      if (!r.ok()) return r.error();
      CellRun c;
      RunMeta meta = Meta(p.randseed);
      meta.devices = &section;
      c.json = MakeRunJson(*r, p, volume_, meta);
      c.run = *r;
      c.profile = std::move(p);
      runs_.push_back(std::move(c));
    }
    if (runs_.size() > 1) {
      whole.KeepPeaks(volume_);
      runs_.back().json["whole_run"] = whole.Json(volume_);
    }
    return {};
  }

  Expected<void> Run(const TraceProfile& t) {
    auto reader = OpenTrace(t.path, t.trace_options);
    if (!reader.ok()) return reader.error();
    ReplayOptions ro{t.replay};
    ro.run = Options("replay " + t.name);
    DeviceWindow window;
    window.Begin(volume_);
    auto r = ReplayTrace(engine_, volume_.top(), **reader, ro);
    if (!r.ok()) return r.error();
    CellRun c;
    c.profile = ReplayProfile(t.name, t.replay, *r);
    c.trace_format = (*reader)->format();
    RunMeta meta = Meta(0);
    meta.devices = &window;
    c.json = MakeRunJson(r->run, c.profile, volume_, meta);
    c.json["replay"] = ReplayToJson(t.trace, c.trace_format, t.replay, *r);
    c.run = r->run;
    c.replay = std::move(*r);
    runs_.push_back(std::move(c));
    return {};
  }

  std::vector<CellRun> Take() { return std::move(runs_); }

 private:
  RunOptions Options(const std::string& label) const {
    RunOptions ro = s_.run_options ? s_.run_options(label) : RunOptions{};
    if (s_.cancel != nullptr) ro.cancel = s_.cancel;
    return ro;
  }
  RunMeta Meta(std::uint64_t own_seed) const {
    return RunMeta{EngineKindName(s_.engine), s_.reported_seed.value_or(own_seed)};
  }

  Engine& engine_;
  Volume& volume_;
  const RunSettings& s_;
  std::vector<CellRun> runs_;
};

}  // namespace

Expected<std::vector<CellRun>> RunCell(const LayoutSpec& layout, const Workload& workload,
                                       const RunSettings& settings) {
  const std::unique_ptr<Engine> engine = MakeEngine(settings.engine);
  BuildOptions bo;
  bo.seed = settings.build_seed;
  bo.temp_dir = settings.device_dir;
  bo.keep_files = settings.keep_files;
  auto volume = BuildVolume(*engine, layout, bo);
  if (!volume.ok()) return volume.error();
  if (settings.before) {
    if (auto ok = settings.before(*engine, *volume); !ok.ok()) return ok.error();
  }
  CellRunner runner(*engine, *volume, settings);
  auto ran = std::visit([&runner](const auto& w) { return runner.Run(w); }, workload);
  if (!ran.ok()) return ran.error();
  if (settings.after) settings.after(*engine, *volume);
  return runner.Take();
}

}  // namespace tierlab
