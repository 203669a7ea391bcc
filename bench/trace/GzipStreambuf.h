#pragma once
// gzip (RFC 1952) decompression through zlib, for traces shipped as .gz.
// Multi-member files (`cat a.gz b.gz`, pigz, bgzip) read through to the end
// of the last member. The data ending inside a member is "gzip: truncated:
// ..."; a damaged member, or bytes after a member that are not one, is
// zlib's reason ("gzip: member 2: incorrect header check"). Memory: zlib's
// 32 KiB window and the two buffers.

#include <cstddef>
#include <memory>

#include "bench/trace/DecompressingStreambuf.h"

namespace tierlab {

// `source` holds the gzip bytes and must outlive the result.
std::unique_ptr<DecompressingStreambuf> MakeGzipStreambuf(std::streambuf* source,
                                                          std::size_t buffer_bytes);

}  // namespace tierlab
