#pragma once
// The answer to "what does [offset, offset + length) of a device hold?"
// (BlockDevice::QueryAllocation): consecutive extents from the queried
// offset, each either data or a hole. Copy tools use it to skip holes
// (NBD's base:allocation context, `qemu-img map`, `nbdcopy`).
//
// Safety rule: a hole is a promise that the range reads back as zeros and
// holds nothing the volume needs. "Data" promises nothing (the range may be
// zeros too), so a layer that cannot tell answers data. Reporting a hole
// where data exists makes a copy silently lose that data.

#include <cstdint>
#include <vector>

namespace tierlab {

struct AllocationExtent {
  std::uint64_t length = 0;
  // True: reads as zeros and has no storage behind it (a sparse file's hole,
  // a never-written page of a RAM device). False: data, or not known.
  bool hole = false;
};

using AllocationMap = std::vector<AllocationExtent>;

// Appends `length` bytes of one kind to `map`, merged into the last extent
// when it is of the same kind. A zero length appends nothing.
inline void AppendExtent(AllocationMap& map, std::uint64_t length, bool hole) {
  if (length == 0) return;
  if (!map.empty() && map.back().hole == hole) {
    map.back().length += length;
  } else {
    map.push_back({length, hole});
  }
}

// Bytes the extents of `map` cover.
inline std::uint64_t CoveredBytes(const AllocationMap& map) {
  std::uint64_t n = 0;
  for (const AllocationExtent& e : map) n += e.length;
  return n;
}

}  // namespace tierlab
