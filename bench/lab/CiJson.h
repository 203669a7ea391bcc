#pragma once
// The JSON shape of a 95% confidence interval wherever results carry one
// (docs/METHODOLOGY.md, "Confidence intervals"):
//   {"lo": 1222.1, "hi": 1245.9, "half_width": 11.9, "n": 20,
//    "method": "batch_means"}
// n: the samples behind it (batches of one run, or repeats); method:
// "batch_means" (within one run) or "repeats" (Student's t across repeats).
// Null where there is no interval (fewer than two samples, no I/O).

#include <nlohmann/json.hpp>
#include <string_view>

#include "bench/analysis/ConfidenceInterval.h"

namespace tierlab {

inline constexpr std::string_view kCiBatchMeans = "batch_means";
inline constexpr std::string_view kCiRepeats = "repeats";

nlohmann::json CiToJson(const ConfidenceInterval& ci, std::string_view method);

// Reads the shape back; an invalid interval (n 0) for null, a missing key or
// anything that is not the shape.
ConfidenceInterval CiFromJson(const nlohmann::json& j);

}  // namespace tierlab
