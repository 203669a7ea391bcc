#include "bench/trace/TraceCompression.h"

#include "bench/trace/GzipStreambuf.h"
#include "bench/trace/XzStreambuf.h"
#include "bench/trace/ZstdStreambuf.h"

namespace tierlab {

TraceCompression DetectTraceCompression(std::string_view head) {
  auto b = [&](std::size_t i) { return static_cast<unsigned char>(head[i]); };
  if (head.size() >= 4 && b(0) == 0x1f && b(1) == 0x8b && b(2) == 0x08 && (b(3) & 0xe0) == 0) {
    return TraceCompression::kGzip;
  }
  if (head.size() >= 4 && b(0) == 0x28 && b(1) == 0xb5 && b(2) == 0x2f && b(3) == 0xfd) {
    return TraceCompression::kZstd;
  }
  if (head.size() >= 4 && (b(0) & 0xf0) == 0x50 && b(1) == 0x2a && b(2) == 0x4d && b(3) == 0x18) {
    return TraceCompression::kZstd;
  }
  if (head.substr(0, 6) == std::string_view("\xfd"
                                            "7zXZ\0",
                                            6))
    return TraceCompression::kXz;
  return TraceCompression::kNone;
}

const char* ToString(TraceCompression compression) {
  switch (compression) {
    case TraceCompression::kNone: return "none";
    case TraceCompression::kGzip: return "gzip";
    case TraceCompression::kZstd: return "zstd";
    case TraceCompression::kXz: return "xz";
  }
  return "unknown";
}

std::unique_ptr<DecompressingStreambuf> MakeDecompressingStreambuf(TraceCompression compression,
                                                                   std::streambuf* source,
                                                                   std::size_t buffer_bytes,
                                                                   std::uint64_t memory_limit) {
  switch (compression) {
    case TraceCompression::kNone: return nullptr;
    case TraceCompression::kGzip: return MakeGzipStreambuf(source, buffer_bytes);
    case TraceCompression::kZstd: return MakeZstdStreambuf(source, buffer_bytes, memory_limit);
    case TraceCompression::kXz: return MakeXzStreambuf(source, buffer_bytes, memory_limit);
  }
  return nullptr;
}

}  // namespace tierlab
