#pragma once
// The compressions traces ship in, told from their magic bytes (never from
// the file name), and the decompressing streambuf for each.
//
//   gzip  1f 8b 08, then a flag byte with its reserved bits clear
//   zstd  28 b5 2f fd (a frame), or 5? 2a 4d 18 (a skippable frame, as
//         pzstd output starts)
//   xz    fd 37 7a 58 5a 00
//
// gzip's check goes beyond the two-byte magic so that a binary trace whose
// first bytes happen to be 1f 8b (a key-only trace's first key) is taken for
// gzip only by a 1-in-2^27 chance.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <streambuf>
#include <string_view>

#include "bench/trace/DecompressingStreambuf.h"

namespace tierlab {

enum class TraceCompression { kNone, kGzip, kZstd, kXz };

// Bytes DetectTraceCompression needs to tell every compression.
inline constexpr std::size_t kCompressionMagicBytes = 6;

// The compression `head` (the first bytes of a file) starts with; kNone for
// anything else, including heads shorter than a magic.
TraceCompression DetectTraceCompression(std::string_view head);

// "none", "gzip", "zstd", "xz".
const char* ToString(TraceCompression compression);

// A streambuf that decompresses `source` (not owned; must outlive it);
// nullptr for kNone. `buffer_bytes`: its input and output buffers;
// `memory_limit`: the most its decoder may allocate (TraceOptions).
std::unique_ptr<DecompressingStreambuf> MakeDecompressingStreambuf(TraceCompression compression,
                                                                   std::streambuf* source,
                                                                   std::size_t buffer_bytes,
                                                                   std::uint64_t memory_limit);

}  // namespace tierlab
