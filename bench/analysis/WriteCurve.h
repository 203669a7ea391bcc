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

// The smallest size of `curve` (sorted by size) whose absorbed share
// reaches `target`; none if no size does.
std::optional<std::uint64_t> SmallestSizeReaching(std::span<const WriteCurvePoint> curve,
                                                  double target);

}  // namespace tierlab
