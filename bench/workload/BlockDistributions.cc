#include "bench/workload/BlockDistributions.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

namespace tierlab {
namespace {

// log1p(x)/x and expm1(x)/x, continuous at 0.
double Helper1(double x) {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}
double Helper2(double x) {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

}  // namespace

// Rejection-inversion: H is an integral of the hat function h(x) = x^-θ;
// inverting H on a uniform draw gives a continuous x, rounded to rank k and
// accepted when the hat's area around k matches the exact mass 1/k^θ.
ZipfSampler::ZipfSampler(std::uint64_t n, double theta)
    : n_(std::max<std::uint64_t>(n, 1)), exponent_(theta) {
  h_integral_x1_ = H(1.5) - 1.0;
  h_integral_n_ = H(static_cast<double>(n_) + 0.5);
  s_ = 2.0 - HInverse(H(2.5) - h(2.0));
}

double ZipfSampler::h(double x) const {
  return std::exp(-exponent_ * std::log(x));
}

double ZipfSampler::H(double x) const {
  const double log_x = std::log(x);
  return Helper2((1.0 - exponent_) * log_x) * log_x;
}

double ZipfSampler::HInverse(double x) const {
  double t = x * (1.0 - exponent_);
  if (t < -1.0) t = -1.0;  // rounding guard: the argument of log1p stays >= 0
  return std::exp(Helper1(t) * x);
}

std::uint64_t ZipfSampler::Sample(Xoshiro256& rng) const {
  if (n_ == 1) return 0;
  while (true) {
    const double u = h_integral_n_ + rng.NextDouble() * (h_integral_x1_ - h_integral_n_);
    const double x = HInverse(u);
    double kd = std::floor(x + 0.5);
    kd = std::clamp(kd, 1.0, static_cast<double>(n_));
    if (kd - x <= s_ || u >= H(kd + 0.5) - h(kd)) {
      return std::min(static_cast<std::uint64_t>(kd), n_) - 1;
    }
  }
}

ParetoSampler::ParetoSampler(std::uint64_t n, double h)
    : n_(std::max<std::uint64_t>(n, 1)), power_(std::log(h) / std::log(1.0 - h)) {}

std::uint64_t ParetoSampler::Sample(Xoshiro256& rng) const {
  const double u = rng.NextDouble();
  const auto r = static_cast<std::uint64_t>(static_cast<double>(n_ - 1) * std::pow(u, power_));
  return std::min(r, n_ - 1);
}

NormalSampler::NormalSampler(std::uint64_t n, double dev_percent)
    : n_(std::max<std::uint64_t>(n, 1)) {
  const double nd = static_cast<double>(n_);
  mean_ = (nd - 1) / 2;
  stddev_ = dev_percent > 0 ? nd * dev_percent / 100.0 : nd / 12.0;
  if (stddev_ <= 0) stddev_ = 1;
}

std::uint64_t NormalSampler::Sample(Xoshiro256& rng) {
  while (true) {
    double z;
    if (has_spare_) {
      z = spare_;
      has_spare_ = false;
    } else {
      // Box-Muller: two independent normals per (log, sqrt, sincos).
      const double r = std::sqrt(-2.0 * std::log(rng.NextDoubleOpenZero()));
      const double a = 2.0 * std::numbers::pi * rng.NextDouble();
      z = r * std::cos(a);
      spare_ = r * std::sin(a);
      has_spare_ = true;
    }
    const double x = std::floor(mean_ + z * stddev_ + 0.5);
    if (x >= 0 && x < static_cast<double>(n_)) return static_cast<std::uint64_t>(x);
  }
}

ZonedSampler::ZonedSampler(std::uint64_t n, const std::vector<ZoneSpec>& zones) {
  n = std::max<std::uint64_t>(n, 1);
  std::uint32_t size_total = 0, access_total = 0;
  for (std::size_t i = 0; i < zones.size() && i < 256; ++i) {
    const auto& z = zones[i];
    Zone out;
    // As fio: start = stotal% of n, width = (send - stotal)% of n.
    out.first = static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * size_total / 100);
    out.count =
        static_cast<std::uint64_t>(static_cast<unsigned __int128>(n) * z.size_percent / 100);
    if (out.first >= n) out.first = n - 1;
    out.count = std::clamp<std::uint64_t>(out.count, 1, n - out.first);
    zones_.push_back(out);
    for (std::uint32_t a = 0; a < z.access_percent && access_total + a < 100; ++a) {
      by_percent_[access_total + a] = static_cast<std::uint8_t>(i);
    }
    access_total += z.access_percent;
    size_total += z.size_percent;
  }
  if (zones_.empty()) zones_.push_back({0, n});
}

std::uint64_t ZonedSampler::Sample(Xoshiro256& rng) const {
  const Zone& z = zones_[by_percent_[rng.Below(100)]];
  return z.first + rng.Below(z.count);
}

BlockPermutation::BlockPermutation(std::uint64_t n, std::uint64_t key)
    : n_(std::max<std::uint64_t>(n, 1)) {
  const int bits = n_ <= 1 ? 0 : 64 - std::countl_zero(n_ - 1);
  mask_ = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  shift_ = std::max(1, (bits + 1) / 2);
  SplitMix64 m(key);
  for (int i = 0; i < 3; ++i) {
    mul_[i] = m.Next() | 1;  // odd: a bijection mod 2^bits
    add_[i] = m.Next();
  }
}

std::uint64_t BlockPermutation::Mix(std::uint64_t x) const {
  for (int i = 0; i < 3; ++i) {
    x = (x * mul_[i] + add_[i]) & mask_;
    x ^= x >> shift_;
  }
  return x;
}

std::uint64_t BlockPermutation::operator()(std::uint64_t x) const {
  if (n_ <= 1) return 0;
  // Cycle walking keeps a bijection of [0, 2^bits) a bijection of [0, n).
  do {
    x = Mix(x);
  } while (x >= n_);
  return x;
}

}  // namespace tierlab
