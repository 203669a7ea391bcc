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
  RegisterAnalyzeCommand(app, result);
  RegisterTraceCommand(app, result);
  RegisterServeCommand(app, result);
  RegisterVolumeCommands(app, result);
}

}  // namespace tierlab::cli
