#pragma once
// An ordered set of volume line numbers as a sparse two-level bitmap: the
// sorted index of the `lba` destage order. It replaces a std::set, whose
// node allocation and pointer-chasing tree walk made marking a line dirty the
// costliest step of a simulated write-back run.
//
// Lines are grouped 4096 to a leaf (a 512-byte bitmap plus a 64-bit summary of
// its non-zero words); a leaf is allocated when its first line arrives and
// recycled when its last one leaves. A directory maps group -> leaf, and two
// summary bitmaps over the groups find the next non-empty group quickly, so
// Insert/Erase/Contains are O(1) and LowerBound() is a few word scans.
//
// Limits: lines must be < 2^32 (the cache target's line numbers always are;
// LineTable::kMaxKey). Memory: 4 bytes of directory per 4096 lines up to the
// highest line seen, plus ~0.5 KiB per group holding at least one line, so at
// most ~1/8 byte per line of the range in use however the lines are spread.
//
// Threading: not thread-safe. Failure: none (the precondition is asserted).

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tierlab {

class SortedLineSet {
 public:
  static constexpr std::uint64_t kMaxLine = 0xFFFFFFFFull;
  static constexpr std::uint64_t kNone = UINT64_MAX;

  // True if `line` was not present (and now is).
  bool Insert(std::uint64_t line);
  // True if `line` was present (and now is not).
  bool Erase(std::uint64_t line);
  bool Contains(std::uint64_t line) const;
  // Smallest line >= `line`, or kNone.
  std::uint64_t LowerBound(std::uint64_t line) const;
  std::uint64_t First() const { return LowerBound(0); }

  std::size_t Size() const { return size_; }
  bool Empty() const { return size_ == 0; }
  std::size_t MemoryBytes() const;

 private:
  static constexpr int kLeafShift = 12;  // 4096 lines per leaf
  static constexpr std::uint32_t kNoLeaf = 0;
  struct Leaf {
    std::uint64_t summary = 0;  // bit w: words[w] != 0
    std::uint32_t count = 0;
    std::uint32_t next_free = 0;
    std::uint64_t words[64] = {};
  };

  // Leaf index + 1 for group g, or kNoLeaf.
  std::uint32_t LeafOf(std::uint64_t g) const { return g < dir_.size() ? dir_[g] : kNoLeaf; }
  // First set bit of leaf `l` at or above bit `bit` (0..4095), or -1.
  static int NextInLeaf(const Leaf& leaf, unsigned bit);
  // Smallest non-empty group >= g, or kNone.
  std::uint64_t NextGroup(std::uint64_t g) const;
  void SetGroupBit(std::uint64_t g, bool on);

  std::vector<std::uint32_t> dir_;      // group -> leaf index + 1
  std::vector<Leaf> leaves_;            // leaves_[i - 1] is leaf i
  std::uint32_t free_leaf_ = kNoLeaf;   // recycled leaves, linked by next_free
  std::vector<std::uint64_t> groups_;   // bit g: group g non-empty
  std::vector<std::uint64_t> groups2_;  // bit w: groups_[w] != 0
  std::size_t size_ = 0;
};

}  // namespace tierlab
