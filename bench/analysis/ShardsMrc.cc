#include "bench/analysis/ShardsMrc.h"

#include <algorithm>
#include <cmath>

namespace tierlab {

ShardsMrc::ShardsMrc(const ShardsOptions& options) : options_(options) {
  if (options_.block_size == 0) options_.block_size = 4096;
  double r = std::clamp(options_.rate, 1.0 / kModulus, 1.0);
  threshold_ = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(r * kModulus)));
  all_.hist.assign(64, 0);
  reads_.hist.assign(64, 0);
}

std::size_t ShardsMrc::memory_bytes() const {
  return stack_.memory_bytes() + heap_.size() * sizeof(std::pair<std::uint32_t, std::uint64_t>) +
         (all_.hist.capacity() + reads_.hist.capacity()) * sizeof(double);
}

std::uint64_t ShardsMrc::Hash(std::uint64_t block) const {
  // splitmix64 finalizer: a well-mixed hash, so sampling is uniform over blocks.
  std::uint64_t z = block + options_.seed * 0x9E3779B97F4A7C15ULL + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (z ^ (z >> 31)) & (kModulus - 1);
}

void ShardsMrc::Add(const TraceRecord& r) {
  if (r.op != IoOp::kRead && r.op != IoOp::kWrite) return;
  bool is_read = r.op == IoOp::kRead;
  std::uint64_t first = r.offset / options_.block_size;
  std::uint64_t last = r.length == 0 ? first : (r.end() - 1) / options_.block_size;
  for (std::uint64_t b = first; b <= last; ++b) AccessBlock(b, is_read);
}

void ShardsMrc::Coarsen(std::size_t bucket) {
  while (bucket >= kMaxBuckets) {
    for (Counts* c : {&all_, &reads_}) {
      std::vector<double>& h = c->hist;
      std::size_t half = (h.size() + 1) / 2;
      for (std::size_t i = 0; i < half; ++i) {
        h[i] = h[2 * i] + (2 * i + 1 < h.size() ? h[2 * i + 1] : 0.0);
      }
      std::fill(h.begin() + half, h.end(), 0.0);
    }
    width_ *= 2;
    bucket /= 2;
  }
}

void ShardsMrc::Record(Counts& c, std::uint64_t distance) {
  c.sampled += 1;
  if (distance == LruStackDistance::kCold) {
    c.cold += 1;
    return;
  }
  double scaled = static_cast<double>(distance) * kModulus / threshold_;
  std::uint64_t bucket = static_cast<std::uint64_t>(scaled) / width_;
  if (bucket >= kMaxBuckets) {
    Coarsen(bucket);
    bucket = static_cast<std::uint64_t>(scaled) / width_;
  }
  if (bucket >= c.hist.size()) {
    std::size_t n =
        std::min<std::size_t>(kMaxBuckets, std::max<std::size_t>(bucket + 1, c.hist.size() * 2));
    all_.hist.resize(std::max(all_.hist.size(), n), 0.0);
    reads_.hist.resize(std::max(reads_.hist.size(), n), 0.0);
  }
  c.hist[bucket] += 1;
}

void ShardsMrc::Rescale(double factor) {
  for (Counts* c : {&all_, &reads_}) {
    for (double& v : c->hist) v *= factor;
    c->cold *= factor;
    c->sampled *= factor;
    c->expected *= factor;
  }
}

// Evicts the tracked blocks with the largest hashes until within max_samples.
void ShardsMrc::LowerThreshold() {
  while (stack_.size() > options_.max_samples && !heap_.empty()) {
    std::uint64_t new_threshold = heap_.top().first;
    while (!heap_.empty() && heap_.top().first >= new_threshold) {
      stack_.Remove(heap_.top().second);
      heap_.pop();
    }
    if (new_threshold == 0) new_threshold = 1;
    Rescale(static_cast<double>(new_threshold) / threshold_);
    threshold_ = new_threshold;
  }
}

void ShardsMrc::AccessBlock(std::uint64_t block, bool is_read) {
  ++references_;
  double r = rate();
  all_.expected += r;
  if (is_read) {
    reads_.expected += r;
    ++read_references_;
  }
  std::uint64_t h = Hash(block);
  if (h >= threshold_) return;
  ++sampled_references_;
  std::uint64_t d = stack_.Access(block);
  Record(all_, d);
  if (is_read) Record(reads_, d);
  if (options_.max_samples > 0 && d == LruStackDistance::kCold) {
    heap_.emplace(static_cast<std::uint32_t>(h), block);
    if (stack_.size() > options_.max_samples) LowerThreshold();
  }
}

double ShardsMrc::Miss(const Counts& c, std::uint64_t cache_blocks) const {
  double total = options_.adjust ? c.expected : c.sampled;
  if (total <= 0) return 0.0;
  // Hits: references with estimated distance < cache_blocks.
  std::uint64_t full = cache_blocks / width_;
  double frac = static_cast<double>(cache_blocks % width_) / width_;
  double hits = 0;
  for (std::size_t b = 0; b < c.hist.size() && b < full; ++b) hits += c.hist[b];
  if (full < c.hist.size()) hits += c.hist[full] * frac;
  if (options_.adjust && cache_blocks > 0) hits += c.expected - c.sampled;
  return std::clamp(1.0 - hits / total, 0.0, 1.0);
}

double ShardsMrc::MissRatio(std::uint64_t cache_blocks) const {
  return Miss(all_, cache_blocks);
}
double ShardsMrc::ReadMissRatio(std::uint64_t cache_blocks) const {
  return Miss(reads_, cache_blocks);
}

MissRatioCurve ShardsMrc::Curve(const std::vector<std::uint64_t>& cache_blocks) const {
  MissRatioCurve c;
  c.block_size = options_.block_size;
  c.references = static_cast<double>(references_);
  c.read_references = static_cast<double>(read_references_);
  for (std::uint64_t size : cache_blocks) {
    c.points.push_back({size, MissRatio(size), ReadMissRatio(size)});
  }
  return c;
}

}  // namespace tierlab
