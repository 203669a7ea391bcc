// tierlab run: one layout, one workload, one table.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "bench/lab/FioOutput.h"
#include "bench/lab/RunCell.h"
#include "bench/lab/RunReport.h"
#include "bench/trace/TraceFactory.h"
#include "bench/workload/ProfileLoader.h"
#include "bench/workload/TraceProfile.h"
#include "cli/Commands.h"
#include "cli/StatusPrinter.h"
#include "layouts/Layout.h"

namespace tierlab::cli {
namespace {

struct RunArgs {
  std::string layout;
  std::string profile = "4k-70-30";
  bool real = false;
  bool sim = false;
  std::string format = "table";
  int terse_version = kTerseVersion;
  std::string output;
  std::uint64_t seed = 0;
  bool seed_set = false;
  bool keep = false;
  bool with_data = false;
  bool ignore_unknown = false;
  std::string dir;
  // Trace replay (--trace): replaces the profile.
  std::string trace;
  std::string trace_format = "auto";
  bool skip_bad = false;
  std::string replay_mode = "closed";
  std::uint32_t iodepth = 0;  // 0: 1 closed loop, 256 open loop
  double replay_time_scale = 100;
  std::uint64_t replay_scale = 1;
  bool wrap = false;
  bool reject = false;
  bool quiet = false;
  std::string status_interval;
  double status_interval_s = 0;  // parsed
};

// Progress of one run (or replay) on stderr: StatusPrinter decides when.
// Wall time decides (a simulated second is not a wall second).
class RunStatus {
 public:
  RunStatus(bool quiet, double interval_s, std::string what)
      : printer_(quiet, interval_s),
        what_(std::move(what)),
        t0_(std::chrono::steady_clock::now()) {}
  void Update(const RunProgress& p) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    printer_.Maybe(wall, [&] {
      double frac = -1;
      if (p.planned > 0) frac = static_cast<double>(p.now) / static_cast<double>(p.planned);
      if (p.planned_ios > 0) frac = static_cast<double>(p.ios) / static_cast<double>(p.planned_ios);
      char buf[200];
      if (frac >= 0) {
        std::snprintf(buf, sizeof buf, "%s: %3.0f%%, %llu I/Os, %.1f s run time, %s elapsed",
                      what_.c_str(), 100 * std::min(frac, 1.0),
                      static_cast<unsigned long long>(p.ios), static_cast<double>(p.now) / 1e9,
                      FormatDuration(wall).c_str());
      } else {
        std::snprintf(buf, sizeof buf, "%s: %llu I/Os, %.1f s run time, %s elapsed", what_.c_str(),
                      static_cast<unsigned long long>(p.ios), static_cast<double>(p.now) / 1e9,
                      FormatDuration(wall).c_str());
      }
      return std::string(buf);
    });
  }
  // Completions between updates: few enough for a slow real device.
  static std::uint64_t Every(bool real) { return real ? 64 : 4096; }

