// tierlab diff: the regression gate. Two results files matched cell by cell,
// or one file pivoted on an axis. Exit 1 when a cell regressed.

#include <cstdio>
#include <sstream>

#include "bench/lab/MatrixResults.h"
#include "bench/report/MatrixDiff.h"
#include "cli/Commands.h"
#include "layouts/Layout.h"

namespace tierlab::cli {
namespace {

struct DiffArgs {
  std::vector<std::string> files;
  std::string threshold = "5%";
  std::string metrics = "iops,p99";
  std::string pivot;
  std::string format = "table";
};

int RunDiffCommand(const DiffArgs& a) {
  auto threshold = ParseThreshold(a.threshold);
  if (!threshold.ok()) return Fail(threshold.error().message, kExitUsage);
  TableStyle style = TableStyle::kText;
  if (a.format == "md" || a.format == "markdown") {
    style = TableStyle::kMarkdown;
  } else if (a.format == "csv") {
    style = TableStyle::kCsv;
  } else if (a.format != "table") {
    return Fail("--format: unknown \"" + a.format + "\"; known: table, md, csv", kExitUsage);
  }
  DiffOptions o;
  o.threshold = *threshold;
  o.metrics.clear();
  std::stringstream ss(a.metrics);
  for (std::string m; std::getline(ss, m, ',');) {
    if (!m.empty()) o.metrics.push_back(m);
  }
  const bool pivot = !a.pivot.empty();
  if (pivot && a.files.size() != 1) {
    return Fail("diff --pivot takes one results file, got " + std::to_string(a.files.size()),
                kExitUsage);
  }
  if (!pivot && a.files.size() != 2) {
    return Fail("diff takes two results files (base new), or one with --pivot AXIS", kExitUsage);
  }
  std::vector<nlohmann::json> docs;
  for (const auto& f : a.files) {
    auto j = ReadJsonFile(f);
    if (!j.ok()) return Fail(j.error());
    auto shape = CheckResultsJson(*j, f);
    if (!shape.ok()) return Fail(shape.error());
    docs.push_back(std::move(j.value()));
  }
  auto d = pivot ? DiffPivot(docs[0], a.pivot, o) : DiffResults(docs[0], docs[1], o);
  if (!d.ok()) return Fail(d.error());
  std::fputs(FormatDiff(*d, style, o).c_str(), stdout);
  return d->regressions() > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void RegisterDiffCommand(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd =
      app.add_subcommand("diff", "Compare matrix results cell by cell; exit 1 if a cell regressed");
  cmd->add_option("files", args->files, "base.json new.json, or one file with --pivot")->required();
  cmd->add_option("--threshold", args->threshold,
                  "Smallest change that counts, in % of the baseline (the 95% confidence "
                  "intervals must not overlap too)")
      ->capture_default_str();
  cmd->add_option("--metric,--metrics", args->metrics,
                  "Metrics to compare: iops, bw, lat, p50..p99.99, max; read./write. prefix for "
                  "one direction")
      ->capture_default_str();
  cmd->add_option("--pivot", args->pivot,
                  "Within one file: compare every value of this axis with its first value");
  cmd->add_option("-f,--format", args->format, "table, md or csv")->capture_default_str();
  cmd->callback([args, &result] { result.exit_code = RunDiffCommand(*args); });
}

}  // namespace tierlab::cli
