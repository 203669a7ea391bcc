#include "bench/analysis/WriteCurve.h"

#include <algorithm>

namespace tierlab {

void SortBySize(std::vector<WriteCurvePoint>& curve) {
  std::sort(curve.begin(), curve.end(), [](const WriteCurvePoint& a, const WriteCurvePoint& b) {
    return a.cache_bytes < b.cache_bytes;
  });
}

std::optional<std::uint64_t> SmallestSizeReaching(std::span<const WriteCurvePoint> curve,
                                                  double target) {
  for (const WriteCurvePoint& p : curve) {
    if (p.absorbed_share >= target) return p.cache_bytes;
  }
  return std::nullopt;
}

}  // namespace tierlab
