#pragma once
// Cheap, reproducible pseudo-random numbers for workload generation.
//
// SplitMix64 (tiering/core/SplitMix64.h) expands one 64-bit seed into
// independent stream seeds;
// Xoshiro256** (Blackman & Vigna) is the per-stream generator: 4 words of
// state, ~1 ns per draw, no allocation. Neither is cryptographic. Objects are
// not thread-safe; give each job (thread) its own.

#include <cstdint>

#include "tiering/core/SplitMix64.h"

namespace tierlab {

// Derives a stream seed from (seed, a, b) so that jobs and the decisions
// within a job (op, block size, offset...) draw from unrelated streams.
inline std::uint64_t DeriveSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
  SplitMix64 m(seed ^ (a * 0xd1b54a32d192ed03ull) ^ (b * 0x8cb92ba72f3d8dd7ull));
  m.Next();
  return m.Next();
}

class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed = 0) { Seed(seed); }

  void Seed(std::uint64_t seed) {
    SplitMix64 m(seed);
    for (auto& w : s_) w = m.Next();  // never all zero: SplitMix64 is a bijection of a counter
  }

  std::uint64_t Next() {
    const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n) by multiply-high (Lemire); the bias is n / 2^64, far
  // below anything a storage workload can observe. n == 0 returns 0.
  std::uint64_t Below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64);
  }

  // Uniform double in [0, 1) with 53 random bits.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // Uniform double in (0, 1]: safe for log().
  double NextDoubleOpenZero() { return static_cast<double>((Next() >> 11) + 1) * 0x1.0p-53; }

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace tierlab
