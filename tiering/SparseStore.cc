#include "tiering/SparseStore.h"

#include <algorithm>
#include <cstring>

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

}  // namespace tierlab
