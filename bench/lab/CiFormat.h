#pragma once
// How a 95% confidence interval appears in results: its JSON shape wherever
// results carry one (docs/METHODOLOGY.md, "Confidence intervals"),
//   {"lo": 1222.1, "hi": 1245.9, "half_width": 11.9, "n": 20,
//    "method": "batch_means"}
// n: the samples behind it (batches of one run, or repeats); method:
// "batch_means" (within one run) or "repeats" (Student's t across repeats).
// Null where there is no interval (fewer than two samples, no I/O). In
// tables: "value ± half-width".

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bench/analysis/ConfidenceInterval.h"

namespace tierlab {

inline constexpr std::string_view kCiBatchMeans = "batch_means";
inline constexpr std::string_view kCiRepeats = "repeats";

nlohmann::json CiToJson(const ConfidenceInterval& ci, std::string_view method);

// Reads the shape back; an invalid interval (n 0) for null, a missing key or
// anything that is not the shape.
ConfidenceInterval CiFromJson(const nlohmann::json& j);

// "3.50": the value with `digits` decimals, as tables print figures.
std::string FormatFixed(double value, int digits);
// "3.50 ± 0.03": the value with `digits` decimals, or more where the
// half-width needs them to show its first significant digit (at most 6);
// the value alone when `half_width` is negative (no interval).
std::string FormatWithCi(double value, double half_width, int digits);
// The decimals FormatWithCi uses.
int CiDigits(double half_width, int digits);

}  // namespace tierlab
