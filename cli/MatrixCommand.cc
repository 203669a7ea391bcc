// tierlab matrix: expand a matrix file, run its cells in parallel, write the
// results JSON and print a report. tierlab merge: join shard results.

#include <signal.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixResults.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/Report.h"
#include "cli/Commands.h"
#include "cli/StatusPrinter.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"
#include "tierlab/Version.h"

namespace tierlab::cli {
namespace {

struct MatrixArgs {
  std::string file;
  unsigned jobs = 0;
  std::string shard = "1/1";
  std::string output;
  std::string format = "table";
  bool quiet = false;
  bool list = false;
  bool force = false;
  bool resume = false;
  std::string status_interval;
};

// SIGINT/SIGTERM during a matrix: the first asks the runner to stop (the
// cells finished so far are saved); a second one kills, as by default.
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};

extern "C" void OnStopSignal(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal.store(sig);
}

class StopSignals {
 public:
  StopSignals() {
    g_stop.store(false);
    g_signal.store(0);
    struct sigaction sa {};
    sa.sa_handler = OnStopSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Saves the results file as cells finish: at once when asked (stopping,
// the end), else at most about once a second and never for more than a
// tenth of the wall time (each save rewrites the whole file).
class ResultsSaver {
 public:
  explicit ResultsSaver(std::string path) : path_(std::move(path)) {}
  Expected<void> Maybe(const ResultsFile& r, double now_s, bool now) {
    if (path_.empty() || r.size() == saved_) return {};
    if (!now && now_s < last_s_ + std::max(1.0, 10 * cost_s_)) return {};
    const auto t0 = std::chrono::steady_clock::now();
    auto w = r.WriteAtomic(path_);
    if (!w.ok()) return w;
    cost_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    last_s_ = now_s;
    saved_ = r.size();
    return {};
  }

 private:
  std::string path_;
  std::size_t saved_ = SIZE_MAX;
  double last_s_ = 0;
  double cost_s_ = 0;
};

std::string MatrixStatus(const MatrixProgress& p) {
  const double eta =
      p.done > 0 ? p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.total - p.done)
                 : 0;
  char head[200];
  std::snprintf(
      head, sizeof head, "matrix: %llu/%llu cells (%.0f%%), %s elapsed, ETA %s",
      static_cast<unsigned long long>(p.done), static_cast<unsigned long long>(p.total),
      p.total > 0 ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 100.0,
      FormatDuration(p.elapsed_s).c_str(), p.done > 0 ? FormatDuration(eta).c_str() : "?");
  std::string line = head;
  if (!p.running.empty()) {
    std::string current = p.running.front()->label;
    if (current.size() > 60) current = current.substr(0, 57) + "...";
    line += ", running " + current;
    if (p.running.size() > 1) line += " +" + std::to_string(p.running.size() - 1);
  }
  return line;
}

// "3.2 h", "12 days" for a figure in seconds.
std::string Human(double s) {
  char buf[64];
  if (s < 120) {
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  } else if (s < 7200) {
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  } else if (s < 2 * 86400) {
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  } else if (s < 2 * 365.25 * 86400) {
    std::snprintf(buf, sizeof buf, "%.0f days", s / 86400);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g years", s / (365.25 * 86400));
  }
  return buf;
}

// The one-line refusal of a run with more cells than a matrix takes
// without --force, with what they would cost.
std::string TooManyCells(const MatrixPlan& plan, std::uint64_t cells, const Shard& shard) {
  std::string what =
      cells == UINT64_MAX ? "more than 1.8e19 cells" : std::to_string(cells) + " cells";
  if (shard.count > 1) what += " in shard " + shard.ToString();
  std::string cost;
  if (const double per_cell = plan.MeanSimulatedSeconds(); per_cell > 0) {
    cost = "; at " + Human(per_cell) + " of simulated ramp + runtime per cell, about " +
           Human(per_cell * static_cast<double>(cells)) + " of simulated time";
  }
  return plan.spec().source + ": " + what + ", more than the " +
         std::to_string(kMaxCellsWithoutForce) + " a matrix runs without --force" + cost +
         " (narrow the axes, split it with --shard i/N, or pass --force)";
}

// --list: the shard's cells, streamed. Below the --force limit every cell
// is expanded first, so that a bad cell fails before anything is printed.
int ListCells(const MatrixPlan& plan, const Shard& shard, bool validate_first) {
  if (validate_first) {
    ScanOptions so;
    so.build = false;
    auto scan = ScanMatrix(plan, so);
    if (!scan.ok()) return Fail(scan.error());
  }
  auto cursor = plan.Cells([&shard](std::uint64_t k) { return shard.Contains(k); });
  MatrixCell c;
  while (true) {
    auto more = cursor.Next(&c);
    if (!more.ok()) return Fail(more.error());
    if (!*more) break;
    if (std::printf("%zu %s %s\n", c.index, c.id.c_str(), c.label.c_str()) < 0) {
      return Fail("--list: cannot write to stdout", kExitIo);
    }
  }
  return kExitOk;
}

int RunMatrixCommand(const MatrixArgs& a) {
  auto fmt = ParseReportFormat(a.format);
  if (!fmt.ok()) return Fail(fmt.error().message, kExitUsage);
  auto shard = ParseShard(a.shard);
  if (!shard.ok()) return Fail(shard.error().message, kExitUsage);
  double interval = 0;
  if (!a.status_interval.empty()) {
    auto i = ParseStatusInterval(a.status_interval);
    if (!i.ok()) return Fail(i.error().message, kExitUsage);
    interval = *i;
  }
  if (a.resume && a.output.empty()) {
    return Fail("--resume needs -o FILE, the results file to continue", kExitUsage);
  }
  auto spec = LoadMatrixFile(a.file);
  if (!spec.ok()) return Fail(spec.error());
  auto plan = MatrixPlan::Make(*spec);
  if (!plan.ok()) return Fail(plan.error());
  const std::uint64_t cells = plan->ShardSize(*shard);
  if (cells > kMaxCellsWithoutForce && !a.force) {
    return Fail(TooManyCells(*plan, cells, *shard), kExitUsage);
  }
  if (a.list) return ListCells(*plan, *shard, /*validate_first=*/!a.force);

  // A resumed file's cells must be this matrix's: the scan, which expands
  // every cell anyway, compares their ids and seeds.
  std::optional<nlohmann::json> previous;
  std::map<std::uint64_t, ExpectedCell> expect;
  if (a.resume) {
    std::error_code ec;
    if (std::filesystem::exists(a.output, ec)) {
      auto j = ReadJsonFile(a.output);
      if (!j.ok()) return Fail(j.error());
      auto shape = CheckResultsJson(*j, a.output);
      if (!shape.ok()) return Fail(shape.error());
      for (const auto& c : j->at("cells")) {
        expect[c.at("index").get<std::uint64_t>()] =
            ExpectedCell{c.at("id").get<std::string>(), c.value("seed", std::uint64_t{0})};
      }
      previous = std::move(j.value());
    } else if (!a.quiet) {
      std::fprintf(stderr, "tierlab: %s does not exist yet: running every cell\n",
                   a.output.c_str());
    }
  }
  ScanOptions so;
  so.build = true;
  if (previous) {
    so.expect = &expect;
    so.expect_source = a.output;
  }
  auto hash = ScanMatrix(*plan, so);
  if (!hash.ok()) return Fail(hash.error());

  ResultsFile results(MakeResultsHeader(*plan, *hash, *shard));
  std::set<std::uint64_t> skip;
  if (previous) {
    auto loaded = LoadResumedCells(*previous, a.output,
                                   ResumeKey{*hash, shard->ToString(), kVersion}, results);
    if (!loaded.ok()) return Fail(loaded.error());
    for (const auto& [index, cell] : expect) skip.insert(index);
    previous.reset();
    if (!a.quiet) {
      std::fprintf(stderr, "tierlab: resuming %s: %zu of %llu cells already done\n",
                   a.output.c_str(), skip.size(), static_cast<unsigned long long>(cells));
    }
  }

  StatusPrinter printer(a.quiet, interval);
  ResultsSaver saver(a.output);
  std::optional<Error> save_error;
  StopSignals signals;
  MatrixRunOptions o;
  o.jobs = a.jobs;
  o.shard = *shard;
  o.skip = &skip;
  o.stop = &g_stop;
  o.tick = [&](const MatrixProgress& p, const ResultsFile& r) {
    printer.Maybe(p.elapsed_s, [&p] { return MatrixStatus(p); });
    if (save_error) return;
    auto w = saver.Maybe(r, p.elapsed_s, g_stop.load());
    if (!w.ok()) save_error = w.error();
  };
  MatrixRunStats stats;
  auto run = RunMatrixInto(*plan, o, results, &stats);
  printer.Clear();
  // Every finished cell goes to the file, whatever happened.
  auto saved = saver.Maybe(results, 0, /*now=*/true);
  if (!save_error && !saved.ok()) save_error = saved.error();
  if (save_error) return Fail(*save_error);
  const auto kept = [&] {
    return std::to_string(results.size()) + " of " + std::to_string(cells) + " cells are in " +
           a.output + "; tierlab matrix " + a.file + " -o " + a.output + " --resume runs the rest";
  };
  if (!run.ok()) {
    Fail(run.error());
    if (!a.output.empty() && results.size() > 0) {
      std::fprintf(stderr, "tierlab: %s\n", kept().c_str());
    }
    return ExitCodeFor(run.error().kind);
  }
  if (stats.stopped) {
    const int sig = g_signal.load() != 0 ? g_signal.load() : SIGINT;
    std::fprintf(
        stderr, "tierlab: interrupted by %s: %s\n", sig == SIGTERM ? "SIGTERM" : "SIGINT",
        a.output.empty() ? "no -o FILE, so the finished cells are not kept" : kept().c_str());
    return 128 + sig;
  }
  if (!a.quiet) {
    std::fprintf(stderr, "%llu cells in %.1f s with %u workers (%.2f cells/s)\n",
                 static_cast<unsigned long long>(stats.cells), stats.wall_s, stats.jobs,
                 stats.wall_s > 0 ? static_cast<double>(stats.cells) / stats.wall_s : 0.0);
  }
  if (*fmt == ReportFormat::kJson && a.output.empty()) {
    std::fputs(results.Text().c_str(), stdout);
    return kExitOk;
  }
  if (*fmt == ReportFormat::kJson) return kExitOk;  // the file is the JSON
  auto report = RenderReport(results.Json(), *fmt, ReportOptions{});
  if (!report.ok()) return Fail(report.error());
  std::fputs(report->c_str(), stdout);
  return kExitOk;
}

Expected<void> WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return MakeError(path + ": cannot write", ErrorKind::kIo);
  return {};
}

struct MergeArgs {
  std::vector<std::string> parts;
  std::string output;
};

int RunMergeCommand(const MergeArgs& a) {
  std::vector<nlohmann::json> docs;
  for (const auto& p : a.parts) {
    auto j = ReadJsonFile(p);
    if (!j.ok()) return Fail(j.error());
    docs.push_back(std::move(j.value()));
  }
  std::size_t missing = 0;
  auto merged = MergeMatrixResults(docs, a.parts, &missing);
  if (!merged.ok()) return Fail(merged.error());
  if (missing > 0) {
    std::fprintf(stderr, "tierlab: merge: %zu of %zu cells are missing (a shard not run?)\n",
                 missing, merged->value("cell_count", std::size_t{0}));
  }
  const std::string text = merged->dump(1) + "\n";
  if (a.output.empty()) {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  auto w = WriteFile(a.output, text);
  if (!w.ok()) return Fail(w.error());
  return kExitOk;
}

}  // namespace

void RegisterMatrixCommand(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<MatrixArgs>();
  CLI::App* cmd = app.add_subcommand(
      "matrix", "Run every cell of a matrix (layouts x profiles x axes x repeats) in parallel");
  cmd->add_option("file", args->file, "Matrix JSON file")->required();
  cmd->add_option("-j,--jobs", args->jobs,
                  "Cells run at once (default: one per core; 1 in real mode)");
  cmd->add_option("--shard", args->shard,
                  "Run shard i of N (i/N): the cells k with k mod N = i - 1")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write the results JSON to this file");
  cmd->add_option("-f,--format", args->format,
                  "Report printed on stdout: table, md, csv, json or html")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", args->quiet, "No progress on stderr");
  cmd->add_option("--status-interval", args->status_interval,
                  "Print a status line every this many seconds (fio time: 30, 500ms, 1m; "
                  "default: after 3 s, in place on a terminal, else every 10 s)");
  cmd->add_flag("--list", args->list, "Print the cells (index, id, label) and exit");
  cmd->add_flag(
      "--force", args->force,
      "Run or list a matrix of more than " + std::to_string(kMaxCellsWithoutForce) + " cells");
  cmd->add_flag("--resume", args->resume,
                "Continue the results file given with -o: run only the cells it lacks (it must "
                "come from the same matrix, shard and tierlab version)");
  cmd->callback([args, &result] { result.exit_code = RunMatrixCommand(*args); });

  auto margs = std::make_shared<MergeArgs>();
  CLI::App* merge =
      app.add_subcommand("merge", "Join the results of matrix shards into one results file");
  merge->add_option("parts", margs->parts, "Results files of the shards")->required();
  merge->add_option("-o,--output", margs->output, "Merged results file (default: stdout)");
  merge->callback([margs, &result] { result.exit_code = RunMergeCommand(*margs); });
}

}  // namespace tierlab::cli
