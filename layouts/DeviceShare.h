#pragma once
// The part of a cluster node's addresses (its stack's, where the cluster
// places pieces) that one of its devices holds: what a failed device takes
// with it (cluster.failures[].device; ClusterTarget::LosePieces).
//
//   - all of them: a write-back cache's device (its dirty lines may be of
//     any piece), or the one capacity tier striped so that every piece
//     spans all its devices;
//   - a range: a device of a linear tier;
//   - every `width`-th chunk, from chunk `index`: a device of a stripe
//     whose chunks are narrower than a piece spread over its devices.
// Exact for a node stack that maps its addresses one to one onto its one
// capacity tier (caches and block caches do; a log or data reduction,
// which remap them, are refused when the layout is read).

#include <cstdint>
#include <vector>

#include "layouts/Layout.h"
#include "tiering/core/BlockDevice.h"

namespace tierlab {

struct DeviceShare {
  enum class Kind : std::uint8_t { kAll, kRange, kChunks };
  Kind kind = Kind::kAll;
  std::uint64_t begin = 0, end = 0;  // kRange: [begin, end)
  std::uint64_t chunk = 0;           // kChunks: chunk bytes,
  std::uint32_t index = 0;           // the device's place in the stripe
  std::uint32_t width = 1;           // and its devices

  // Whether any of [offset, offset + length) is on the device (length > 0).
  bool Holds(std::uint64_t offset, std::uint64_t length) const;
};

// The share of device `index` of capacity tier `tier`, whose devices (in
// order) are `devices`, for pieces of `piece_bytes` placed at multiples of
// it: kAll where every piece meets it.
DeviceShare ShareOfDevice(const TierSpec& tier, std::uint32_t index,
                          const std::vector<BlockDevice*>& devices, std::uint64_t piece_bytes);

}  // namespace tierlab
