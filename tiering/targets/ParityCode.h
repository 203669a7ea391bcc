#pragma once
// The erasure code of parity RAID: k data blocks, m = 1..3 parity blocks,
// computed byte-wise over GF(2^8) by Intel ISA-L (erasure_code.h), whose
// SIMD table-lookup kernels are what every fast software RAID uses; we
// would not write them as well.
//
// The code is systematic: data blocks are stored as they are, and parity
// row j is a linear combination of the k data blocks. Rows:
//  - m = 1 and 2: ISA-L's Reed-Solomon matrix (gf_gen_rs_matrix): P is the
//    XOR of the data (RAID-5), Q the sum of g^d * data_d with generator
//    g = {02} over the polynomial 0x11d, the same P and Q as Linux md's
//    RAID-6 (not checked against md's on-disk bytes).
//  - m = 3: ISA-L's Cauchy matrix (gf_gen_cauchy1_matrix), whose every
//    square submatrix is invertible, so any 3 lost blocks decode whatever k.
//    Its first row is not XOR, so triple parity is not RAID-5 plus extras.
//
// A "role" names a block of a stripe: 0..k-1 the data, k..k+m-1 the
// parities. Buffers are byte spans of equal length `len` (any length; no
// alignment is required by these calls). Not thread-safe: one per target.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tierlab {

class ParityCode {
 public:
  // Valid for 1 <= m <= 3, k >= 1 and k + m <= 256 (GF(2^8) has 256
  // elements); otherwise valid() is false and nothing may be computed.
  ParityCode(int k, int m);

  bool valid() const { return valid_; }
  int k() const { return k_; }
  int m() const { return m_; }

  // parity[j] = row k+j of the matrix times data[0..k-1], over `len` bytes.
  void Encode(std::size_t len, std::span<std::byte* const> data,
              std::span<std::byte* const> parity) const;

  // Read-modify-write: parity[j] += coefficient(k+j, d) * delta, where delta
  // is old data XOR new data of data block `d` over `len` bytes. Parities
  // the caller does not keep may point at scratch.
  void Update(std::size_t len, int d, const std::byte* delta,
              std::span<std::byte* const> parity) const;

  // Recovers blocks from any k others. `sources`: k distinct roles that were
  // read, `src` their buffers (same order); `wanted`: the data roles to
  // rebuild, `out` their buffers. Returns false (and writes nothing) if the
  // sources do not determine the wanted blocks (fewer than k, repeated, or a
  // singular submatrix, which the matrices above never give). To rebuild a
  // parity block, Decode its missing data first, then Encode.
  bool Decode(std::size_t len, std::span<const int> sources, std::span<std::byte* const> src,
              std::span<const int> wanted, std::span<std::byte* const> out) const;

 private:
  int k_;
  int m_;
  bool valid_ = false;
  // (k + m) x k generator matrix, row-major: identity, then the parity rows.
  std::vector<unsigned char> matrix_;
  // ISA-L's expanded tables for the m parity rows (32 bytes per
  // coefficient), built once.
  std::vector<unsigned char> encode_tables_;
};

}  // namespace tierlab
