#pragma once
// Zstandard decompression through libzstd, for traces shipped as .zst (as
// libCacheSim ships its traces). Concatenated frames (`cat a.zst b.zst`,
// zstd -T output) and skippable frames (pzstd's) read through to the end.
// The data ending inside a frame is "zstd: truncated: ..."; damage is
// libzstd's reason ("zstd: Data corruption detected"). A frame whose window
// exceeds `memory_limit` bytes (rounded down to a power of two, as zstd's
// --memory) is refused before anything is allocated for it, unless it is
// small enough for libzstd to decode straight into the output buffer,
// which takes no window.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bench/trace/DecompressingStreambuf.h"

namespace tierlab {

// `source` holds the zstd bytes and must outlive the result.
std::unique_ptr<DecompressingStreambuf> MakeZstdStreambuf(std::streambuf* source,
                                                          std::size_t buffer_bytes,
                                                          std::uint64_t memory_limit);

}  // namespace tierlab
