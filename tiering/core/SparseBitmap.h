#pragma once
// A set of small integers (extent numbers) over a range too large for a
// flat bitmap and written in runs: pages of 64 Ki bits, allocated on the
// first bit set in them. A 16-node cluster of 24 large devices has billions
// of 1 MiB extents; a run writes a few thousand pages' worth at most.
//
// Threading: none; a value type.

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace tierlab {

class SparseBitmap {
 public:
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

  bool Test(std::uint64_t i) const {
    const std::uint64_t p = i / kPageBits;
    if (p >= pages_.size() || !pages_[p]) return false;
    return ((*pages_[p])[(i % kPageBits) / 64] >> (i % 64) & 1) != 0;
  }
  void Set(std::uint64_t i) {
    const std::uint64_t p = i / kPageBits;
    if (p >= pages_.size()) pages_.resize(p + 1);
    if (!pages_[p]) pages_[p] = std::make_unique<Page>();
    (*pages_[p])[(i % kPageBits) / 64] |= std::uint64_t{1} << (i % 64);
  }
  // The first set bit at or after `from`, or kNone.
  std::uint64_t NextSet(std::uint64_t from) const {
    for (std::uint64_t p = from / kPageBits; p < pages_.size(); ++p) {
      if (!pages_[p]) continue;
      const Page& page = *pages_[p];
      std::uint64_t w = p == from / kPageBits ? (from % kPageBits) / 64 : 0;
      for (; w < page.size(); ++w) {
        std::uint64_t bits = page[w];
        const std::uint64_t first = p * kPageBits + w * 64;
        if (first < from) bits &= ~std::uint64_t{0} << (from - first);
        if (bits != 0) return first + static_cast<std::uint64_t>(std::countr_zero(bits));
      }
    }
    return kNone;
  }

 private:
  static constexpr std::uint64_t kPageBits = std::uint64_t{1} << 16;
  using Page = std::array<std::uint64_t, kPageBits / 64>;
  std::vector<std::unique_ptr<Page>> pages_;
};

}  // namespace tierlab
