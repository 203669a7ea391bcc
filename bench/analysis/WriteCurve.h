#pragma once
// The write side of cache sizing: the share of writes a write-back cache
// absorbs without throttling, measured by simulating the workload at several
// cache sizes (bench/lab/WriteCacheAnalyzer.cc runs them), and the size it
// leads to. docs/ANALYZER.md, "Cache sizing".

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tierlab {

struct WriteCurvePoint {
  std::uint64_t cache_bytes = 0;
  double absorbed_share = 0;        // writes absorbed without throttling / write requests
  double throttled_wall_share = 0;  // run time during which some write became throttled
};

// Orders the points by cache size, smallest first.
void SortBySize(std::vector<WriteCurvePoint>& curve);

// What the measured curve says about the size needed to absorb `target` of
// the writes: the smallest size tried from which every larger size tried
// reaches the target (so a dip in a noisy curve does not count), and the
// size tried just below it, which misses. The true knee lies between the
// two; sizes below the smallest tried were not measured.
struct SizeRecommendation {
  enum class Kind {
    kBelowSmallest,  // every size tried reaches the target: the need is <= the smallest
    kBetween,        // the need is in (above_bytes, at_most_bytes]
    kUnreached,      // not even the largest size tried reaches it
  };
  Kind kind = Kind::kUnreached;
  std::uint64_t at_most_bytes = 0;  // kBelowSmallest, kBetween
  double at_most_share = 0;         // absorbed share at at_most_bytes
  std::uint64_t above_bytes = 0;    // kBetween
  double above_share = 0;           // absorbed share at above_bytes
};

// `curve` sorted by size; an empty curve is kUnreached.
SizeRecommendation RecommendSize(std::span<const WriteCurvePoint> curve, double target);

// "below_smallest_size", "between_sizes", "unreached" (the JSON's words).
const char* KindName(SizeRecommendation::Kind kind);

}  // namespace tierlab
