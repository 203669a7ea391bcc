#include "bench/analysis/MissRatioCurve.h"

#include <cstdio>

namespace tierlab {

std::vector<std::uint64_t> EvenCacheSizes(std::uint64_t max_blocks, int n) {
  std::vector<std::uint64_t> sizes;
  if (max_blocks == 0 || n <= 0) return sizes;
  for (int i = 1; i <= n; ++i) {
    std::uint64_t s = std::max<std::uint64_t>(1, max_blocks * static_cast<std::uint64_t>(i) / n);
    if (sizes.empty() || s > sizes.back()) sizes.push_back(s);
  }
  return sizes;
}

nlohmann::json ToJson(const MissRatioCurve& c) {
  nlohmann::json pts = nlohmann::json::array();
  for (const MrcPoint& p : c.points) {
    pts.push_back({{"cache_blocks", p.cache_blocks},
                   {"cache_bytes", p.cache_blocks * c.block_size},
                   {"miss_ratio", p.miss_ratio},
                   {"read_miss_ratio", p.read_miss_ratio}});
  }
  return {{"block_size", c.block_size},
          {"references", c.references},
          {"read_references", c.read_references},
          {"points", pts}};
}

std::string ToTextTable(const MissRatioCurve& c) {
  std::string out = "cache_MiB    cache_blocks  miss_ratio  read_miss_ratio\n";
  char line[128];
  for (const MrcPoint& p : c.points) {
    std::snprintf(line, sizeof line, "%10.1f  %14llu  %10.4f  %15.4f\n",
                  static_cast<double>(p.cache_blocks * c.block_size) / (1 << 20),
                  static_cast<unsigned long long>(p.cache_blocks), p.miss_ratio, p.read_miss_ratio);
    out += line;
  }
  return out;
}

}  // namespace tierlab
