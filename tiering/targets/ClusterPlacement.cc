#include "tiering/targets/ClusterPlacement.h"

#include <array>
#include <numeric>

namespace tierlab {

namespace {

// splitmix64: a well-mixed 64-bit value from a counter.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr std::uint32_t kMaxPermutedNodes = 64;

}  // namespace

ClusterPlacement::ClusterPlacement(std::uint32_t nodes, std::uint32_t copies,
                                   std::uint64_t extent_bytes, Scheme scheme, std::uint64_t seed)
    : nodes_(nodes), copies_(copies), extent_bytes_(extent_bytes), scheme_(scheme), seed_(seed) {}

std::uint32_t ClusterPlacement::Permuted(std::uint64_t group, std::uint32_t x) const {
  if (scheme_ == Scheme::kChained || nodes_ > kMaxPermutedNodes) return x;
  // Fisher-Yates from the group's own random stream: at most 64 steps, far
  // below the cost of the request it places.
  std::array<std::uint32_t, kMaxPermutedNodes> p{};
  std::iota(p.begin(), p.begin() + nodes_, 0u);
  std::uint64_t state = Mix(seed_ ^ Mix(group));
  for (std::uint32_t i = nodes_ - 1; i > 0; --i) {
    state = Mix(state);
    const auto j = static_cast<std::uint32_t>(state % (i + 1));
    std::swap(p[i], p[j]);
  }
  return p[x];
}

ClusterPlacement::Copy ClusterPlacement::Locate(std::uint64_t extent, std::uint32_t i) const {
  const std::uint64_t group = extent / nodes_;
  const auto k = static_cast<std::uint32_t>(extent % nodes_);
  Copy c;
  c.node = Permuted(group, (k + i) % nodes_);
  c.offset = (group * copies_ + i) * extent_bytes_;
  return c;
}

std::uint64_t ClusterPlacement::VolumeBytes(std::uint64_t node_bytes) const {
  const std::uint64_t groups = node_bytes / (static_cast<std::uint64_t>(copies_) * extent_bytes_);
  return groups * nodes_ * extent_bytes_;
}

std::string_view ToString(ClusterPlacement::Scheme s) {
  return s == ClusterPlacement::Scheme::kMesh ? "mesh" : "chained";
}

}  // namespace tierlab
