#include "tiering/tier/ExtentHeat.h"

#include <cmath>

namespace tierlab {

ExtentHeat::ExtentHeat(std::uint64_t extents, Nanos half_life)
    : score_(extents, 0.0f), half_life_(half_life > 0 ? half_life : 1) {}

double ExtentHeat::Scale(Nanos now) const {
  return std::exp2(static_cast<double>(now - base_) / static_cast<double>(half_life_));
}

void ExtentHeat::Rebase(Nanos now) {
  const Nanos halves = (now - base_) / half_life_;
  const float factor = static_cast<float>(std::exp2(-static_cast<double>(halves)));
  for (float& s : score_) s *= factor;
  base_ += halves * half_life_;
}

void ExtentHeat::Touch(std::uint64_t first, std::uint64_t count, float weight, Nanos now) {
  if (weight == 0) return;
  // Divided, not multiplied: 64 half-lives of a long half-life (the layout
  // takes up to 1e9 s) would overflow Nanos.
  if ((now - base_) / half_life_ > kRebaseExponent) Rebase(now);
  const float add = static_cast<float>(weight * Scale(now));
  for (std::uint64_t e = first; e < first + count; ++e) score_[e] += add;
}

std::array<std::uint64_t, ExtentHeat::kBuckets> ExtentHeat::Histogram(Nanos now) const {
  std::array<std::uint64_t, kBuckets> h{};
  const double inv = 1.0 / Scale(now);
  for (float s : score_) {
    const double heat = s * inv;
    std::size_t b = 0;
    if (heat >= 1)
      b = std::min<std::size_t>(kBuckets - 1, 1 + static_cast<std::size_t>(std::log2(heat)));
    ++h[b];
  }
  return h;
}

}  // namespace tierlab
