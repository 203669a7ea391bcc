#pragma once
// xz decompression through liblzma, for traces shipped as .xz. Concatenated
// .xz streams (`cat a.xz b.xz`) and stream padding read through to the end.
// The data ending inside a stream is "xz: truncated: ..."; damage is
// liblzma's reason ("xz: compressed data is corrupt"); a stream whose
// dictionary needs more than `memory_limit` bytes is refused with the
// amount it needs, before that memory is allocated.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bench/trace/DecompressingStreambuf.h"

namespace tierlab {

// `source` holds the xz bytes and must outlive the result.
std::unique_ptr<DecompressingStreambuf> MakeXzStreambuf(std::streambuf* source,
                                                        std::size_t buffer_bytes,
                                                        std::uint64_t memory_limit);

}  // namespace tierlab
