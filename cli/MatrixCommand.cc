// tierlab matrix: expand a matrix file, run its cells in parallel, write the
// results JSON and print a report. tierlab merge: join shard results.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>

#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/report/MatrixReport.h"
#include "cli/Commands.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"

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
};

std::string Duration(double s) {
  char buf[32];
  const int t = static_cast<int>(s + 0.5);
  std::snprintf(buf, sizeof buf, "%d:%02d", t / 60, t % 60);
  return buf;
}

// Progress on stderr: a bar redrawn in place on a terminal, else one plain
// line per finished cell (CI logs).
class MatrixProgressPrinter {
 public:
  explicit MatrixProgressPrinter(bool quiet) : tty_(isatty(STDERR_FILENO) != 0), quiet_(quiet) {}
  ~MatrixProgressPrinter() {
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }
  void Update(const MatrixProgress& p) {
    if (quiet_) return;
    const double eta = p.done > 0 ? p.elapsed_s / static_cast<double>(p.done) *
                                        static_cast<double>(p.total - p.done)
                                  : 0;
    const double iops =
        p.result != nullptr ? p.result->at("jobs").at(0).at("complete").value("iops", 0.0) : 0;
    if (!tty_) {
      std::fprintf(stderr, "[%zu/%zu] %s: %.0f IOPS (%.1f s)\n", p.done, p.total,
                   p.finished->label.c_str(), iops, p.cell_wall_s);
      return;
    }
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * p.done / std::max<std::size_t>(p.total, 1));
    std::string bar(static_cast<std::size_t>(filled), '=');
    bar.resize(kWidth, ' ');
    std::string current = p.running.empty() ? p.finished->label : p.running.front()->label;
    if (current.size() > 50) current = current.substr(0, 47) + "...";
    std::fprintf(stderr, "\r\033[K[%s] %zu/%zu  ETA %s  %s", bar.c_str(), p.done, p.total,
                 Duration(eta).c_str(), current.c_str());
    drawn_ = true;
  }

 private:
  bool tty_;
  bool quiet_;
  bool drawn_ = false;
};

Expected<void> WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return MakeError(path + ": cannot write", kExitIo);
  return {};
}

int RunMatrixCommand(const MatrixArgs& a) {
  auto fmt = ParseReportFormat(a.format);
  if (!fmt.ok()) return Fail(fmt.error().message, kExitUsage);
  auto shard = ParseShard(a.shard);
  if (!shard.ok()) return Fail(shard.error().message, kExitUsage);
  auto spec = LoadMatrixFile(a.file);
  if (!spec.ok()) return Fail(spec.error().message, spec.error().exit_code);
  auto m = ExpandMatrix(*spec);
  if (!m.ok()) return Fail(m.error().message, m.error().exit_code);
  if (a.list) {
    for (const auto& c : m->cells) {
      if (shard->Contains(c.index))
        std::printf("%zu %s %s\n", c.index, c.id.c_str(), c.label.c_str());
    }
    return kExitOk;
  }
  auto checked = CheckCellsBuild(*m);
  if (!checked.ok()) return Fail(checked.error().message, checked.error().exit_code);

  MatrixProgressPrinter printer(a.quiet);
  MatrixRunOptions o;
  o.jobs = a.jobs;
  o.shard = *shard;
  o.progress = [&printer](const MatrixProgress& p) { printer.Update(p); };
  MatrixRunStats stats;
  auto results = RunMatrix(*m, o, &stats);
  if (!results.ok()) return Fail(results.error().message, results.error().exit_code);
  if (!a.quiet) {
    std::fprintf(stderr, "%s%zu cells in %.1f s with %u workers (%.2f cells/s)\n",
                 isatty(STDERR_FILENO) ? "\r\033[K" : "", stats.cells, stats.wall_s, stats.jobs,
                 stats.wall_s > 0 ? static_cast<double>(stats.cells) / stats.wall_s : 0.0);
  }
  if (!a.output.empty()) {
    auto w = WriteFile(a.output, results->dump(1) + "\n");
    if (!w.ok()) return Fail(w.error().message, w.error().exit_code);
  }
  if (*fmt == ReportFormat::kJson && a.output.empty()) {
    std::fputs((results->dump(1) + "\n").c_str(), stdout);
    return kExitOk;
  }
  if (*fmt == ReportFormat::kJson) return kExitOk;  // the file is the JSON
  auto report = RenderReport(*results, *fmt, ReportOptions{});
  if (!report.ok()) return Fail(report.error().message, report.error().exit_code);
  std::fputs(report->c_str(), stdout);
  return kExitOk;
}

struct MergeArgs {
  std::vector<std::string> parts;
  std::string output;
};

int RunMergeCommand(const MergeArgs& a) {
  std::vector<nlohmann::json> docs;
  for (const auto& p : a.parts) {
    auto j = ReadJsonFile(p);
    if (!j.ok()) return Fail(j.error().message, j.error().exit_code);
    docs.push_back(std::move(j.value()));
  }
  std::size_t missing = 0;
  auto merged = MergeMatrixResults(docs, a.parts, &missing);
  if (!merged.ok()) return Fail(merged.error().message, merged.error().exit_code);
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
  if (!w.ok()) return Fail(w.error().message, w.error().exit_code);
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
  cmd->add_flag("--list", args->list, "Print the cells (index, id, label) and exit");
  cmd->callback([args, &result] { result.exit_code = RunMatrixCommand(*args); });

  auto margs = std::make_shared<MergeArgs>();
  CLI::App* merge =
      app.add_subcommand("merge", "Join the results of matrix shards into one results file");
  merge->add_option("parts", margs->parts, "Results files of the shards")->required();
  merge->add_option("-o,--output", margs->output, "Merged results file (default: stdout)");
  merge->callback([margs, &result] { result.exit_code = RunMergeCommand(*margs); });
}

}  // namespace tierlab::cli
