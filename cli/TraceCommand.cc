// tierlab trace stats / trace convert: summary figures of a block trace and
// conversion between trace formats. Traces may be gzip, zstd or xz
// compressed, and "-" reads standard input. Malformed input is "file:line:
// what is wrong" with exit code 2; --skip-bad skips such lines and reports
// the count on stderr.

#include <cstdio>
#include <memory>
#include <string>

#include "bench/analysis/TraceStats.h"
#include "bench/trace/TraceConvert.h"
#include "bench/trace/TraceFactory.h"
#include "bench/trace/TraceWriter.h"
#include "cli/Commands.h"
#include "cli/TraceSimulate.h"
#include "tiering/core/Expected.h"

namespace tierlab::cli {
namespace {

struct TraceInputArgs {
  std::string format = "auto";
  bool skip_bad = false;
  std::string blkparse_action = "D";
  std::uint32_t lba_unit = 512;
  std::uint32_t object_size = 4096;
};

Expected<TraceOptions> MakeTraceOptions(const TraceInputArgs& a) {
  TraceOptions o;
  auto f = ParseTraceFormat(a.format);
  if (!f) {
    return Error{"unknown trace format '" + a.format + "' (valid: " + TraceFormatChoices() + ")",
                 ErrorKind::kInput};
  }
  o.format = *f;
  if (a.blkparse_action.size() != 1 || a.blkparse_action.find_first_of("QDC") != 0)
    return Error{"--blkparse-action must be Q, D or C", ErrorKind::kInput};
  o.blkparse_action = a.blkparse_action[0];
  if (a.lba_unit == 0) return Error{"--lba-unit must be > 0", ErrorKind::kInput};
  o.lba_unit = a.lba_unit;
  if (a.object_size == 0) return Error{"--object-size must be > 0", ErrorKind::kInput};
  o.object_size = a.object_size;
  o.skip_bad = a.skip_bad;
  return o;
}

void ReportSkipped(const std::string& name, std::uint64_t bad) {
  if (bad > 0) {
    std::fprintf(stderr, "tierlab: %s: skipped %llu malformed record(s)\n", name.c_str(),
                 static_cast<unsigned long long>(bad));
  }
}

void AddInputOptions(CLI::App* cmd, TraceInputArgs& a, const char* format_flag) {
  cmd->add_option(format_flag, a.format, "Input trace format: " + TraceFormatChoices())
      ->capture_default_str();
  cmd->add_flag("--skip-bad", a.skip_bad,
                "Skip malformed lines (counted, reported on stderr) instead of failing");
  cmd->add_option("--blkparse-action", a.blkparse_action,
                  "blkparse: the event that becomes a record: Q, D or C")
      ->capture_default_str();
  cmd->add_option("--lba-unit", a.lba_unit, "Bytes per LBA for SPC and vscsi traces")
      ->capture_default_str();
  cmd->add_option("--object-size", a.object_size,
                  "keys-u32/keys-u64: bytes each key reads, at offset key * object size")
      ->capture_default_str();
}

// What the trace argument accepts, for the help of both subcommands.
constexpr const char* kTraceArgHelp =
    "(- reads standard input; gzip, zstd and xz compressed traces are read directly)";

struct StatsArgs {
  std::string trace;
  TraceInputArgs in;
  bool json = false;
  std::uint64_t block_size = 4096;
};

int RunStats(const StatsArgs& a) {
  auto options = MakeTraceOptions(a.in);
  if (!options.ok()) return Fail(options.error());
  if (a.block_size == 0) return Fail("--block-size must be > 0", kExitUsage);
  auto reader = OpenTrace(a.trace, *options);
  if (!reader.ok()) return Fail(reader.error());
  auto stats = ComputeTraceStats(**reader, a.block_size);
  if (!stats.ok()) return Fail(stats.error());
  const std::string& name = (*reader)->name();  // the path, or "stdin"
  ReportSkipped(name, (*reader)->bad_records());
  if (a.json) {
    nlohmann::json j = ToJson(*stats);
    j["trace"] = name;
    j["format"] = ToString((*reader)->format());
    j["bad_records"] = (*reader)->bad_records();
    j["reordered_records"] = (*reader)->reordered_records();
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf("trace      %s\nformat     %s\n", name.c_str(), ToString((*reader)->format()));
    std::fputs(ToTextTable(*stats).c_str(), stdout);
  }
  return kExitOk;
}

struct ConvertArgs {
  std::string in;
  std::string out;
  std::string to;
  TraceInputArgs input;
};

int RunConvert(const ConvertArgs& a) {
  auto options = MakeTraceOptions(a.input);
  if (!options.ok()) return Fail(options.error());
  auto to = ParseTraceFormat(a.to);
  if (!to || !CanWriteTraceFormat(*to)) {
    return Fail("--to must be one of tierlab, fio-v3 (alias fio), msr; got '" + a.to + "'",
                kExitUsage);
  }
  auto summary = ConvertTrace(a.in, *options, a.out, *to);
  if (!summary.ok()) return Fail(summary.error());
  ReportSkipped(TraceInputName(a.in), summary->bad_records);
  std::fprintf(stderr, "tierlab: wrote %llu record(s) to %s (%s)\n",
               static_cast<unsigned long long>(summary->records), a.out.c_str(), ToString(*to));
  return kExitOk;
}

}  // namespace

void RegisterTraceCommand(CLI::App& app, CommandResult& result) {
  CLI::App* trace = app.add_subcommand("trace", "Block trace tools: stats, convert, simulate");
  trace->require_subcommand(1);

  auto stats = std::make_shared<StatsArgs>();
  CLI::App* s = trace->add_subcommand("stats", "Summary figures of a block trace");
  s->add_option("trace", stats->trace, std::string("Trace file ") + kTraceArgHelp)->required();
  AddInputOptions(s, stats->in, "--format");
  s->add_flag("--json", stats->json, "Print JSON instead of a table");
  s->add_option("--block-size", stats->block_size, "Block size of the working-set count (bytes)")
      ->capture_default_str();
  s->callback([stats, &result] { result.exit_code = RunStats(*stats); });

  auto conv = std::make_shared<ConvertArgs>();
  CLI::App* c = trace->add_subcommand("convert", "Convert a trace to another format");
  c->add_option("in", conv->in, std::string("Input trace ") + kTraceArgHelp)->required();
  c->add_option("out", conv->out, "Output file (created or truncated; - writes standard output)")
      ->required();
  c->add_option("--to", conv->to, "Output format: tierlab, fio (fio-v3) or msr")
      ->required()
      ->transform([](std::string v) { return v == "fio" ? std::string("fio-v3") : v; });
  AddInputOptions(c, conv->input, "--from");
  c->callback([conv, &result] { result.exit_code = RunConvert(*conv); });

  auto sim = std::make_shared<TraceSimulateArgs>();
  auto sim_in = std::make_shared<TraceInputArgs>();
  CLI::App* m = trace->add_subcommand(
      "simulate", "Miss ratios of replacement policies at cache sizes over a trace");
  AddTraceSimulateOptions(m, *sim);
  AddInputOptions(m, *sim_in, "--trace-format");
  m->callback([sim, sim_in, &result] {
    auto options = MakeTraceOptions(*sim_in);
    result.exit_code = options.ok() ? RunTraceSimulate(*sim, *options) : Fail(options.error());
  });
}

}  // namespace tierlab::cli
