#include "bench/analysis/WriteCurve.h"

#include <algorithm>

namespace tierlab {

void SortBySize(std::vector<WriteCurvePoint>& curve) {
  std::sort(curve.begin(), curve.end(), [](const WriteCurvePoint& a, const WriteCurvePoint& b) {
    return a.cache_bytes < b.cache_bytes;
  });
}

SizeRecommendation RecommendSize(std::span<const WriteCurvePoint> curve, double target) {
  SizeRecommendation r;
  std::size_t k = curve.size();  // curve[k..] all reach the target
  while (k > 0 && curve[k - 1].absorbed_share >= target) --k;
  if (k == curve.size()) return r;
  r.at_most_bytes = curve[k].cache_bytes;
  r.at_most_share = curve[k].absorbed_share;
  if (k == 0) {
    r.kind = SizeRecommendation::Kind::kBelowSmallest;
    return r;
  }
  r.kind = SizeRecommendation::Kind::kBetween;
  r.above_bytes = curve[k - 1].cache_bytes;
  r.above_share = curve[k - 1].absorbed_share;
  return r;
}

const char* KindName(SizeRecommendation::Kind kind) {
  switch (kind) {
    case SizeRecommendation::Kind::kBelowSmallest: return "below_smallest_size";
    case SizeRecommendation::Kind::kBetween: return "between_sizes";
    case SizeRecommendation::Kind::kUnreached: break;
  }
  return "unreached";
}

}  // namespace tierlab
