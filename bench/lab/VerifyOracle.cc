#include "bench/lab/VerifyOracle.h"

#include <algorithm>
#include <cstring>

#include "tiering/core/SplitMix64.h"

namespace tierlab {
namespace {

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

void VerifyOracle::Fill(const Piece& piece, std::uint64_t block_offset, std::byte* out) const {
  if (piece.style != 0) {
    FillPattern(styles_[piece.style - 1], piece.origin, block_offset, out);
    return;
  }
  // The block's own offset first, as fio's header has it: a block read from
  // the wrong place says where it came from.
  std::memcpy(out, &block_offset, sizeof block_offset);
  const std::uint64_t key =
      SplitMix64Hash(piece.seed ^ SplitMix64Hash(piece.serial) ^ SplitMix64Hash(block_offset + 1));
  for (std::uint32_t i = 8; i + 8 <= block_; i += 8) {
    const std::uint64_t v = SplitMix64Hash(key + i);
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

void VerifyOracle::FillPattern(const PatternStyle& style, std::uint64_t origin,
                               std::uint64_t block_offset, std::byte* out) const {
  const std::uint64_t from = block_offset - origin;  // in the write
  FillFromPattern(style.pattern, origin, from, out, block_);
  if (!style.header) return;
  // The headers that start in this block or end in it.
  const std::uint64_t first = from < 8 ? 0 : (from - 7 + style.interval - 1) / style.interval;
  for (std::uint64_t h = first * style.interval; h < from + block_; h += style.interval) {
    const std::uint64_t at = origin + h;  // what the header says
    for (std::uint64_t b = 0; b < 8; ++b) {
      if (h + b >= from && h + b < from + block_) {
        out[h + b - from] = static_cast<std::byte>((at >> (8 * b)) & 0xff);
      }
    }
  }
}

std::uint32_t VerifyOracle::AddPatternStyle(PatternStyle style) {
  styles_.push_back(std::move(style));
  return static_cast<std::uint32_t>(styles_.size());
}

std::uint64_t VerifyOracle::Record(const Piece& piece, std::uint64_t offset, std::byte* buf) {
  Cut(offset, piece.end);
  pieces_.emplace(offset, piece);
  if (buf != nullptr) {
    for (std::uint64_t b = offset; b < piece.end; b += block_) Fill(piece, b, buf + (b - offset));
  }
  return piece.serial;
}

std::uint64_t VerifyOracle::RecordWrite(std::uint64_t seed, std::uint64_t offset,
                                        std::uint64_t length, std::byte* buf) {
  return Record(Piece{offset + length, seed, next_serial_++, offset, 0}, offset, buf);
}

std::uint64_t VerifyOracle::RecordPatternWrite(std::uint32_t style, std::uint64_t offset,
                                               std::uint64_t length, std::byte* buf) {
  return Record(Piece{offset + length, 0, next_serial_++, offset, style}, offset, buf);
}

void VerifyOracle::Forget(std::uint64_t offset, std::uint64_t length) {
  Cut(offset, offset + length);
}

void VerifyOracle::Landed(std::uint64_t serial, std::uint64_t offset, std::uint64_t length,
                          Nanos now) {
  auto it = pieces_.upper_bound(offset);
  if (it != pieces_.begin()) --it;
  for (; it != pieces_.end() && it->first < offset + length; ++it) {
    if (it->second.serial == serial) it->second.landed = now;  // not if overwritten since
  }
}

std::optional<std::uint64_t> VerifyOracle::Check(std::uint64_t offset, std::uint64_t length,
                                                 const std::byte* buf, std::uint64_t* checked,
                                                 std::optional<Nanos> read_issued) const {
  std::vector<std::byte> want(block_);
  std::uint64_t n = 0;
  std::optional<std::uint64_t> bad;
  const std::uint64_t end = offset + length;
  auto it = pieces_.upper_bound(offset);
  if (it != pieces_.begin()) --it;
  for (; it != pieces_.end() && it->first < end; ++it) {
    if (read_issued && it->second.landed > *read_issued) continue;  // raced the read
    const std::uint64_t from = std::max(it->first, offset);
    const std::uint64_t to = std::min(it->second.end, end);
    for (std::uint64_t b = from; b < to; b += block_) {
      Fill(it->second, b, want.data());
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

std::uint64_t WrittenExtents::Add(std::uint64_t offset, std::uint64_t length) {
  CutRange(
      extents_, offset, offset + length, [](const Extent& e) { return e.end; },
      [](Extent e, std::uint64_t new_end) {
        e.end = new_end;
        return e;
      });
  const std::uint64_t id = next_id_++;
  extents_.emplace(offset, Extent{offset + length, id});
  in_flight_.insert(id);
  if (in_write_order_) {
    by_age_.emplace(id, offset);
    // An older extent this write split keeps its tail after it, which now
    // starts here.
    const auto tail = extents_.find(offset + length);
    if (tail != extents_.end() && tail->second.id < id)
      by_age_.emplace(tail->second.id, tail->first);
  }
  return id;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> WrittenExtents::TakeFirst() {
  auto first = extents_.begin();
  if (in_write_order_) {
    for (;;) {
      if (by_age_.empty()) return std::nullopt;
      const auto [id, start] = by_age_.top();
      first = extents_.find(start);
      if (first != extents_.end() && first->second.id == id) break;
      by_age_.pop();  // cut away or moved since
    }
  }
  if (first == extents_.end() || in_flight_.contains(first->second.id)) return std::nullopt;
  if (in_write_order_) by_age_.pop();
  const std::pair<std::uint64_t, std::uint64_t> out{first->first, first->second.end - first->first};
  extents_.erase(first);
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> WrittenExtents::Pieces(
    std::uint64_t max_length) const {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  auto add = [&](std::uint64_t start, std::uint64_t end) {
    for (std::uint64_t o = start; o < end; o += max_length) {
      out.emplace_back(o, std::min(max_length, end - o));
    }
  };
  if (!in_write_order_) {
    for (const auto& [start, extent] : extents_) add(start, extent.end);
    return out;
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> order;  // (id, start)
  order.reserve(extents_.size());
  for (const auto& [start, extent] : extents_) order.emplace_back(extent.id, start);
  std::sort(order.begin(), order.end());
  for (const auto& [id, start] : order) add(start, extents_.at(start).end);
  return out;
}

}  // namespace tierlab