 private:
  StatusPrinter printer_;
  std::string what_;
  std::chrono::steady_clock::time_point t0_;
};

// A trace replay is a TraceProfile (bench/workload/TraceProfile.h): what
// `--trace` and its options, or a trace profile file given to `--profile`,
// ask for.

// The replay that --trace and its options describe; exit code on bad options.
Expected<TraceProfile> ReplayFromArgs(const RunArgs& a) {
  TraceProfile spec;
  spec.name = IsStdinTrace(a.trace) ? std::string(kStdinTraceName)
                                    : std::filesystem::path(a.trace).filename().string();
  spec.trace = spec.path = a.trace;
  auto tf = ParseTraceFormat(a.trace_format);
  if (!tf) return MakeError("unknown trace format '" + a.trace_format + "'", ErrorKind::kInput);
  spec.trace_options.format = *tf;
  spec.trace_options.skip_bad = a.skip_bad;
  auto mode = ParseReplayMode(a.replay_mode);
  if (!mode.ok()) return MakeError(mode.error().message, ErrorKind::kInput);
  if (a.wrap && a.reject) return MakeError("--wrap and --reject are exclusive", ErrorKind::kInput);
  ReplaySpec& ro = spec.replay;
  ro.mode = *mode;
  ro.iodepth = a.iodepth != 0 ? a.iodepth : (*mode == ReplayMode::kOpen ? 256 : 1);
  ro.time_scale_percent = a.replay_time_scale;
  ro.replay_scale = a.replay_scale;
  ro.reject_past_end = a.reject;
  if (auto ok = CheckReplaySpec(ro); !ok) {
    // "replay: replay_time_scale: ..." as the option is spelt here.
    std::string m = ok.error().message;
    const std::size_t colon = m.find(':', 8);
    if (m.starts_with("replay: ") && colon != std::string::npos) {
      std::string option = m.substr(8, colon - 8);
      std::replace(option.begin(), option.end(), '_', '-');
      m = "--" + option + m.substr(colon);
    }
    return MakeError(m, ErrorKind::kInput);
  }
  return spec;
}

// `--profile file.json` naming a trace profile: nothing if it is not one.
// Its trace is relative to the file, as in a matrix.
Expected<std::optional<TraceProfile>> ReplayFromProfileFile(const std::string& file) {
  if (!file.ends_with(".json") || !std::filesystem::is_regular_file(file)) {
    return std::optional<TraceProfile>();
  }
  auto j = ReadJsonFile(file);
  if (!j.ok() || !IsTraceProfileJson(*j)) return std::optional<TraceProfile>();
  const std::string source = std::filesystem::path(file).filename().string();
  auto t = ParseTraceProfileJson(*j, source, std::filesystem::path(file).parent_path().string());
  if (!t.ok()) return t.error();
  return std::optional<TraceProfile>(std::move(t.value()));
}

// One of --output-format's comma-separated list: tierlab's table formats,
// fio's "normal" (the table), "json+" and "terse".
struct OutputFormat {
  TableFormat table = TableFormat::kTable;
  bool json_plus = false;
  bool terse = false;
};

Expected<std::vector<OutputFormat>> ParseOutputFormats(std::string_view list) {
  std::vector<OutputFormat> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view f = list.substr(at, comma - at);
    OutputFormat o;
    if (f == "json+") {
      o.table = TableFormat::kJson, o.json_plus = true;
    } else if (f == "terse") {
      o.terse = true;
    } else if (f == "normal") {
      o.table = TableFormat::kTable;
    } else {
      auto t = ParseTableFormat(f);
      if (!t.ok()) {
        return MakeError("--format: unknown \"" + std::string(f) +
                         "\"; known: table (normal), json, json+, terse, csv, md");
      }
      o.table = *t;
    }
    out.push_back(o);
    at = comma + 1;
  }
  return out;
}

// The notes and exit code of one finished run or replay.
int Outcome(const CellRun& c) {
  int code = kExitOk;
  if (c.replay) {
    const std::string& trace = c.json["replay"].value("trace", std::string());
    if (c.replay->bad_records > 0) {
      std::fprintf(stderr, "tierlab: %s: skipped %llu malformed record(s)\n", trace.c_str(),
                   static_cast<unsigned long long>(c.replay->bad_records));
    }
    if (c.replay->rejected > 0) {
      std::fprintf(stderr, "tierlab: %s: rejected %llu record(s) past the end of the volume\n",
                   trace.c_str(), static_cast<unsigned long long>(c.replay->rejected));
      code = kExitIo;
    }
  }
  const auto& job = c.json["jobs"][0];
  const JobErrors& errors = c.run.errors;
  if (c.replay && job["read"].value("errors", 0) + job["write"].value("errors", 0) > 0) {
    code = kExitIo;
  }
  if (errors.ended_job) {
    // As fio's exit status: a job that an error ended fails the run; a
    // verify mismatch or a missed latency_target is a failed check.
    std::fprintf(stderr, "tierlab: %s: %s ended the job (continue_on_error: %s)\n",
                 c.profile.name.c_str(), ErrnoName(errors.error).c_str(),
                 ContinueOnErrorText(c.profile.continue_on_error).c_str());
    code = errors.error == EILSEQ || errors.error == ETIMEDOUT ? kExitCheckFailed : kExitIo;
  }
  if (errors.total > 0) {
    std::fprintf(stderr,
                 "tierlab: %s: went on after %llu error(s), the first %s (continue_on_error)\n",
                 c.profile.name.c_str(), static_cast<unsigned long long>(errors.total),
                 ErrnoName(errors.first).c_str());
  }
  if (c.run.verify.mismatches > 0) {
    // Data read back is not what was written.
    std::fprintf(stderr,
                 "tierlab: %s: verify: %llu read(s) differ from what was written, first at "
                 "offset %llu\n",
                 c.profile.name.c_str(), static_cast<unsigned long long>(c.run.verify.mismatches),
                 static_cast<unsigned long long>(c.run.verify.first_bad.front()));
  } else if (c.run.verify.enabled && !c.run.verify.checked && c.profile.verify != "null") {
    std::fprintf(stderr,
                 "tierlab: %s: verify: nothing checked, the volume carries no data (use --real "
                 "or a with-data model)\n",
                 c.profile.name.c_str());
  }
  return code;
}

