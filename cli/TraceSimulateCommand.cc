#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/analysis/PolicySweep.h"
#include "bench/report/SweepReport.h"
#include "bench/trace/TraceFactory.h"
#include "cli/Commands.h"
#include "cli/TraceSimulate.h"
#include "policies/ByteSize.h"

namespace tierlab::cli {
namespace {

// "lru,arc" or "all" into checked specs; the error names the bad one.
Expected<std::vector<ReplacementSpec>> ParsePolicies(const std::string& text) {
  std::vector<std::string> names;
  if (text == "all") {
    names = ReplacementPolicyNames();
  } else {
    std::size_t pos = 0;
    while (true) {
      const std::size_t comma = text.find(',', pos);
      names.push_back(text.substr(pos, comma - pos));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  std::vector<ReplacementSpec> specs;
  for (const std::string& n : names) {
    // s3fifo's parameters use commas too: "s3fifo:small_size_ratio=0.2"
    // must come last or alone, so a name with '=' joins the spec before it.
    if (!specs.empty() && n.find('=') != std::string::npos && n.find(':') == std::string::npos) {
      auto joined = ParseReplacementSpec(specs.back().text + "," + n);
      if (!joined.ok()) return Error{"--policy: " + joined.error().message, ErrorKind::kInput};
      specs.back() = *joined;
      continue;
    }
    auto spec = ParseReplacementSpec(n);
    if (!spec.ok()) return Error{"--policy: " + spec.error().message, ErrorKind::kInput};
    specs.push_back(*spec);
  }
  return specs;
}

}  // namespace

void AddTraceSimulateOptions(CLI::App* c, TraceSimulateArgs& a) {
  c->add_option("trace", a.trace, "Trace file, or - for standard input")->required();
  c->add_option(
       "--policy", a.policies,
       "Replacement policies, comma-separated, or all: " +
           [] {
             std::string s;
             for (const std::string& n : ReplacementPolicyNames()) s += (s.empty() ? "" : ",") + n;
             return s;
           }())
      ->capture_default_str();
  c->add_option("--sizes", a.sizes,
                "Cache sizes: LINES, BYTES (64m, 1g) or PERCENT% of the trace's unique lines")
      ->capture_default_str();
  c->add_option("--line-size", a.line_size, "Cache line size (bytes, k/m suffix)")
      ->capture_default_str();
  c->add_option("--admission", a.admission,
                "Admission: always, nhit:N[:WINDOW], seqcutoff[:BYTES], pinned:START-END")
      ->capture_default_str();
  c->add_option("--writes", a.writes,
                "What writes do: writeback, writethrough, writearound, writeonly, none "
                "(default: writeback; none with --object)");
  c->add_flag("--object", a.object,
              "Each request is one unit-size object named by its offset (libCacheSim's view)");
  c->add_option("--format,-f", a.format, "table, md, csv, json or html")->capture_default_str();
  c->add_option("--output,-o", a.output, "Write to this file instead of stdout");
  c->add_option("--threads,-j", a.threads, "Cells run in parallel (default: one per core)");
}

int RunTraceSimulate(const TraceSimulateArgs& a, const TraceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto policies = ParsePolicies(a.policies);
  if (!policies.ok()) return Fail(policies.error());
  const std::optional<std::uint64_t> line_size = ParseByteSize(a.line_size);
  if (!line_size || *line_size == 0) {
    return Fail("--line-size: bytes with an optional k/m/g suffix, > 0; got '" + a.line_size + "'",
                kExitUsage);
  }
  auto writes = ParseSweepWriteMode(a.writes.value_or(a.object ? "none" : "writeback"));
  if (!writes.ok()) return Fail("--writes: " + writes.error().message, kExitUsage);
  std::optional<AdmissionSpec> admission;
  if (a.admission != "always") {
    auto spec = ParseAdmissionSpec(a.admission);
    if (!spec.ok()) return Fail("--admission: " + spec.error().message, kExitUsage);
    admission = *spec;
  }
  const std::string fmt = a.format;
  if (fmt != "table" && fmt != "md" && fmt != "csv" && fmt != "json" && fmt != "html") {
    return Fail("--format: unknown '" + fmt + "' (valid: table, md, csv, json, html)", kExitUsage);
  }

  auto reader = OpenTrace(a.trace, options);
  if (!reader.ok()) return Fail(reader.error());
  auto trace = SweepTrace::Load(**reader, {*line_size, a.object});
  if (!trace.ok()) return Fail(trace.error());
  if ((*reader)->bad_records() > 0) {
    std::fprintf(stderr, "tierlab: %s: skipped %llu malformed record(s)\n", a.trace.c_str(),
                 static_cast<unsigned long long>((*reader)->bad_records()));
  }
  auto sizes = ParseSweepSizes(a.sizes, *line_size, trace->unique_lines());
  if (!sizes.ok()) return Fail("--sizes: " + sizes.error().message, kExitUsage);
  const auto loaded = std::chrono::steady_clock::now();

  SweepOptions so;
  so.policies = *policies;
  so.sizes_lines = *sizes;
  so.admission = admission;
  so.writes = *writes;
  so.threads = a.threads;
  auto results = RunSweep(*trace, so);
  if (!results.ok()) return Fail(results.error());
  const auto done = std::chrono::steady_clock::now();

  SweepSummary s{a.trace,
                 ToString((*reader)->format()),
                 trace->requests().size(),
                 trace->ids().size(),
                 trace->unique_lines(),
                 *line_size,
                 a.object,
                 std::string(ToString(*writes)),
                 a.admission};
  std::string text;
  if (fmt == "json") text = SweepToJson(s, *results).dump(2) + "\n";
  if (fmt == "html") text = SweepHtml(s, *results);
  if (fmt == "table") text = SweepTable(*results, TableStyle::kText);
  if (fmt == "md") text = SweepTable(*results, TableStyle::kMarkdown);
  if (fmt == "csv") text = SweepTable(*results, TableStyle::kCsv);
  const auto seconds = [](auto d) { return std::chrono::duration<double>(d).count(); };
  std::fprintf(stderr, "tierlab: %zu cells over %zu requests: read %.2f s, simulated %.2f s\n",
               results->size(), trace->requests().size(), seconds(loaded - start),
               seconds(done - loaded));
  return WriteOutput(a.output, text);
}

}  // namespace tierlab::cli
