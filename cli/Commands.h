#pragma once
// Each subcommand registers itself on the app; its callback runs the command
// and stores the exit code in `result`.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/ExitCode.h"
#include "tiering/core/Expected.h"

namespace tierlab::cli {

struct CommandResult {
  int exit_code = 0;
};

void RegisterCommands(CLI::App& app, CommandResult& result);

// One per file.
void RegisterRunCommand(CLI::App& app, CommandResult& result);
void RegisterInfoCommands(CLI::App& app, CommandResult& result);  // profiles, presets, layout show
void RegisterServeCommand(CLI::App& app, CommandResult& result);
// create, status, flush, check, destroy, reidentify
void RegisterVolumeCommands(CLI::App& app, CommandResult& result);
void RegisterMatrixCommand(CLI::App& app, CommandResult& result);  // matrix, merge
void RegisterReportCommand(CLI::App& app, CommandResult& result);
void RegisterDiffCommand(CLI::App& app, CommandResult& result);
void RegisterTraceCommand(CLI::App& app, CommandResult& result);  // trace stats, convert, simulate
void RegisterAnalyzeCommand(CLI::App& app, CommandResult& result);
void RegisterCalibrateCommand(CLI::App& app, CommandResult& result);
void RegisterValidateCommand(CLI::App& app, CommandResult& result);

// Prints "tierlab: <message>" to stderr and returns `code`.
int Fail(const std::string& message, int code);
// The same for an error from below: its message, the exit code of its kind.
int Fail(const Error& error);

// Writes `text` to stdout when `path` is empty, else to the file; returns an
// exit code (kExitIo with a one-line error if the file cannot be written).
int WriteOutput(const std::string& path, const std::string& text);

}  // namespace tierlab::cli
