#pragma once
// Resolves what a user passes as --profile: a builtin name (or group), a
// profile JSON file (one object, or an array of objects), or a fio job file
// (*.fio, *.ini, or any file that is not JSON). `ignored`, when set, receives
// the fio options that ignore_unknown skipped (each once).

#include <string>
#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

Expected<std::vector<Profile>> LoadProfiles(std::string_view name_or_path,
                                            bool ignore_unknown = false,
                                            std::vector<std::string>* ignored = nullptr);

}  // namespace tierlab
