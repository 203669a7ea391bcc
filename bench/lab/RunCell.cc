#include "bench/lab/RunCell.h"

#include <algorithm>
#include <memory>
#include <type_traits>

#include "bench/lab/CachePhases.h"
#include "bench/lab/FailureSchedule.h"
#include "bench/lab/FunctionalWarmup.h"
#include "bench/lab/LogReserveWatch.h"
#include "bench/lab/Preparation.h"
#include "bench/lab/RunReport.h"
#include "bench/trace/TraceFactory.h"
#include "bench/workload/JobFiles.h"

namespace tierlab {
namespace {

class CellRunner {
 public:
  CellRunner(Engine& engine, Volume& volume, const RunSettings& s, const ClusterSpec* cluster)
      : engine_(engine), volume_(volume), s_(s), cluster_(cluster) {}

  // Sections run in groups, as fio's jobs do: a section with stonewall
  // starts a group, and the sections of a group start together. Each
  // section reports its devices over its group's window (the devices are
  // shared), and the last also the whole run's. The job file's files are
  // laid out once, so a file named by several groups is one region.
  Expected<void> Run(std::vector<Profile> profiles) {
    for (Profile& p : profiles) {
      if (s_.randseed) p.randseed = *s_.randseed;
    }
    auto files = LayOutFiles(profiles, volume_.top().Size(), volume_.top().BlockSize());
    if (!files.ok()) return files.error();
    // What the volume holds, for verify: across groups, so that a section
    // after a stonewall checks what the ones before it wrote.
    std::unique_ptr<VerifyOracle> oracle;
    if (std::any_of(profiles.begin(), profiles.end(),
                    [](const Profile& p) { return !p.verify.empty(); })) {
      oracle = std::make_unique<VerifyOracle>(volume_.top().BlockSize());
    }
    // fio's flow and exitall span the run: every job joins its flow before
    // any starts, and one job's exitall holds for all.
    FlowControl flows;
    bool exitall = false;
    for (const Profile& p : profiles) {
      for (std::uint32_t j = 0; j < p.numjobs && p.flow != 0; ++j) flows.Join(p.flow_id, p.flow);
      exitall = exitall || p.exitall;
    }
    // fio's groupid: stonewall and new_group start a reporting group.
    std::vector<int> groupids(profiles.size(), 0);
    for (std::size_t i = 1; i < profiles.size(); ++i) {
      groupids[i] = groupids[i - 1] + (profiles[i].stonewall || profiles[i].new_group ? 1 : 0);
    }
    DeviceWindow whole;
    whole.Begin(volume_);
    std::unique_ptr<FailureSchedule> failures;
    bool ended_run = false;  // exit_what=all: the later sections do nothing
    // fio's thread numbers, for dedupe_global: every job of the run, in order.
    std::uint32_t run_jobs = 0;
    for (const Profile& p : profiles) run_jobs += p.numjobs;
    std::uint32_t first_job = 0;
    for (std::size_t first = 0; first < profiles.size();) {
      std::size_t end = first + 1;
      while (end < profiles.size() && !profiles[end].stonewall) ++end;
      std::vector<SectionWork> work;
      // The sections' cache phases (CachePhases.h), begun once the phases
      // before the timed run are done.
      std::vector<std::unique_ptr<CachePhases>> phases(end - first);
      for (std::size_t i = first; i < end; ++i) {
        SectionWork w{&profiles[i], {}, Options("run " + profiles[i].name), oracle.get()};
        for (std::uint32_t j = 0; j < profiles[i].numjobs && files->uses_files; ++j) {
          w.files.push_back(files->RegionsOf(i, j));
        }
        w.flows = &flows;
        w.groupid = groupids[i];
        w.exitall = exitall;
        w.terminated = ended_run;
        if (CacheTarget* cache = volume_.cache(); cache != nullptr) {
          std::unique_ptr<CachePhases>* slot = &phases[i - first];
          w.options.round = RoundOf(profiles[i]);
          w.options.on_round = [slot, cache](Nanos now) {
            if (*slot) (*slot)->Round(now, cache->cache_stats());
          };
          w.options.absorbing = [slot] { return *slot && (*slot)->filling(); };
        }
        if (auto logs = LogTiers(); !logs.empty()) {
          // The logs' free segments are watched from the first round of the
          // timed run (the round hook starts with it), as the cache phases.
          auto watch = std::make_shared<LogReserveWatch>(std::move(logs));
          w.options.round = RoundOf(profiles[i]);
          w.options.on_round = [cache_round = std::move(w.options.on_round), watch](Nanos now) {
            if (cache_round) cache_round(now);
            watch->Round();
          };
          w.options.absorbing = [cache_filling = std::move(w.options.absorbing), watch] {
            return (cache_filling && cache_filling()) || watch->draining();
          };
        }
        w.clients = volume_.clients();
        w.first_job = first_job;
        w.run_jobs = run_jobs;
        first_job += profiles[i].numjobs;
        work.push_back(std::move(w));
      }
      // The phases before the timed run (Preparation.h, FunctionalWarmup.h);
      // the sections' device figures count from after them.
      auto prep = PrepareRegions(engine_, volume_.top(), work, oracle.get());
      if (!prep.ok()) return prep.error();
      // A working set that fits the read cache is read into it first
      // (FunctionalWarmup.h); not where a tier's heat would count the reads.
      // On a cluster, one that fits every node's read cache (each client's
      // reads then fit the node it reads from, whichever that is).
      std::uint64_t fill_within = 0;
      auto read_cache_bytes = [](const CacheTarget* c, const TierTarget* tier) -> std::uint64_t {
        if (c == nullptr || !c->config().read || tier != nullptr) return 0;
        return c->capacity_lines() * c->line_size();
      };
      if (volume_.cluster() == nullptr) {
        fill_within = read_cache_bytes(volume_.cache(), volume_.tier_target());
      } else {
        const auto& caches = volume_.node_caches();
        for (std::size_t n = 0; n < caches.size(); ++n) {
          const std::uint64_t b = read_cache_bytes(caches[n], volume_.node_tier_targets()[n]);
          fill_within = n == 0 ? b : std::min(fill_within, b);
        }
      }
      auto warm = FunctionalWarmup(volume_.top(), work, fill_within);
      if (!warm.ok()) return warm.error();
      whole.KeepPeaks(volume_);
      DeviceWindow window;
      window.Begin(volume_);
      if (CacheTarget* cache = volume_.cache(); cache != nullptr) {
        for (auto& p : phases)
          p = std::make_unique<CachePhases>(engine_.Now(), cache->cache_stats());
      }
      // A cluster's failures count from the start of the first timed run.
      if (!failures && cluster_ != nullptr && !cluster_->failures.empty()) {
        failures = std::make_unique<FailureSchedule>(engine_, *volume_.cluster(), *cluster_,
                                                     volume_.failure_shares());
        failures->Begin();
      }
      auto r = RunSections(engine_, volume_.top(), work);
      if (!r.ok()) return r.error();
      for (std::size_t i = first; i < end; ++i) {
        CellRun c;
        RunMeta meta = Meta(profiles[i].randseed);
        meta.devices = &window;
        c.run = std::move((*r)[i - first]);
        c.json = MakeRunJson(c.run, profiles[i], volume_, meta);
        nlohmann::json& job = c.json["jobs"][0];
        job["groupid"] = groupids[i];
        ended_run = ended_run || c.run.ended_run;
        if (files->uses_files) job["files"] = FilesJson(*files, i);
        if (*prep && profiles[i].precondition != Precondition::kNone) {
          job["precondition"] = (*prep)->Json(profiles[i]);
        }
        if (*warm && profiles[i].warmup_fast) job["warmup"] = (*warm)->Json();
        if (phases[i - first]) job["phases"] = phases[i - first]->Json(c.run.start);
        c.profile = std::move(profiles[i]);
        runs_.push_back(std::move(c));
      }
      first = end;
    }
    if (failures) {
      failures->End();
      runs_.back().json["cluster_failures"] = failures->Json();
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
    // A cluster's failures count from the replay's start, as from a job's.
    std::unique_ptr<FailureSchedule> failures;
    if (cluster_ != nullptr && !cluster_->failures.empty()) {
      failures = std::make_unique<FailureSchedule>(engine_, *volume_.cluster(), *cluster_,
                                                   volume_.failure_shares());
      failures->Begin();
    }
    auto r = ReplayTrace(engine_, volume_.top(), **reader, ro);
    if (!r.ok()) return r.error();
    CellRun c;
    c.profile = ReplayProfile(t.name, t.replay, *r);
    c.trace_format = (*reader)->format();
    RunMeta meta = Meta(0);
    meta.devices = &window;
    c.json = MakeRunJson(r->run, c.profile, volume_, meta);
    c.json["replay"] = ReplayToJson(t.trace, c.trace_format, t.replay, *r);
    if (failures) {
      failures->End();
      c.json["cluster_failures"] = failures->Json();
    }
    c.run = r->run;
    c.replay = std::move(*r);
    runs_.push_back(std::move(c));
    return {};
  }

  std::vector<CellRun> Take() { return std::move(runs_); }

 private:
  // The section's files: fio's names and where each lies on the volume.
  static nlohmann::json FilesJson(const FileLayout& layout, std::size_t section) {
    nlohmann::json out = nlohmann::json::array();
    std::vector<bool> seen(layout.files.size());
    for (const auto& job : layout.files_of[section]) {
      for (std::uint32_t f : job) {
        if (seen[f]) continue;
        seen[f] = true;
        const JobFile& file = layout.files[f];
        out.push_back(
            {{"name", file.name}, {"offset", file.region.offset}, {"size", file.region.length}});
      }
    }
    return out;
  }

  // A section's rounds for its cache phases: its steady-state interval, or
  // a twentieth of its ramp and runtime (at least 1 ms), or a second.
  std::vector<const LogStructuredTarget*> LogTiers() const {
    std::vector<const LogStructuredTarget*> logs;
    for (const TierView& t : volume_.tiers()) {
      if (t.log != nullptr) logs.push_back(t.log);
    }
    return logs;
  }

  static Nanos RoundOf(const Profile& p) {
    if (p.ss.dur != 0) return p.ss.interval;
    if (p.runtime > 0) return std::max<Nanos>(kMilli, (p.ramp_time + p.runtime) / 20);
    return kSecond;
  }

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
  const ClusterSpec* cluster_;  // the layout's cluster section, or null
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
  bo.with_data = settings.with_data;
  auto volume = BuildVolume(*engine, layout, bo);
  if (!volume.ok()) return volume.error();
  if (settings.before) {
    if (auto ok = settings.before(*engine, *volume); !ok.ok()) return ok.error();
  }
  CellRunner runner(*engine, *volume, settings, layout.cluster ? &*layout.cluster : nullptr);
  auto ran = std::visit([&runner](const auto& w) { return runner.Run(w); }, workload);
  if (!ran.ok()) return ran.error();
  if (settings.after) settings.after(*engine, *volume);
  return runner.Take();
}

}  // namespace tierlab
