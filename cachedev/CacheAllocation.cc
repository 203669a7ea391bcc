// CacheTarget::AllocationImpl: which ranges of the volume are holes.
//
// A read of a resident line is served from the cache, a read of any other
// line from the origin (ReadPath.cc), so the volume's content is the cache's
// for resident lines and the origin's elsewhere. The answer mirrors that:
// resident lines (clean or dirty) are data, whatever the origin says; the
// gaps between them are the origin's answer. An acknowledged write-back
// write is a dirty resident line until destage has written it to the origin,
// so its data is never reported as a hole.

#include <algorithm>
#include <vector>

#include "cachedev/CacheTarget.h"

namespace tierlab {
namespace {

// Per-line lookups per query, beyond which the query answers a prefix...
constexpr std::uint64_t kMaxLookups = 1u << 16;
// ...unless the whole table is smaller than this: then one pass over its
// slots finds the resident lines of any range.
constexpr std::uint32_t kMaxScan = 1u << 22;
// Origin queries (one per gap between resident lines) per query.
constexpr std::size_t kMaxOriginQueries = 4096;

}  // namespace

void CacheTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                 std::size_t max_extents, AllocationMap& out) const {
  const std::uint64_t end = offset + length;
  const std::uint64_t first = LineOf(offset);
  std::uint64_t last = LineOf(end - 1);
  std::vector<std::uint64_t> resident;  // resident lines in [first, last], ascending
  if (last - first + 1 > kMaxLookups && table_.capacity() <= kMaxScan) {
    for (Slot s = 0; s < table_.capacity(); ++s) {
      if (!table_.Resident(s)) continue;
      const std::uint64_t line = table_.Key(s);
      if (line >= first && line <= last) resident.push_back(line);
    }
    std::sort(resident.begin(), resident.end());
  } else {
    last = std::min(last, first + kMaxLookups - 1);
    for (std::uint64_t line = first; line <= last; ++line) {
      if (table_.Find(line) != LineTable::kNone) resident.push_back(line);
    }
  }
  const std::uint64_t examined_end = std::min(end, LineEnd(last));

  std::size_t origin_queries = 0;
  AllocationMap piece;
  // The origin's answer for [from, to); false if it covered less (a prefix).
  auto ask_origin = [&](std::uint64_t from, std::uint64_t to) {
    if (++origin_queries > kMaxOriginQueries ||
        origin_->QueryAllocation(from, to - from, max_extents + 1 - out.size(), &piece) !=
            Status::kOk) {
      return false;
    }
    for (const AllocationExtent& e : piece) AppendExtent(out, e.length, e.hole);
    return CoveredBytes(piece) == to - from;
  };
  std::uint64_t pos = offset;
  for (const std::uint64_t line : resident) {
    const std::uint64_t from = std::max(LineStart(line), offset);
    const std::uint64_t to = std::min(LineEnd(line), end);
    if (from > pos && !ask_origin(pos, from)) return;
    AppendExtent(out, to - from, false);
    pos = to;
    if (out.size() > max_extents) return;
  }
  if (pos < examined_end) ask_origin(pos, examined_end);
}

}  // namespace tierlab
