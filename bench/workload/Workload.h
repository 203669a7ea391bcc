#pragma once
// What a run is asked to do, in one type: fio-style profiles (run one after
// another on the same volume, as the sections of a job file are today), or a
// block trace replayed as it was recorded (TraceProfile.h).

#include <variant>
#include <vector>

#include "bench/workload/Profile.h"
#include "bench/workload/TraceProfile.h"

namespace tierlab {

using Workload = std::variant<std::vector<Profile>, TraceProfile>;

}  // namespace tierlab
