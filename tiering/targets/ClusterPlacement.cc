#include "tiering/targets/ClusterPlacement.h"

#include <numeric>

#include "tiering/core/SplitMix64.h"

namespace tierlab {

ClusterPlacement::ClusterPlacement(std::uint32_t nodes, std::uint32_t copies,
                                   std::uint64_t extent_bytes, Scheme scheme, std::uint64_t seed)
    : nodes_(nodes), copies_(copies), extent_bytes_(extent_bytes), scheme_(scheme), seed_(seed) {
  if (scheme_ == Scheme::kMesh && nodes_ <= kMaxPermutedNodes) memo_.resize(kMemoGroups);
}

std::uint32_t ClusterPlacement::Permuted(std::uint64_t group, std::uint32_t x) const {
  if (memo_.empty()) return x;  // chained, or too many nodes to shuffle
  Memo& m = memo_[group % kMemoGroups];
  if (m.group != group) {
    // Fisher-Yates from the group's own random stream.
    std::iota(m.nodes.begin(), m.nodes.begin() + nodes_, std::uint8_t{0});
    std::uint64_t state = SplitMix64Hash(seed_ ^ SplitMix64Hash(group));
    for (std::uint32_t i = nodes_ - 1; i > 0; --i) {
      state = SplitMix64Hash(state);
      const auto j = static_cast<std::uint32_t>(state % (i + 1));
      std::swap(m.nodes[i], m.nodes[j]);
    }
    m.group = group;
  }
  return m.nodes[x];
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
