#pragma once
// Where a cluster volume's extents live: `copies` copies of each extent on
// distinct nodes, every node holding the same share, computed from the
// extent's number alone (no table: a 16-node cluster of 24 large devices
// each has billions of 1 MiB chunks).
//
// The volume's extents come in groups of `nodes`. Group g uses slots g *
// copies ... g * copies + copies - 1 of every node, and extent k of the
// group (k = 0 .. nodes - 1) puts its copy i on node P_g((k + i) mod nodes),
// in that node's slot g * copies + i. For a fixed group and copy i, k ->
// node is a bijection, so no two copies share a slot, and each node holds
// exactly `copies` extents of each group. P_g is:
//
//   - kChained: the identity. Copy i of extent k is on node k + i: each
//     node's data is mirrored on its next neighbours only (chained
//     declustering; a slab layout with fixed partners).
//   - kMesh: a permutation drawn per group from the seed. Any two nodes
//     share some extents, so a failed node's data is re-copied from, and
//     to, all the others (ScaleIO/PowerFlex's random mesh of 1 MiB chunks
//     with two copies; S2D spreading 256 MiB slabs).
//
// ../shared/research/CLUSTER-MODELS.md, "Placement". Pure data: no I/O.
// Threading: one thread at a time (a mesh's permutations are memoised).

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tierlab {

class ClusterPlacement {
 public:
  enum class Scheme : std::uint8_t { kChained, kMesh };
  struct Copy {
    std::uint32_t node = 0;
    std::uint64_t offset = 0;  // the extent's first byte on that node
  };

  // Needs 1 <= copies <= nodes and extent_bytes > 0 (the layout checks).
  ClusterPlacement(std::uint32_t nodes, std::uint32_t copies, std::uint64_t extent_bytes,
                   Scheme scheme, std::uint64_t seed);

  // Copy `i` (0 = the primary) of volume extent `extent`.
  Copy Locate(std::uint64_t extent, std::uint32_t i) const;
  // The volume's bytes when every node offers `node_bytes`: whole groups.
  std::uint64_t VolumeBytes(std::uint64_t node_bytes) const;

  std::uint32_t nodes() const { return nodes_; }
  std::uint32_t copies() const { return copies_; }
  std::uint64_t extent_bytes() const { return extent_bytes_; }
  Scheme scheme() const { return scheme_; }

 private:
  // P_g(x): position x of group g's node permutation.
  std::uint32_t Permuted(std::uint64_t group, std::uint32_t x) const;

  // A mesh's permutation costs a shuffle of the nodes (16 nodes: 15 random
  // draws), which was 7.6 % of a 16-node cluster's simulation when drawn
  // per lookup, and a request looks its extent up several times (each copy,
  // dispatch, completion). The last ones drawn are kept, one per group
  // modulo the table's size (docs/PERFORMANCE.md, "Cluster simulation").
  static constexpr std::uint32_t kMaxPermutedNodes = 64;
  static constexpr std::size_t kMemoGroups = 1024;
  struct Memo {
    std::uint64_t group = ~std::uint64_t{0};
    std::array<std::uint8_t, kMaxPermutedNodes> nodes{};
  };

  std::uint32_t nodes_;
  std::uint32_t copies_;
  std::uint64_t extent_bytes_;
  Scheme scheme_;
  std::uint64_t seed_;
  mutable std::vector<Memo> memo_;  // mesh only
};

std::string_view ToString(ClusterPlacement::Scheme s);

}  // namespace tierlab
