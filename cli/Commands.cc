#include "cli/Commands.h"

#include <cstdio>
#include <fstream>

#include "tiering/core/Expected.h"

namespace tierlab::cli {

int Fail(const std::string& message, int code) {
  std::fprintf(stderr, "tierlab: %s\n", message.c_str());
  return code;
}

int Fail(const Error& error) {
  return Fail(error.message, ExitCodeFor(error.kind));
}

int WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return Fail(path + ": cannot write", kExitIo);
  return kExitOk;
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
  RegisterCalibrateCommand(app, result);
  RegisterValidateCommand(app, result);
}

}  // namespace tierlab::cli
