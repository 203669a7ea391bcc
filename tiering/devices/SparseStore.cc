#include "tiering/devices/SparseStore.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tierlab {

void SparseStore::Read(std::uint64_t offset, std::uint64_t length, std::byte* out) const {
  while (length > 0) {
    const std::uint64_t page = offset / kPageSize;
    const std::uint64_t in_page = offset % kPageSize;
    const std::uint64_t n = std::min(length, kPageSize - in_page);
    auto it = pages_.find(page);
    if (it == pages_.end()) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, it->second.get() + in_page, n);
    }
    offset += n;
    out += n;
    length -= n;
  }
}

void SparseStore::Write(std::uint64_t offset, std::uint64_t length, const std::byte* in) {
  while (length > 0) {
    const std::uint64_t page = offset / kPageSize;
    const std::uint64_t in_page = offset % kPageSize;
    const std::uint64_t n = std::min(length, kPageSize - in_page);
    auto& p = pages_[page];
    if (!p) {
      p = std::make_unique<std::byte[]>(kPageSize);  // value-initialised: zeros
    }
    std::memcpy(p.get() + in_page, in, n);
    offset += n;
    in += n;
    length -= n;
  }
}

void SparseStore::Discard(std::uint64_t offset, std::uint64_t length) {
  while (length > 0) {
    const std::uint64_t page = offset / kPageSize;
    const std::uint64_t in_page = offset % kPageSize;
    const std::uint64_t n = std::min(length, kPageSize - in_page);
    auto it = pages_.find(page);
    if (it != pages_.end()) {
      if (n == kPageSize) {
        pages_.erase(it);
      } else {
        std::memset(it->second.get() + in_page, 0, n);
      }
    }
    offset += n;
    length -= n;
  }
}

void SparseStore::MapAllocation(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                                AllocationMap& out) const {
  if (length == 0) return;
  const std::uint64_t end = offset + length;
  const std::uint64_t first = offset / kPageSize;
  const std::uint64_t last = (end - 1) / kPageSize;
  std::vector<std::uint64_t> resident;  // pages of the range holding data, ascending
  if (last - first + 1 <= pages_.size()) {
    for (std::uint64_t p = first; p <= last; ++p) {
      if (pages_.count(p) != 0) resident.push_back(p);
    }
  } else {
    for (const auto& [p, data] : pages_) {
      if (p >= first && p <= last) resident.push_back(p);
    }
    std::sort(resident.begin(), resident.end());
  }
  std::uint64_t pos = offset;
  for (const std::uint64_t p : resident) {
    const std::uint64_t start = std::max(p * kPageSize, offset);
    const std::uint64_t stop = std::min((p + 1) * kPageSize, end);
    AppendExtent(out, start - pos, true);
    AppendExtent(out, stop - start, false);
    pos = stop;
    if (out.size() > max_extents) return;  // a prefix; the first max_extents are whole
  }
  AppendExtent(out, end - pos, true);
}

}  // namespace tierlab
