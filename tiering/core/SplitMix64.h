#pragma once
// SplitMix64 (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014, with the constants of Vigna's splitmix64): a
// counter stepped by the golden gamma, each value passed through a
// bijective mix. One definition for every layer: stream seeds for the
// workload, hashes of dense keys (cache lines, extents, verify patterns),
// the per-core stall clocks of a modelled CPU. Not cryptographic.
//
// Header only (policies/ may use it, as it uses Expected.h).

#include <cstdint>

namespace tierlab {

inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;

// The mix of x + gamma: a well-spread 64-bit value of a counter or a key
// (consecutive keys give unrelated values). A bijection.
constexpr std::uint64_t SplitMix64Hash(std::uint64_t x) {
  x += kGoldenGamma;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The generator: the hashes of seed, seed + gamma, seed + 2 gamma, ...
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed = 0) : state_(seed) {}
  constexpr std::uint64_t Next() {
    const std::uint64_t r = SplitMix64Hash(state_);
    state_ += kGoldenGamma;
    return r;
  }
  // Uniform in [0, 1), 53 bits.
  constexpr double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace tierlab
