#include "policies/SortedLineSet.h"

#include <bit>
#include <cassert>

namespace tierlab {

bool SortedLineSet::Insert(std::uint64_t line) {
  assert(line <= kMaxLine);
  const std::uint64_t g = line >> kLeafShift;
  if (g >= dir_.size()) {
    dir_.resize(g + 1, kNoLeaf);
    groups_.resize((dir_.size() + 63) / 64, 0);
    groups2_.resize((groups_.size() + 63) / 64, 0);
  }
  std::uint32_t l = dir_[g];
  if (l == kNoLeaf) {
    if (free_leaf_ != kNoLeaf) {
      l = free_leaf_;
      free_leaf_ = leaves_[l - 1].next_free;
      leaves_[l - 1] = Leaf{};
    } else {
      leaves_.emplace_back();
      l = static_cast<std::uint32_t>(leaves_.size());
    }
    dir_[g] = l;
    SetGroupBit(g, true);
  }
  Leaf& leaf = leaves_[l - 1];
  const unsigned bit = static_cast<unsigned>(line & 4095);
  std::uint64_t& w = leaf.words[bit >> 6];
  const std::uint64_t m = std::uint64_t{1} << (bit & 63);
  if (w & m) return false;
  w |= m;
  leaf.summary |= std::uint64_t{1} << (bit >> 6);
  ++leaf.count;
  ++size_;
  return true;
}

bool SortedLineSet::Erase(std::uint64_t line) {
  const std::uint64_t g = line >> kLeafShift;
  const std::uint32_t l = LeafOf(g);
  if (l == kNoLeaf) return false;
  Leaf& leaf = leaves_[l - 1];
  const unsigned bit = static_cast<unsigned>(line & 4095);
  std::uint64_t& w = leaf.words[bit >> 6];
  const std::uint64_t m = std::uint64_t{1} << (bit & 63);
  if (!(w & m)) return false;
  w &= ~m;
  if (w == 0) leaf.summary &= ~(std::uint64_t{1} << (bit >> 6));
  --size_;
  if (--leaf.count == 0) {
    dir_[g] = kNoLeaf;
    SetGroupBit(g, false);
    leaf.next_free = free_leaf_;
    free_leaf_ = l;
  }
  return true;
}

bool SortedLineSet::Contains(std::uint64_t line) const {
  const std::uint32_t l = LeafOf(line >> kLeafShift);
  if (l == kNoLeaf) return false;
  const unsigned bit = static_cast<unsigned>(line & 4095);
  return (leaves_[l - 1].words[bit >> 6] >> (bit & 63)) & 1;
}

int SortedLineSet::NextInLeaf(const Leaf& leaf, unsigned bit) {
  const unsigned wi = bit >> 6;
  const std::uint64_t here = leaf.words[wi] & (~std::uint64_t{0} << (bit & 63));
  if (here != 0) return static_cast<int>(wi * 64 + std::countr_zero(here));
  const std::uint64_t later = wi == 63 ? 0 : leaf.summary & (~std::uint64_t{0} << (wi + 1));
  if (later == 0) return -1;
  const unsigned w2 = static_cast<unsigned>(std::countr_zero(later));
  return static_cast<int>(w2 * 64 + std::countr_zero(leaf.words[w2]));
}

std::uint64_t SortedLineSet::NextGroup(std::uint64_t g) const {
  if (g >= dir_.size()) return kNone;
  std::uint64_t wi = g >> 6;
  std::uint64_t bits = groups_[wi] & (~std::uint64_t{0} << (g & 63));
  if (bits != 0) return wi * 64 + std::countr_zero(bits);
  // Next non-zero word of groups_ after wi, through groups2_.
  const std::uint64_t from = wi + 1;
  std::uint64_t i2 = from >> 6;
  if (i2 >= groups2_.size()) return kNone;
  std::uint64_t b2 =
      (from & 63) == 0 ? groups2_[i2] : groups2_[i2] & (~std::uint64_t{0} << (from & 63));
  while (b2 == 0) {
    if (++i2 >= groups2_.size()) return kNone;
    b2 = groups2_[i2];
  }
  wi = i2 * 64 + std::countr_zero(b2);
  return wi * 64 + std::countr_zero(groups_[wi]);
}

std::uint64_t SortedLineSet::LowerBound(std::uint64_t line) const {
  if (size_ == 0 || line > kMaxLine) return kNone;
  std::uint64_t g = line >> kLeafShift;
  const std::uint32_t l = LeafOf(g);
  if (l != kNoLeaf) {
    const int b = NextInLeaf(leaves_[l - 1], static_cast<unsigned>(line & 4095));
    if (b >= 0) return (g << kLeafShift) + static_cast<std::uint64_t>(b);
  }
  g = NextGroup(g + 1);
  if (g == kNone) return kNone;
  const int b = NextInLeaf(leaves_[dir_[g] - 1], 0);
  assert(b >= 0);
  return (g << kLeafShift) + static_cast<std::uint64_t>(b);
}

void SortedLineSet::SetGroupBit(std::uint64_t g, bool on) {
  std::uint64_t& w = groups_[g >> 6];
  const std::uint64_t m = std::uint64_t{1} << (g & 63);
  w = on ? (w | m) : (w & ~m);
  const std::uint64_t wi = g >> 6;
  std::uint64_t& w2 = groups2_[wi >> 6];
  const std::uint64_t m2 = std::uint64_t{1} << (wi & 63);
  w2 = w != 0 ? (w2 | m2) : (w2 & ~m2);
}

std::size_t SortedLineSet::MemoryBytes() const {
  return dir_.capacity() * sizeof(std::uint32_t) + leaves_.capacity() * sizeof(Leaf) +
         (groups_.capacity() + groups2_.capacity()) * sizeof(std::uint64_t);
}

}  // namespace tierlab
