// tierlab validate MATRIX: the matrix's cells run in real time on the
// layouts' devices, then in simulation on their presets (the ones
// `tierlab calibrate` fitted to the same devices), and the model's error per
// cell and metric (bench/report/Validation.h; docs/VALIDATION.md). Where a
// layout's cpu file has a reference, the host's speed is measured after
// each real cell and that cell's model runs at it (bench/lab/HostReference.h);
// where a tier's preset has pauses, they are measured again after each real
// cell and that cell's model holds its devices for them
// (bench/lab/PauseReference.h).

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "bench/lab/HostReference.h"
#include "bench/lab/Matrix.h"
#include "bench/lab/MatrixRunner.h"
#include "bench/lab/PauseReference.h"
#include "bench/report/Report.h"
#include "bench/report/Validation.h"
#include "cli/Commands.h"
#include "layouts/MatrixSpec.h"

namespace tierlab::cli {
namespace {

struct ValidateArgs {
  std::string file;
  std::string format = "table";
  std::string output;
  std::string save;
  bool quiet = false;
  bool no_host_reference = false;
  bool no_pause_reference = false;
};

// Which control measurements the real run takes after each cell and its
// model's twin applies.
struct Controls {
  bool host_reference = true;
  bool pause_reference = true;
};

// `measured`: the real run's results, whose controls the model's cells
// take (null: the real run itself, which measures them).
Expected<nlohmann::json> RunIn(const MatrixSpec& spec, const std::string& mode, bool quiet,
                               Controls controls, const nlohmann::json* measured) {
  MatrixSpec s = spec;
  s.mode = mode;
  auto m = ExpandMatrix(s);
  if (!m.ok()) return m.error();
  const auto t0 = std::chrono::steady_clock::now();
  MatrixRunOptions o;
  o.jobs = mode == "real" ? 1 : 0;
  CellHostReference host;
  std::map<std::size_t, const nlohmann::json*> twins;  // measured cells by index
  if (measured == nullptr) {
    o.before_cell = [&host, controls](MatrixCell& c) -> Expected<void> {
      return controls.host_reference ? host.Before(c) : Expected<void>{};
    };
    // The host first: its reference was fitted to run right after a cell.
    o.after_cell = [&host, controls](const MatrixCell& c, nlohmann::json& j) -> Expected<void> {
      if (controls.host_reference) {
        auto h = host.After(c, j);
        if (!h.ok()) return h;
      }
      return controls.pause_reference ? MeasureCellPauses(c, j) : Expected<void>{};
    };
  } else {
    for (const nlohmann::json& c : measured->at("cells")) {
      twins[c.value("index", std::size_t{0})] = &c;
    }
    auto twin = [&twins](const MatrixCell& c) -> const nlohmann::json* {
      const auto it = twins.find(c.index);
      return it == twins.end() ? nullptr : it->second;
    };
    o.before_cell = [twin](MatrixCell& c) -> Expected<void> {
      const nlohmann::json* t = twin(c);
      if (t == nullptr) return {};
      auto h = ApplyHostReference(c, *t);
      if (!h.ok()) return h;
      return ApplyCellPauses(c, *t);
    };
    o.after_cell = [twin](const MatrixCell& c, nlohmann::json& j) -> Expected<void> {
      const nlohmann::json* t = twin(c);
      if (t == nullptr) return {};
      for (const char* key : {"host_reference", "device_pauses"}) {
        if (t->contains(key)) j[key] = t->at(key);
      }
      return {};
    };
  }
  auto r = RunMatrix(*m, o);
  if (!r.ok()) return r.error();
  if (!quiet) {
    std::fprintf(stderr, "validate: %zu cells %s in %.1f s\n", m->cells.size(),
                 mode == "real" ? "measured" : "modelled",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return r;
}

int RunValidate(const ValidateArgs& a) {
  auto fmt = ParseReportFormat(a.format);
  if (!fmt.ok()) return Fail(fmt.error().message, kExitUsage);
  auto spec = LoadMatrixFile(a.file);
  if (!spec.ok()) return Fail(spec.error());
  const Controls controls{!a.no_host_reference, !a.no_pause_reference};
  auto measured = RunIn(*spec, "real", a.quiet, controls, nullptr);
  if (!measured.ok()) return Fail(measured.error());
  auto model = RunIn(*spec, "sim", a.quiet, controls, &*measured);
  if (!model.ok()) return Fail(model.error());
  if (!a.save.empty()) {
    for (const auto& [suffix, doc] :
         {std::pair{"-measured.json", &*measured}, std::pair{"-model.json", &*model}}) {
      const int rc = WriteOutput(a.save + suffix, doc->dump(1) + "\n");
      if (rc != kExitOk) return rc;
    }
  }
  auto v = CompareMeasuredAndModel(*measured, *model);
  if (!v.ok()) return Fail(v.error());
  std::string text;
  switch (*fmt) {
    case ReportFormat::kText: text = FormatValidation(*v, TableStyle::kText); break;
    case ReportFormat::kMarkdown: text = FormatValidation(*v, TableStyle::kMarkdown); break;
    case ReportFormat::kCsv: text = FormatValidation(*v, TableStyle::kCsv); break;
    case ReportFormat::kJson: text = ValidationJson(*v).dump(2) + "\n"; break;
    case ReportFormat::kHtml: text = ValidationHtml(*v, "validation: " + spec->name); break;
  }
  return WriteOutput(a.output, text);
}

}  // namespace

void RegisterValidateCommand(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Run a matrix in real time and in simulation and report the model's error per cell");
  cmd->add_option("file", a->file,
                  "Matrix JSON file (its layouts with paths, its presets calibrated)")
      ->required();
  cmd->add_option("-f,--format", a->format, "table, md, csv, json or html")->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Write the report to this file instead of stdout");
  cmd->add_option("--save", a->save,
                  "Keep both results files as PREFIX-measured.json and PREFIX-model.json");
  cmd->add_flag("--no-host-reference", a->no_host_reference,
                "Model the CPU at its calibrated costs: no measurement of the host's speed "
                "after each real cell (a cpu file's reference)");
  cmd->add_flag("--no-pause-reference", a->no_pause_reference,
                "Model the devices' pauses at their calibrated rates: no pause probe of a "
                "calibrated device's file after each real cell");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &result] { result.exit_code = RunValidate(*a); });
}

}  // namespace tierlab::cli
