#pragma once
// One cell of work: a layout, a workload and how to run it. RunCell builds
// the volume, runs the profiles or replays the trace, and returns each run's
// result and its results JSON. `tierlab run`, the matrix runner and the
// write-cache analyzer all run through it, so what a run is (and the phases
// a run grows: preparation, warm-up, steady state) lives in one place.
//
// Errors: the layout's, the trace's and the run's own (their exit codes).

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/lab/Runner.h"
#include "bench/lab/TraceReplay.h"
#include "bench/trace/TraceFormat.h"
#include "bench/workload/Workload.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/EngineKind.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct RunSettings {
  EngineKind engine = EngineKind::kSimulated;
  std::uint64_t build_seed = 1;           // device models' seed (BuildOptions::seed)
  std::optional<std::uint64_t> randseed;  // set: replaces every profile's randseed
  // The seed the results JSON reports; unset: the profile's randseed (0 for
  // a replay). A matrix reports its cell's seed.
  std::optional<std::uint64_t> reported_seed;
  // Simulation: the models keep the data written (BuildOptions::with_data),
  // so that verify compares contents.
  bool with_data = false;
  std::string device_dir;   // real: where devices without paths are created
  bool keep_files = false;  // real: leave the created files behind
  // Per profile or replay, by its label ("run NAME", "replay NAME"): the
  // runner's options (progress). Unset: defaults.
  std::function<RunOptions(const std::string& label)> run_options;
  const std::atomic<bool>* cancel = nullptr;  // simulated runs stop when it reads true
  // Hooks on the built volume, for a sampler that watches the run (the
  // write-cache analyzer's): `before` runs once before the workload starts
  // and can refuse the volume; `after` once after the workload ends.
  std::function<Expected<void>(Engine&, Volume&)> before;
  std::function<void(Engine&, Volume&)> after;
};

struct CellRun {
  Profile profile;  // as run; for a replay, ReplayProfile's description
  RunResult run;
  std::optional<ReplayResult> replay;  // set for a replay
  TraceFormat trace_format = TraceFormat::kAuto;
  nlohmann::json json;  // the run's results JSON (RunReport.h), "replay" included
};

Expected<std::vector<CellRun>> RunCell(const LayoutSpec& layout, const Workload& workload,
                                       const RunSettings& settings);

}  // namespace tierlab
