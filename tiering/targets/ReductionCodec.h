#pragma once
// What data reduction does to one block's bytes: the zero test, the
// fingerprint and the compressor. The one place tierlab calls xxHash, LZ4
// and zstd (Debian's libxxhash, liblz4, libzstd), linked into this folder's
// library only, as ParityCode is for ISA-L.
//
// Fingerprint: XXH3 64-bit. It is a hint, not a proof (VDO's index is a
// hint too): a match is confirmed by reading the stored block and comparing
// bytes before two blocks share storage, so a collision costs a read and
// never wrong data.
//
// Compression: LZ4 (default acceleration) or zstd at a level. Compress
// returns 0 when the block does not compress into `capacity` bytes, the
// caller's "keep it only if it shrinks enough" bound, so a block that would
// not be kept costs no second copy.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "tiering/core/IoRequest.h"

namespace tierlab {

enum class CompressionKind : std::uint8_t { kNone, kLz4, kZstd };

// "none", "lz4", "zstd".
std::string_view ToString(CompressionKind kind);

// True if every byte of [data, data + len) is zero.
bool IsZeroBlock(const std::byte* data, std::size_t len);

std::uint64_t Fingerprint(const std::byte* data, std::size_t len);

// CPU per 4 KiB block on this project's reference machine
// (bench/micro/DataReductionBench.cc, docs/PERFORMANCE.md, "Data reduction
// per 4 KiB"): what simulation charges, since a simulated run's own CPU
// time is not the modelled system's. Compression figures are the middle of
// the measured range between incompressible and half-compressible data.
struct ReductionCpuCost {
  Nanos fingerprint_ns = 256;
  Nanos compress_ns = 0;    // per block compressed (kind's figure below)
  Nanos decompress_ns = 0;  // per compressed block read
  Nanos compare_ns = 100;   // the verification of a fingerprint match (memcmp)
};
ReductionCpuCost MeasuredCpuCost(CompressionKind kind);

// One compressor, with its context (zstd's is reused, not reallocated per
// block). Not thread-safe: one per target.
class BlockCompressor {
 public:
  BlockCompressor(CompressionKind kind, int level);
  ~BlockCompressor();
  BlockCompressor(const BlockCompressor&) = delete;
  BlockCompressor& operator=(const BlockCompressor&) = delete;

  CompressionKind kind() const { return kind_; }
  // Compresses `len` bytes into at most `capacity` bytes of `out`; returns
  // the compressed size, or 0 if it does not fit (or kind is none).
  std::size_t Compress(const std::byte* in, std::size_t len, std::byte* out, std::size_t capacity);
  // Decompresses `len` bytes into exactly `out_len` bytes; false if the
  // input is damaged or does not give exactly that many bytes.
  bool Decompress(const std::byte* in, std::size_t len, std::byte* out, std::size_t out_len);

 private:
  CompressionKind kind_;
  int level_;
  struct ZstdContexts;
  std::unique_ptr<ZstdContexts> zstd_;
};

}  // namespace tierlab