int RunOne(RunArgs a) {
  if (a.real && a.sim) return Fail("--sim and --real are exclusive", kExitUsage);
  if (a.real && a.with_data)
    return Fail("--with-data is for simulations; --real runs carry data", kExitUsage);
  if (!a.status_interval.empty()) {
    auto i = ParseStatusInterval(a.status_interval);
    if (!i.ok()) return Fail(i.error().message, kExitUsage);
    a.status_interval_s = *i;
  }
  auto formats = ParseOutputFormats(a.format);
  if (!formats.ok()) return Fail(formats.error().message, kExitUsage);
  if (a.terse_version != kTerseVersion) {
    return Fail("--terse-version: only " + std::to_string(kTerseVersion) + " is written, got " +
                    std::to_string(a.terse_version),
                kExitUsage);
  }

  Expected<LayoutSpec> layout = a.layout.empty()
                                    ? ParseLayoutJson(DefaultLayoutJson(), "default layout")
                                    : LoadLayout(a.layout);
  if (!layout.ok()) return Fail(layout.error());
  // The workload: --trace, a trace profile file, or fio-style profiles.
  std::optional<TraceProfile> replay;
  if (!a.trace.empty()) {
    auto spec = ReplayFromArgs(a);
    if (!spec.ok()) return Fail(spec.error());
    replay = std::move(*spec);
  } else {
    auto spec = ReplayFromProfileFile(a.profile);
    if (!spec.ok()) return Fail(spec.error());
    replay = std::move(*spec);
  }
  ProfileLoadInfo info;
  auto profiles = !replay ? LoadProfiles(a.profile, a.ignore_unknown, &info)
                          : Expected<std::vector<Profile>>(std::vector<Profile>{});
  if (!profiles.ok()) return Fail(profiles.error());
  if (!info.ignored.empty()) {
    std::string names;
    for (const std::string& n : info.ignored) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "tierlab: %s: ignored unknown option(s): %s\n", a.profile.c_str(),
                 names.c_str());
  }
  for (const std::string& n : info.notes) std::fprintf(stderr, "tierlab: note: %s\n", n.c_str());

  RunSettings settings;
  settings.engine = a.real ? EngineKind::kReal : EngineKind::kSimulated;
  settings.build_seed = a.seed_set ? a.seed : 1;
  if (a.seed_set) settings.randseed = a.seed;
  settings.keep_files = a.keep;
  settings.with_data = a.with_data;
  std::string made_dir;
  if (a.real) {
    if (!a.dir.empty()) {
      settings.device_dir = a.dir;
    } else {
      std::string tmpl = (std::filesystem::temp_directory_path() / "tierlab-run-XXXXXX").string();
      if (mkdtemp(tmpl.data()) == nullptr)
        return Fail("cannot create a temp dir in " + tmpl, kExitIo);
      settings.device_dir = made_dir = tmpl;
    }
  }
  // fio's logs of each section, opened before anything runs; N counts every
  // clone of the sections before, as fio numbers its jobs.
  std::vector<std::unique_ptr<FioLogs>> logs;
  if (profiles.ok()) {
    std::uint32_t index = 1;
    for (const Profile& p : *profiles) {
      auto l = FioLogs::Open(p, index);
      if (!l.ok()) return Fail(l.error());
      logs.push_back(std::move(*l));
      index += p.numjobs;
    }
  }
  std::size_t started = 0;  // profiles started so far: RunCell runs them in order
  // One per section or replay, alive until the run ends: sections that
  // start together report progress side by side (replacing one status per
  // section left the earlier sections' callbacks on a freed one).
  std::vector<std::unique_ptr<RunStatus>> statuses;
  settings.run_options = [&a, &statuses, &logs, &started](const std::string& label) {
    statuses.push_back(std::make_unique<RunStatus>(a.quiet, a.status_interval_s, label));
    RunStatus* status = statuses.back().get();
    RunOptions ro;
    if (started < logs.size()) ro.logs = logs[started].get();
    ++started;
    ro.progress = [status](const RunProgress& pr) { status->Update(pr); };
    ro.progress_every = RunStatus::Every(a.real);
    return ro;
  };
  const Workload workload = replay ? Workload{std::move(*replay)} : Workload{std::move(*profiles)};
  auto runs = RunCell(*layout, workload, settings);
  statuses.clear();
  if (!made_dir.empty() && !a.keep) {
    std::error_code ec;
    std::filesystem::remove_all(made_dir, ec);
  } else if (!made_dir.empty()) {
    std::fprintf(stderr, "tierlab: kept device files in %s\n", made_dir.c_str());
  }
  for (auto& l : logs) {
    if (l == nullptr) continue;
    if (auto ok = l->Finish(); !ok) return Fail(ok.error());
  }
  if (!runs.ok()) return Fail(runs.error());
  int code = kExitOk;
  std::vector<nlohmann::json> docs, docs_plus;  // docs_plus: with json+'s bins
  for (std::size_t i = 0; i < runs->size(); ++i) {
    CellRun& c = (*runs)[i];
    // fio's "job options" are what the section wrote, where there is one.
    if (i < info.job_options.size()) c.json["jobs"][0]["job options"] = info.job_options[i];
    code = std::max(code, Outcome(c));
    docs.push_back(c.json);
    AddClatBins(c.json["jobs"][0], c.run.metrics);
    docs_plus.push_back(c.json);
  }
  // JSON: one document for the whole run, fio's jobs[] over every section;
  // the formats in the order asked, as fio prints a list.
  std::string out;
  for (const OutputFormat& f : *formats) {
    if (f.terse) {
      out += FormatTerse(CombineRuns(docs_plus, info.global_options));
    } else if (f.table == TableFormat::kJson) {
      out += CombineRuns(f.json_plus ? docs_plus : docs, info.global_options).dump(2) + "\n";
    } else {
      for (const nlohmann::json& d : docs) out += FormatRun(d, f.table);
    }
  }
  const int written = WriteOutput(a.output, out);
  return written != kExitOk ? written : code;
}

}  // namespace

