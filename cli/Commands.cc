#include "cli/Commands.h"

#include <cstdio>

namespace tierlab::cli {

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "tierlab: %s\n", message.c_str());
  return code;
}

void RegisterCommands(CLI::App& app, CommandResult& result) {
  RegisterRunCommand(app, result);
  RegisterInfoCommands(app, result);
  RegisterServeCommand(app, result);
  RegisterVolumeCommands(app, result);
  RegisterMatrixCommand(app, result);
  RegisterReportCommand(app, result);
  RegisterDiffCommand(app, result);
  RegisterTraceCommand(app, result);
  RegisterAnalyzeCommand(app, result);
}

}  // namespace tierlab::cli
