#pragma once
// Sparse byte store for RAM devices and with-data simulated devices.
// Unwritten and discarded bytes read as zeros. Memory grows with the bytes
// written, in 4 KiB pages.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "tiering/core/AllocationMap.h"

namespace tierlab {

class SparseStore {
 public:
  static constexpr std::uint64_t kPageSize = 4096;

  void Read(std::uint64_t offset, std::uint64_t length, std::byte* out) const;
  void Write(std::uint64_t offset, std::uint64_t length, const std::byte* in);
  // Zeroes the range and releases whole pages.
  void Discard(std::uint64_t offset, std::uint64_t length);
  std::size_t resident_pages() const { return pages_.size(); }
  // Appends to `out` the extents of [offset, offset + length): pages never
  // written (or discarded whole) are holes, resident pages data (even if
  // they hold zeros). Stops early, a prefix answer, once `out` holds more
  // than `max_extents` (so the first max_extents are whole). Costs one lookup per page of the
  // range, or one pass over the resident pages when there are fewer of them.
  void MapAllocation(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                     AllocationMap& out) const;

 private:
  std::unordered_map<std::uint64_t, std::unique_ptr<std::byte[]>> pages_;
};

}  // namespace tierlab
