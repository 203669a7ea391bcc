#pragma once
// Samplers that pick a block index in [0, n) for the non-uniform
// random_distribution choices, plus the permutation that spreads popularity
// ranks over the region. All are O(1) per sample, allocation-free after
// construction, deterministic given the generator, and not thread-safe.
//
// How these relate to fio (lib/zipf.c, lib/gauss.c, io_u.c):
// - zipf:θ — P(rank k) ∝ 1/k^θ over n = region / block-alignment ranks, as
//   in fio. fio samples with the Gray et al. approximation (precomputed zeta,
//   capped at 10M terms); tierlab samples the exact distribution by
//   rejection-inversion (Hörmann & Derflinger 1996), which needs no
//   precomputation and is exact for any θ > 0, including θ >= 1.
// - pareto:h — fio's definition: rank = (n-1) * u^(log h / log(1-h)) for
//   uniform u, so the hottest fraction min(h, 1-h) of blocks receives the
//   share max(h, 1-h) of accesses (pareto:0.2 → 20% of blocks get 80%).
// - normal[:dev] — a Gaussian over ranks centred on the middle, standard
//   deviation dev% of n (fio's bare "normal" is a 12-sample central-limit sum
//   with deviation n/12, which tierlab uses when dev is absent), truncated to
//   [0, n) by resampling.
// - ranks → blocks: fio hashes the rank and adds a per-job random offset,
//   so hot blocks are scattered (not bijectively: hash collisions merge
//   ranks). tierlab uses BlockPermutation, a keyed bijection of [0, n), so the
//   popularity of blocks is exactly the popularity of ranks (testable), and
//   keys it with randseed only, so all jobs of a profile share one hot set —
//   numjobs models threads of one application. (fio's per-job offset gives
//   each job its own hot set.) random_scatter=0 uses the identity instead.
// - zoned — as fio: choose a zone by access %, then a uniform block inside
//   the zone's slice of the region; zones are not scattered.

#include <cstdint>
#include <vector>

#include "bench/workload/Profile.h"
#include "bench/workload/Random.h"

namespace tierlab {

class ZipfSampler {
 public:
  ZipfSampler() = default;
  ZipfSampler(std::uint64_t n, double theta);
  // Rank in [0, n); 0 is the most popular.
  std::uint64_t Sample(Xoshiro256& rng) const;

 private:
  double H(double x) const;
  double HInverse(double x) const;
  double h(double x) const;

  std::uint64_t n_ = 1;
  double exponent_ = 1;
  double h_integral_x1_ = 0;
  double h_integral_n_ = 0;
  double s_ = 0;
};

class ParetoSampler {
 public:
  ParetoSampler() = default;
  ParetoSampler(std::uint64_t n, double h);
  std::uint64_t Sample(Xoshiro256& rng) const;

 private:
  std::uint64_t n_ = 1;
  double power_ = 1;
};

class NormalSampler {
 public:
  NormalSampler() = default;
  // dev_percent 0 means fio's default spread (n / 12).
  NormalSampler(std::uint64_t n, double dev_percent);
  std::uint64_t Sample(Xoshiro256& rng);

 private:
  std::uint64_t n_ = 1;
  double mean_ = 0;
  double stddev_ = 1;
  double spare_ = 0;
  bool has_spare_ = false;
};

class ZonedSampler {
 public:
  ZonedSampler() = default;
  ZonedSampler(std::uint64_t n, const std::vector<ZoneSpec>& zones);
  std::uint64_t Sample(Xoshiro256& rng) const;

 private:
  struct Zone {
    std::uint64_t first = 0;
    std::uint64_t count = 1;
  };
  std::vector<Zone> zones_;
  std::uint8_t by_percent_[100] = {};  // access percentile → zone index
};

// A keyed bijection of [0, n): cycle-walking over an invertible mix
// (multiply by odd, add, xor-shift) on the next power of two >= n, so at
// most 2 rounds are expected per call.
class BlockPermutation {
 public:
  BlockPermutation() = default;
  BlockPermutation(std::uint64_t n, std::uint64_t key);
  std::uint64_t operator()(std::uint64_t x) const;

 private:
  std::uint64_t Mix(std::uint64_t x) const;
  std::uint64_t n_ = 1;
  std::uint64_t mask_ = 0;
  int shift_ = 1;
  std::uint64_t mul_[3] = {1, 1, 1};
  std::uint64_t add_[3] = {0, 0, 0};
};

}  // namespace tierlab
