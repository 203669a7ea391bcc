#pragma once
// Approximate LRU miss-ratio curves by SHARDS spatial sampling (Waldspurger
// et al., "Efficient MRC Construction with SHARDS", FAST'15).
//
// A block is sampled iff hash(block) mod P < T (P = 2^24), i.e. at rate
// R = T / P; sampled references get exact stack distances among sampled
// blocks (LruStackDistance), scaled by 1/R into a histogram of estimated
// distances. Blocks and references are the same as in StackDistanceMrc.
//
// Fixed rate (max_samples == 0): memory ~ R * distinct blocks.
// Fixed size (max_samples > 0): at most max_samples blocks are tracked; when
// a new one would exceed that, the threshold T drops to the largest hash
// tracked and blocks at or above it are evicted, and the histogram and the
// reference totals are rescaled by R_new / R_old so that all counts stay at
// the current rate. Memory is then bounded whatever the trace length.
//
// SHARDS_adj (adjust = true): the difference between the expected number of
// sampled references (sum of R over all references) and the actual one is
// added to the smallest-distance bucket, correcting the sampling bias of hot
// blocks.
//
// The histogram has at most kMaxBuckets buckets of a width (in blocks) that
// doubles when a distance falls past the end; queries interpolate linearly
// inside a bucket. Not thread-safe.

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "bench/analysis/LruStackDistance.h"
#include "bench/analysis/MissRatioCurve.h"
#include "bench/trace/TraceReader.h"

namespace tierlab {

struct ShardsOptions {
  std::uint64_t block_size = 4096;
  // Sampling rate in (0, 1]; with max_samples > 0, the starting rate.
  double rate = 0.01;
  // > 0 selects fixed-size SHARDS with this many tracked blocks at most.
  std::size_t max_samples = 0;
  bool adjust = true;
  std::uint64_t seed = 0;  // hash seed: different seeds sample different blocks
};

class ShardsMrc {
 public:
  static constexpr std::uint64_t kModulus = std::uint64_t{1} << 24;
  static constexpr std::size_t kMaxBuckets = 1 << 14;

  explicit ShardsMrc(const ShardsOptions& options = {});

  void Add(const TraceRecord& record);
  void AccessBlock(std::uint64_t block, bool is_read);

  double rate() const { return static_cast<double>(threshold_) / kModulus; }
  std::uint64_t references() const { return references_; }  // all, sampled or not
  std::uint64_t sampled_references() const { return sampled_references_; }
  std::size_t sampled_blocks() const { return stack_.size(); }
  std::uint64_t bucket_width() const { return width_; }
  std::size_t memory_bytes() const;

  double MissRatio(std::uint64_t cache_blocks) const;
  double ReadMissRatio(std::uint64_t cache_blocks) const;
  MissRatioCurve Curve(const std::vector<std::uint64_t>& cache_blocks) const;

 private:
  struct Counts {
    std::vector<double> hist;  // weighted sampled references per distance bucket
    double cold = 0;
    double sampled = 0;   // weighted sampled references
    double expected = 0;  // sum of R over all references, rescaled with the histogram
  };

  std::uint64_t Hash(std::uint64_t block) const;
  void Record(Counts& c, std::uint64_t distance);
  void Coarsen(std::size_t bucket);
  void Rescale(double factor);
  void LowerThreshold();
  double Miss(const Counts& c, std::uint64_t cache_blocks) const;

  ShardsOptions options_;
  std::uint64_t threshold_;
  LruStackDistance stack_;
  // Max-heap of (hash, block) of the tracked blocks (fixed size only).
  std::priority_queue<std::pair<std::uint32_t, std::uint64_t>> heap_;
  std::uint64_t width_ = 1;
  Counts all_;
  Counts reads_;
  std::uint64_t references_ = 0;
  std::uint64_t read_references_ = 0;
  std::uint64_t sampled_references_ = 0;
};

}  // namespace tierlab
