#pragma once
// A miss-ratio curve sampled at chosen LRU cache sizes, as produced by
// StackDistanceMrc (exact) and ShardsMrc (estimated).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tierlab {

struct MrcPoint {
  std::uint64_t cache_blocks = 0;
  double miss_ratio = 0;  // over all references fed
  double read_miss_ratio =
      0;  // over read references only (the cache also holds what writes brought)
};

struct MissRatioCurve {
  std::uint64_t block_size = 4096;
  double references = 0;  // block references (estimated for SHARDS)
  double read_references = 0;
  std::vector<MrcPoint> points;
};

// n cache sizes evenly spaced over (0, max_blocks], at least 1 block each,
// without duplicates.
std::vector<std::uint64_t> EvenCacheSizes(std::uint64_t max_blocks, int n);

nlohmann::json ToJson(const MissRatioCurve& curve);
// "cache_MiB  cache_blocks  miss_ratio  read_miss_ratio" rows.
std::string ToTextTable(const MissRatioCurve& curve);

}  // namespace tierlab
