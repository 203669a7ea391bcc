#pragma once
// tierlab's own trace format: a 32-byte header, then fixed 24-byte records,
// all little-endian. Chosen for decode speed (no parsing, no varints) and for
// random access (record i at 32 + 24 * i). Layout in docs/TRACE-FORMATS.md.
//
// Header: char magic[8] = "TLTRACE\0"; u16 version = 1; u16 record_size = 24;
//         u32 flags = 0; u64 record_count (kUnknownCount when the writer
//         could not seek back to fill it in); u64 reserved = 0.
// Record: i64 timestamp_ns (relative to the first record); u64 offset
//         (bytes); u32 length (bytes); u8 op (IoOp: 0 read, 1 write,
//         2 flush, 3 discard); u8 reserved[3] = 0.

#include <cstddef>
#include <cstdint>

#include "bench/trace/BinaryTraceReader.h"
#include "bench/trace/TraceReader.h"

namespace tierlab::tierlab_bin {

inline constexpr char kMagic[8] = {'T', 'L', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr std::uint16_t kVersion = 1;
inline constexpr std::size_t kHeaderSize = 32;
inline constexpr std::size_t kRecordSize = 24;
inline constexpr std::uint64_t kUnknownCount = ~std::uint64_t{0};

inline void EncodeHeader(unsigned char* p, std::uint64_t record_count) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(kMagic[i]);
  StoreLe16(p + 8, kVersion);
  StoreLe16(p + 10, kRecordSize);
  StoreLe32(p + 12, 0);
  StoreLe64(p + 16, record_count);
  StoreLe64(p + 24, 0);
}

inline void EncodeRecord(unsigned char* p, const TraceRecord& r) {
  StoreLe64(p, static_cast<std::uint64_t>(r.timestamp));
  StoreLe64(p + 8, r.offset);
  StoreLe32(p + 16, r.length);
  p[20] = static_cast<unsigned char>(r.op);
  p[21] = p[22] = p[23] = 0;
}

}  // namespace tierlab::tierlab_bin
