// tierlab profiles | presets | layout show: what is available, and what a
// name expands to.

#include <cstdio>

#include "bench/workload/BuiltinProfiles.h"
#include "cli/Commands.h"
#include "layouts/Layout.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab::cli {

void RegisterInfoCommands(CLI::App& app, CommandResult& result) {
  app.add_subcommand("profiles", "List the builtin workload profiles")->callback([&result] {
    for (const auto& p : BuiltinProfileList()) {
      std::printf("%-24s %s\n", std::string(p.name).c_str(), std::string(p.description).c_str());
    }
    result.exit_code = kExitOk;
  });
  app.add_subcommand("presets", "List the device presets")->callback([&result] {
    for (const auto& p : AllPresets()) {
      std::printf("%-16s %-7s %s\n", std::string(p.name).c_str(),
                  std::string(ToString(p.type)).c_str(), std::string(p.product).c_str());
    }
    result.exit_code = kExitOk;
  });
  CLI::App* layout = app.add_subcommand("layout", "Layouts");
  layout->require_subcommand(1);
  auto name = std::make_shared<std::string>();
  CLI::App* show =
      layout->add_subcommand("show", "Print a layout (file or shorthand) as expanded JSON");
  show->add_option("layout", *name,
                   "A layout JSON file or a shorthand name such as nvme2+ssd4+hdd4")
      ->required();
  show->callback([name, &result] {
    auto l = LoadLayout(*name);
    if (!l.ok()) {
      result.exit_code = Fail(l.error().message, l.error().exit_code);
      return;
    }
    std::printf("%s\n", LayoutToJson(*l).dump(2).c_str());
    result.exit_code = kExitOk;
  });
}

}  // namespace tierlab::cli
