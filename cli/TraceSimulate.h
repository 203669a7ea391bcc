#pragma once
// tierlab trace simulate: which replacement policy and which cache size for
// a trace (bench/analysis/PolicySweep.h). Registered under `trace` by
// TraceCommand.cc, which owns the trace input options.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "bench/trace/TraceReader.h"

namespace tierlab::cli {

struct TraceSimulateArgs {
  std::string trace;
  std::string policies = "lru";
  std::string sizes = "1%,5%,10%,25%,50%";
  std::string line_size = "4k";
  std::string admission = "always";
  std::optional<std::string> writes;  // default: writeback, none with --object
  bool object = false;
  std::string format = "table";
  std::string output;
  unsigned threads = 0;
};

void AddTraceSimulateOptions(CLI::App* cmd, TraceSimulateArgs& a);
// Exit code; the trace is read with `options`.
int RunTraceSimulate(const TraceSimulateArgs& a, const TraceOptions& options);

}  // namespace tierlab::cli
