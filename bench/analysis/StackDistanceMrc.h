#pragma once
// Exact LRU miss-ratio curve in one pass (Mattson's stack algorithm with
// O(log n) distances, LruStackDistance), over fixed-size blocks.
//
// Every block a request touches is one reference: a 64 KiB read at 4 KiB
// blocks is 16 references, each hitting or missing on its own, so the miss
// ratio is per block, not per request. Reads and writes are references and
// enter the LRU stack; flushes and discards are ignored. The caller chooses
// what to feed: everything (a cache that reads and writes allocate into;
// read_miss_ratio is then the read miss ratio of that cache) or reads only
// (a read-only cache).
//
// Speed: one hash lookup per reference is the cost that matters once the
// working set outgrows the CPU caches, so Add(span) walks a batch of
// records and prefetches the hash map line of the reference a few steps
// ahead, and the histogram bins in the batch's distances before counting
// them. Feed batches (FeedTrace does) for throughput; Add(record) gives the
// same result one record at a time.
//
// Memory: about 50 bytes per distinct block (hash map, bitmap, histogram).
// Not thread-safe.

#include <cstdint>
#include <span>
#include <vector>

#include "bench/analysis/LruStackDistance.h"
#include "bench/analysis/MissRatioCurve.h"
#include "bench/trace/TraceReader.h"

namespace tierlab {

class StackDistanceMrc {
 public:
  // block_size in bytes, > 0.
  explicit StackDistanceMrc(std::uint64_t block_size = 4096);

  void Add(const TraceRecord& record);
  // The same as Add on each record in order, faster (see the file comment).
  void Add(std::span<const TraceRecord> records);
  // One reference to block number `block`.
  void AccessBlock(std::uint64_t block, bool is_read);

  std::uint64_t block_size() const { return block_size_; }
  std::uint64_t references() const { return references_; }
  std::uint64_t read_references() const { return read_references_; }
  std::uint64_t unique_blocks() const { return stack_.size(); }

  // Miss ratio of an LRU cache of `cache_blocks` blocks (0 references -> 0).
  double MissRatio(std::uint64_t cache_blocks) const;
  double ReadMissRatio(std::uint64_t cache_blocks) const;
  // Misses, exactly: cold misses plus references with distance >= cache_blocks.
  std::uint64_t Misses(std::uint64_t cache_blocks) const;
  std::uint64_t ReadMisses(std::uint64_t cache_blocks) const;

  // The curve at the given sizes (in blocks, any order).
  MissRatioCurve Curve(const std::vector<std::uint64_t>& cache_blocks) const;

 private:
  // References at one stack distance; both counts in one cache line.
  struct Bin {
    std::uint64_t all = 0;
    std::uint64_t reads = 0;
  };
  struct Ref {
    std::uint64_t block;
    bool is_read;
  };
  // Counts the references of refs[0, n), which must be at most kBatch.
  void AccessBatch(const Ref* refs, std::size_t n);
  // The stack distance of one reference, counted as cold if it is; the
  // histogram is left to the caller. The distance's bin exists on return.
  std::uint64_t Distance(std::uint64_t block, bool is_read);
  std::uint64_t CountMisses(bool reads, std::uint64_t cache_blocks) const;

  static constexpr std::size_t kBatch = 64;

  std::uint64_t block_size_;
  LruStackDistance stack_;
  std::vector<Bin> hist_;  // hist_[d]: references at distance d
  std::uint64_t cold_ = 0;
  std::uint64_t read_cold_ = 0;
  std::uint64_t references_ = 0;
  std::uint64_t read_references_ = 0;
};

// Feeds a whole trace in batches; `reads_only` skips writes. Errors are the
// reader's.
Expected<void> FeedTrace(TraceReader& reader, StackDistanceMrc& mrc, bool reads_only = false);

}  // namespace tierlab