void RegisterRunCommand(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run =
      app.add_subcommand("run", "Run one workload profile on one layout and print the results");
  run->add_option("--layout,-l", args->layout,
                  "Layout: a JSON file or a shorthand such as nvme2+hdd4 (default: nvme2+hdd4)");
  run->add_option("--profile,-p", args->profile,
                  "Profile: a builtin name, a profile JSON file (a trace profile replays its "
                  "trace) or a fio job file")
      ->capture_default_str();
  run->add_flag("--sim", args->sim, "Simulated time on device models (default)");
  run->add_flag("--real", args->real,
                "Real time through libaio on the layout's paths or temp files");
  run->add_option("--format,-f,--output-format", args->format,
                  "table (fio: normal), json, json+, terse, csv or md; a comma list prints "
                  "several, in order")
      ->capture_default_str();
  run->add_option("--terse-version", args->terse_version,
                  "terse: the format version (only fio's 3 is written)")
      ->capture_default_str();
  run->add_option("--output,-o", args->output, "Write the results to this file instead of stdout");
  run->add_option("--seed", args->seed, "Random seed (sets the profile's randseed)")
      ->each([args](const std::string&) { args->seed_set = true; });
  run->add_flag("--with-data", args->with_data,
                "Simulation: device models keep the data written, so verify= compares it "
                "(memory: what the run writes)");
  run->add_flag("--keep", args->keep, "--real: keep the device files created in the temp dir");
  run->add_option("--dir", args->dir,
                  "--real: where to create device files (default: a new temp dir)");
  run->add_flag("--ignore-unknown", args->ignore_unknown,
                "Ignore fio options tierlab does not support");
  run->add_option("--trace", args->trace,
                  "Replay this block trace instead of a profile (- reads standard input; gzip, "
                  "zstd and xz compressed traces are read directly)");
  run->add_option("--trace-format", args->trace_format,
                  "Trace format: " + TraceFormatChoices() + " (default: detected)");
  run->add_flag("--skip-bad", args->skip_bad, "--trace: skip malformed records (counted)");
  run->add_option("--replay-mode", args->replay_mode,
                  "--trace: closed (as fast as the stack allows) or open (trace timestamps)")
      ->capture_default_str();
  run->add_option("--iodepth", args->iodepth,
                  "--trace: outstanding requests (default 1 closed loop, 256 open loop)");
  run->add_option(
         "--replay_time_scale,--replay-time-scale", args->replay_time_scale,
         "--trace, open loop: % of the trace's I/O rate (fio's meaning: 50 = half as fast)")
      ->capture_default_str();
  run->add_option("--replay_scale,--replay-scale", args->replay_scale,
                  "--trace: divide trace offsets by this factor (fio's replay_scale)")
      ->capture_default_str();
  run->add_flag("--wrap", args->wrap, "--trace: wrap offsets past the volume end (default)");
  run->add_flag("--reject", args->reject,
                "--trace: reject records past the volume end (counted, exit 3)");
  run->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  run->add_option("--status-interval", args->status_interval,
                  "Print a status line every this many seconds (fio time: 30, 500ms, 1m; "
                  "default: after 3 s, in place on a terminal, else every 10 s)");
  run->callback([args, &result] { result.exit_code = RunOne(*args); });
}

}  // namespace tierlab::cli
