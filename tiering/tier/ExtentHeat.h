#pragma once
// Per-extent access heat with exponential decay, in 4 bytes per extent.
//
// Heat of an extent at time t = sum over its accesses of weight * 2^-((t - t_access) / half_life).
// Instead of decaying every counter (or stamping each with its last update),
// each extent stores its heat scaled to a shared reference time:
//   score = sum weight * 2^((t_access - base) / half_life)
// so an access adds weight * scale(now), comparisons between extents need no
// decay at all (every heat decays by the same factor), and the current heat
// is score / scale(now). When scale(now) would grow past 2^kRebaseExponent,
// every score is divided by it and the base moves forward (an O(extents)
// pass once every kRebaseExponent half-lives). Heat too old to matter
// underflows to zero, which is right.
//
// Threading: none (the tier target's engine thread).

#include <array>
#include <cstdint>
#include <vector>

#include "tiering/core/IoRequest.h"

namespace tierlab {

class ExtentHeat {
 public:
  // Buckets of the heat histogram: 0 holds heat < 1, bucket k (k >= 1) holds
  // heat in [2^(k-1), 2^k); the last one is open-ended.
  static constexpr std::size_t kBuckets = 32;
  static constexpr int kRebaseExponent = 64;

  ExtentHeat(std::uint64_t extents, Nanos half_life);

  // Adds `weight` to extents [first, first + count) at time `now` (which
  // must not go backwards).
  void Touch(std::uint64_t first, std::uint64_t count, float weight, Nanos now);
  // Current heat of extent `e`.
  double Heat(std::uint64_t e, Nanos now) const { return score_[e] / Scale(now); }
  // A value that orders extents by heat at any time (cheaper than Heat()).
  float Score(std::uint64_t e) const { return score_[e]; }
  // Score() = Heat() * ScoreScale(now): converts a heat threshold to scores.
  double ScoreScale(Nanos now) const { return Scale(now); }
  // Forgets an extent's history (on discard).
  void Reset(std::uint64_t e) { score_[e] = 0; }

  std::array<std::uint64_t, kBuckets> Histogram(Nanos now) const;
  std::uint64_t extents() const { return score_.size(); }
  std::size_t memory_bytes() const { return score_.capacity() * sizeof(float); }

 private:
  double Scale(Nanos now) const;
  void Rebase(Nanos now);

  std::vector<float> score_;
  Nanos half_life_;
  Nanos base_ = 0;  // reference time of the scores
};

}  // namespace tierlab
