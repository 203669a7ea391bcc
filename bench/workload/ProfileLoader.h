#pragma once
// Resolves what a user passes as --profile: a builtin name (or group), a
// profile JSON file (one object, or an array of objects), or a fio job file
// (*.fio, *.ini, or any file that is not JSON).

#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

Expected<std::vector<Profile>> LoadProfiles(std::string_view name_or_path,
                                            bool ignore_unknown = false);

}  // namespace tierlab
