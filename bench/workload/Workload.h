#pragma once
// What a run is asked to do, in one type: fio-style profiles (the sections
// of a job file on one volume, started together back to the last stonewall,
// as fio starts them), or a block trace replayed as it was recorded
// (TraceProfile.h).

#include <variant>
#include <vector>

#include "bench/workload/Profile.h"
#include "bench/workload/TraceProfile.h"

namespace tierlab {

using Workload = std::variant<std::vector<Profile>, TraceProfile>;

}  // namespace tierlab
