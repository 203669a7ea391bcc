#pragma once
// fio's pattern syntax (verify_pattern, buffer_pattern; fio's lib/pattern.c)
// and how fio lays a pattern over a write's buffer.
//
// A pattern is elements one after another, at most 512 bytes in all:
//   0x...      hex digits, two per byte in the order written; an odd count
//              gives the first digit a byte of its own ("0xabc": 0a bc)
//   123, -12   a decimal in the range of a 32-bit int, its low bytes first,
//              as few as hold it (0: one zero byte; a negative: four)
//   "text"     the bytes between the quotes (no escapes)
//   %o         8 bytes: the offset of the write, little-endian (only where
//              offsets are allowed: verify_pattern)
// e.g. 0xff%o"abcd"-12. fio's 'file' element (a pattern read from a file)
// is not supported.
//
// A write's buffer holds the pattern from its first byte, again and again,
// each copy with the write's offset at every %o.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"

namespace tierlab {

inline constexpr std::size_t kMaxPatternBytes = 512;  // fio's MAX_PATTERN_SIZE

struct FioPattern {
  std::vector<std::byte> bytes;             // one copy, %o's bytes zero
  std::vector<std::uint32_t> offset_slots;  // where each %o starts in a copy
  bool operator==(const FioPattern&) const = default;
};

// Errors name the element that does not parse.
Expected<FioPattern> ParseFioPattern(std::string_view text, bool allow_offsets);

// Bytes [from, from + len) of the buffer of a write at `write_offset`
// (`from` counts from the write's first byte).
void FillFromPattern(const FioPattern& pattern, std::uint64_t write_offset, std::uint64_t from,
                     std::byte* out, std::uint64_t len);

}  // namespace tierlab
