// tierlab analyze: what a write-back NVMe cache does under a trace or a
// profile, how long it lasts and how big it must be (bench/lab/WriteCacheAnalyzer.h).

#include <cstdio>
#include <fstream>

#include "bench/lab/WriteCacheAnalyzer.h"
#include "bench/report/AnalyzerHtml.h"
#include "bench/trace/TraceFactory.h"
#include "bench/workload/ProfileLoader.h"
#include "cli/Commands.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "policies/PolicyRegistry.h"

namespace tierlab::cli {
namespace {

struct AnalyzeArgs {
  std::string trace;
  std::string trace_format = "auto";
  bool skip_bad = false;
  std::string profile;
  std::string layout;
  std::string cache_preset = "nvme-pm1725";
  std::string cache_size = "8g";
  std::string capacity = "hdd4";
  std::string replay_mode = "open";
  std::uint32_t iodepth = 0;
  double replay_time_scale = 100;
  std::uint64_t replay_scale = 1;
  double sample = 0;
  std::string policy = "lru";
  int write_points = 6;
  double target = 95;
  std::string format = "table";
  std::string output;
};

int Analyze(const AnalyzeArgs& a) {
  if (a.trace.empty() == a.profile.empty()) {
    return Fail("analyze: give exactly one of --trace and --profile", kExitUsage);
  }
  if (a.format != "table" && a.format != "json" && a.format != "html") {
    return Fail("--format must be table, json or html", kExitUsage);
  }
  AnalyzerInput in;
  if (!a.layout.empty()) {
    auto l = LoadLayout(a.layout);
    if (!l.ok()) return Fail(l.error());
    in.layout = std::move(*l);
  } else {
    auto bytes = ParseBytesText(a.cache_size);
    if (!bytes.ok() || *bytes == 0)
      return Fail("--cache-size: bad size '" + a.cache_size + "'", kExitUsage);
    auto l = MakeAnalyzerLayout(a.cache_preset, *bytes, a.capacity);
    if (!l.ok()) return Fail(l.error());
    in.layout = std::move(*l);
  }
  if (!a.trace.empty()) {
    auto f = ParseTraceFormat(a.trace_format);
    if (!f) return Fail("unknown trace format '" + a.trace_format + "'", kExitUsage);
    in.trace_path = a.trace;
    in.trace_options.format = *f;
    in.trace_options.skip_bad = a.skip_bad;
    auto mode = ParseReplayMode(a.replay_mode);
    if (!mode.ok()) return Fail(mode.error().message, kExitUsage);
    in.replay.mode = *mode;
    in.replay.iodepth = a.iodepth != 0 ? a.iodepth : (*mode == ReplayMode::kOpen ? 256 : 1);
    in.replay.time_scale_percent = a.replay_time_scale;
    in.replay.replay_scale = a.replay_scale;
  } else {
    auto p = LoadProfiles(a.profile, false);
    if (!p.ok()) return Fail(p.error());
    if (p->size() != 1) return Fail("--profile: give one job", kExitUsage);
    in.profile = p->front();
  }
  if (a.sample < 0 || a.sample > 1) return Fail("--sample must be in (0, 1]", kExitUsage);
  in.shards_rate = a.sample;
  if (auto spec = ParseReplacementSpec(a.policy); !spec.ok()) {
    return Fail("--policy: " + spec.error().message, kExitUsage);
  }
  in.mrc_policy = a.policy;
  in.write_curve_points = a.write_points;
  in.absorb_target = a.target / 100;
  auto r = AnalyzeWriteCache(in);
  if (!r.ok()) return Fail(r.error());
  std::string out;
  if (a.format == "json") {
    out = ToJson(*r).dump(2) + "\n";
  } else if (a.format == "html") {
    out = RenderAnalyzerHtml(*r);
  } else {
    out = ToTextTable(*r);
  }
  return WriteOutput(a.output, out);
}

}  // namespace

void RegisterAnalyzeCommand(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* c = app.add_subcommand(
      "analyze",
      "Write-cache analysis of a trace or profile: absorption, destage, endurance, sizing");
  c->add_option("--trace", a->trace,
                "Block trace to replay (a file, read several times; gzip, zstd and xz "
                "compressed traces are read directly)");
  c->add_option("--trace-format", a->trace_format,
                "Trace format: " + TraceFormatChoices() + " (default: detected)");
  c->add_flag("--skip-bad", a->skip_bad, "Skip malformed trace records (counted)");
  c->add_option("--profile,-p", a->profile, "Workload profile instead of a trace");
  c->add_option("--layout,-l", a->layout, "Layout with a write-back cache (file or shorthand)");
  c->add_option("--cache-preset", a->cache_preset, "Cache device preset (without --layout)")
      ->capture_default_str();
  c->add_option("--cache-size", a->cache_size, "Cache device capacity (without --layout)")
      ->capture_default_str();
  c->add_option("--capacity", a->capacity, "Capacity devices, shorthand (without --layout)")
      ->capture_default_str();
  c->add_option("--replay-mode", a->replay_mode, "open (trace timestamps) or closed")
      ->capture_default_str();
  c->add_option("--iodepth", a->iodepth, "Outstanding requests (default 256 open, 1 closed)");
  c->add_option("--replay_time_scale,--replay-time-scale", a->replay_time_scale,
                "% of the trace's I/O rate (fio's meaning)")
      ->capture_default_str();
  c->add_option("--replay_scale,--replay-scale", a->replay_scale, "Divide trace offsets by this")
      ->capture_default_str();
  c->add_option("--sample", a->sample, "Read MRC by SHARDS at this rate (default: exact)");
  c->add_option("--policy", a->policy,
                "Replacement policy of the read MRC (lru: stack distance; others simulated at "
                "the same sizes)")
      ->capture_default_str();
  c->add_option("--write-points", a->write_points,
                "Simulations for the write curve, halving the cache each time")
      ->capture_default_str();
  c->add_option("--target", a->target, "% of writes to absorb without throttling")
      ->capture_default_str();
  c->add_option("--format,-f", a->format, "table, json or html")->capture_default_str();
  c->add_option("--output,-o", a->output, "Write to this file instead of stdout");
  c->callback([a, &result] { result.exit_code = Analyze(*a); });
}

}  // namespace tierlab::cli
