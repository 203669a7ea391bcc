#include "bench/lab/VerifyOracle.h"

#include <algorithm>
#include <cstring>

namespace tierlab {
namespace {

std::uint64_t Mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Removes [offset, end) from a map of non-overlapping [start, value.end)
// pieces, keeping what lies outside it.
template <typename Map, typename EndOf, typename Split>
void CutRange(Map& m, std::uint64_t offset, std::uint64_t end, EndOf end_of, Split split) {
  auto it = m.lower_bound(offset);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (end_of(prev->second) > offset) it = prev;
  }
  while (it != m.end() && it->first < end) {
    const std::uint64_t start = it->first;
    const std::uint64_t stop = end_of(it->second);
    auto value = it->second;
    it = m.erase(it);
    if (start < offset) m.emplace(start, split(value, offset));  // the head stays
    if (stop > end) {                                            // the tail stays
      m.emplace(end, split(value, stop));
      return;  // pieces do not overlap: nothing further starts before `end`
    }
  }
}

}  // namespace

void VerifyOracle::Fill(std::uint64_t seed, std::uint64_t serial, std::uint64_t block_offset,
                        std::byte* out) const {
  // The block's own offset first, as fio's header has it: a block read from
  // the wrong place says where it came from.
  std::memcpy(out, &block_offset, sizeof block_offset);
  const std::uint64_t key = Mix(seed ^ Mix(serial) ^ Mix(block_offset + 1));
  for (std::uint32_t i = 8; i + 8 <= block_; i += 8) {
    const std::uint64_t v = Mix(key + i);
    std::memcpy(out + i, &v, 8);
  }
}

void VerifyOracle::Cut(std::uint64_t offset, std::uint64_t end) {
  CutRange(
      pieces_, offset, end, [](const Piece& p) { return p.end; },
      [](Piece p, std::uint64_t new_end) {
        p.end = new_end;
        return p;
      });
}

std::uint64_t VerifyOracle::RecordWrite(std::uint64_t seed, std::uint64_t offset,
                                        std::uint64_t length, std::byte* buf) {
  const std::uint64_t serial = next_serial_++;
  Cut(offset, offset + length);
  pieces_.emplace(offset, Piece{offset + length, seed, serial});
  if (buf != nullptr) {
    for (std::uint64_t b = 0; b < length; b += block_) Fill(seed, serial, offset + b, buf + b);
  }
  return serial;
}

void VerifyOracle::Forget(std::uint64_t offset, std::uint64_t length) {
  Cut(offset, offset + length);
}

std::optional<std::uint64_t> VerifyOracle::Check(std::uint64_t offset, std::uint64_t length,
                                                 const std::byte* buf,
                                                 std::uint64_t* checked) const {
  std::vector<std::byte> want(block_);
  std::uint64_t n = 0;
  std::optional<std::uint64_t> bad;
  const std::uint64_t end = offset + length;
  auto it = pieces_.upper_bound(offset);
  if (it != pieces_.begin()) --it;
  for (; it != pieces_.end() && it->first < end; ++it) {
    const std::uint64_t from = std::max(it->first, offset);
    const std::uint64_t to = std::min(it->second.end, end);
    for (std::uint64_t b = from; b < to; b += block_) {
      Fill(it->second.seed, it->second.serial, b, want.data());
      n += block_;
      if (std::memcmp(want.data(), buf + (b - offset), block_) != 0) {
        bad = b;
        break;
      }
    }
    if (bad) break;
  }
  if (checked != nullptr) *checked = n;
  return bad;
}

void WrittenExtents::Add(std::uint64_t offset, std::uint64_t length) {
  CutRange(
      extents_, offset, offset + length, [](std::uint64_t e) { return e; },
      [](std::uint64_t, std::uint64_t new_end) { return new_end; });
  extents_.emplace(offset, offset + length);
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> WrittenExtents::Pieces(
    std::uint64_t max_length) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const auto& [start, end] : extents_) {
    for (std::uint64_t o = start; o < end; o += max_length) {
      out.emplace_back(o, std::min(max_length, end - o));
    }
  }
  return out;
}

}  // namespace tierlab
