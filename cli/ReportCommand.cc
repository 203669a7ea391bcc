// tierlab report: render a matrix results file as Markdown, CSV, JSON or a
// self-contained HTML page.

#include <cstdio>
#include <fstream>
#include <sstream>

#include "bench/lab/MatrixRunner.h"
#include "bench/report/Report.h"
#include "cli/Commands.h"
#include "layouts/Layout.h"

namespace tierlab::cli {
namespace {

struct ReportArgs {
  std::string file;
  std::string format = "md";
  std::string rows;
  std::string cols = "profile";
  std::string metrics = "iops,bw,lat,p95";
  std::string split = "rw";
  std::string output;
};

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int RunReportCommand(const ReportArgs& a) {
  auto fmt = ParseReportFormat(a.format);
  if (!fmt.ok()) return Fail(fmt.error().message, kExitUsage);
  if (a.split != "rw" && a.split != "none") {
    return Fail("--split: expected rw or none, got \"" + a.split + "\"", kExitUsage);
  }
  auto j = ReadJsonFile(a.file);
  if (!j.ok()) return Fail(j.error());
  auto shape = CheckResultsJson(*j, a.file);
  if (!shape.ok()) return Fail(shape.error());
  ReportOptions o;
  o.rows = SplitList(a.rows);
  o.cols = a.cols == "none" ? "" : a.cols;
  o.metrics = SplitList(a.metrics);
  o.split_rw = a.split == "rw";
  auto text = RenderReport(*j, *fmt, o);
  if (!text.ok()) return Fail(text.error());
  return WriteOutput(a.output, *text);
}

}  // namespace

void RegisterReportCommand(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Render matrix results as Markdown, CSV, JSON or a self-contained HTML page");
  cmd->add_option("file", args->file, "Results JSON (tierlab matrix -o / tierlab merge)")
      ->required();
  cmd->add_option("-f,--format", args->format, "md, table, csv, json or html")
      ->capture_default_str();
  cmd->add_option("--rows", args->rows,
                  "Row keys, comma separated: layout, profile or axis paths (default: layout + "
                  "every axis that varies)");
  cmd->add_option("--cols", args->cols, "One table (one bar series) per value of this key; none")
      ->capture_default_str();
  cmd->add_option("--metrics", args->metrics,
                  "iops, bw, lat, p50, p90, p95, p99, p99.9, p99.99, max")
      ->capture_default_str();
  cmd->add_option("--split", args->split, "rw: read/write/complete columns; none: complete only")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Write to this file instead of stdout");
  cmd->callback([args, &result] { result.exit_code = RunReportCommand(*args); });
}

}  // namespace tierlab::cli
