#pragma once
// Resolves what a user passes as --profile: a builtin name (or group), a
// profile JSON file (one object, or an array of objects), or a fio job file
// (*.fio, *.ini, or any file that is not JSON). `info`, when set, receives
// what a fio job file says beside its profiles (FioJobFile.h): the options
// ignore_unknown skipped, and fio's global and job options (for JSON
// profiles and builtins: none, {}, and one empty object per profile).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct ProfileLoadInfo {
  std::vector<std::string> ignored;
  std::vector<std::string> notes;  // fio job files only: FioParseOptions::notes
  nlohmann::json global_options = nlohmann::json::object();
  std::vector<nlohmann::json> job_options;  // fio job files only
};

Expected<std::vector<Profile>> LoadProfiles(std::string_view name_or_path,
                                            bool ignore_unknown = false,
                                            ProfileLoadInfo* info = nullptr);

}  // namespace tierlab
