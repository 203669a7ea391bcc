// tierlab profiles [show] | presets | layout show: what is available, and
// what a name expands to. `show` prints the effective JSON (every key, with
// its default), which reads back to the same profile or layout; for a
// builtin it also says where its numbers come from, on stderr, so that
// stdout stays that JSON.

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/workload/BuiltinProfiles.h"
#include "bench/workload/ProfileLoader.h"
#include "cli/Commands.h"
#include "layouts/Layout.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab::cli {
namespace {

// One line per builtin among `profiles`: what it is and where its numbers
// come from.
void PrintSources(const std::vector<Profile>& profiles) {
  for (const Profile& p : profiles) {
    for (const auto& b : BuiltinProfileList()) {
      if (b.name != p.name) continue;
      std::fprintf(stderr, "%s: %s. Source: %s.\n", p.name.c_str(), b.description.c_str(),
                   std::string(b.source).c_str());
    }
  }
}

}  // namespace

void RegisterInfoCommands(CLI::App& app, CommandResult& result) {
  CLI::App* profiles = app.add_subcommand("profiles", "List the builtin workload profiles");
  auto profile_name = std::make_shared<std::string>();
  CLI::App* profile_show = profiles->add_subcommand(
      "show", "Print a profile (builtin, group, JSON or fio job file) as effective JSON");
  profile_show
      ->add_option("profile", *profile_name, "A builtin name such as 4k-randread, or a file")
      ->required();
  profile_show->callback([profile_name, &result] {
    auto ps = LoadProfiles(*profile_name);
    if (!ps.ok()) {
      result.exit_code = Fail(ps.error());
      return;
    }
    nlohmann::json out = nlohmann::json::array();
    for (const Profile& p : *ps) out.push_back(ToJson(p));
    std::printf("%s\n", (out.size() == 1 ? out[0] : out).dump(2).c_str());
    std::error_code ec;
    if (!std::filesystem::exists(*profile_name, ec)) PrintSources(*ps);
    result.exit_code = kExitOk;
  });
  profiles->callback([profile_show, &result] {
    if (profile_show->parsed()) return;
    for (const auto& p : BuiltinProfileList()) {
      std::printf("%-24s %s\n", p.name.c_str(), p.description.c_str());
    }
    std::printf("\nGroups (a name that runs every profile it stands for):\n");
    for (const auto& g : BuiltinGroupList()) {
      std::printf("%-24s %s\n", std::string(g.name).c_str(), std::string(g.description).c_str());
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
      layout->add_subcommand("show", "Print a layout (file or shorthand) as effective JSON");
  show->add_option("layout", *name,
                   "A layout JSON file or a shorthand name such as nvme2+ssd4+hdd4")
      ->required();
  show->callback([name, &result] {
    auto l = LoadLayout(*name);
    if (!l.ok()) {
      result.exit_code = Fail(l.error());
      return;
    }
    std::printf("%s\n", LayoutToJson(*l).dump(2).c_str());
    result.exit_code = kExitOk;
  });
}

}  // namespace tierlab::cli
