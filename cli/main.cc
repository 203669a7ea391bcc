// The tierlab program: CLI11 subcommands, each in its own file (cli/*Command.cc).
// Thin: parse, call the library, print. Exceptions stop here; exit codes
// follow README.md, "Exit codes" (0 ok, 1 regression/check failed, 2 usage/input, 3 I/O).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/Commands.h"
#include "tiering/core/Expected.h"
#include "tierlab/Version.h"

int main(int argc, char** argv) {
  CLI::App app{
      "tierlab: tiered/cached block volumes in user space, and the lab that evaluates them"};
  app.set_version_flag("--version", std::string("tierlab ") + tierlab::kVersion);
  app.require_subcommand(1);
  tierlab::cli::CommandResult result;
  tierlab::cli::RegisterCommands(app, result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return tierlab::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tierlab: %s\n", e.what());
    return tierlab::cli::kExitIo;
  }
  return result.exit_code;
}
