#include "bench/analysis/StackDistanceMrc.h"

#include <array>

namespace tierlab {

namespace {
// How many references ahead the hash map line is prefetched: far enough to
// cover a memory access (~100 ns) at ~10-20 ns per reference, near enough to
// stay within the CPU's outstanding-miss buffers.
constexpr std::size_t kPrefetchAhead = 8;
}  // namespace

StackDistanceMrc::StackDistanceMrc(std::uint64_t block_size)
    : block_size_(block_size == 0 ? 4096 : block_size) {}

void StackDistanceMrc::Add(const TraceRecord& r) {
  Add(std::span<const TraceRecord>(&r, 1));
}

void StackDistanceMrc::Add(std::span<const TraceRecord> records) {
  std::array<Ref, kBatch> refs;
  std::size_t n = 0;
  for (const TraceRecord& r : records) {
    if (r.op != IoOp::kRead && r.op != IoOp::kWrite) continue;
    const bool is_read = r.op == IoOp::kRead;
    const std::uint64_t first = r.offset / block_size_;
    const std::uint64_t last = r.length == 0 ? first : (r.end() - 1) / block_size_;
    for (std::uint64_t b = first;; ++b) {
      refs[n++] = {b, is_read};
      if (n == kBatch) {
        AccessBatch(refs.data(), n);
        n = 0;
      }
      if (b == last) break;
    }
  }
  if (n > 0) AccessBatch(refs.data(), n);
}

void StackDistanceMrc::AccessBatch(const Ref* refs, std::size_t n) {
  for (std::size_t i = 0; i < std::min(n, kPrefetchAhead); ++i) stack_.Prefetch(refs[i].block);
  std::array<std::uint64_t, kBatch> distances;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) stack_.Prefetch(refs[i + kPrefetchAhead].block);
    const std::uint64_t d = Distance(refs[i].block, refs[i].is_read);
    distances[i] = d;
    if (d != LruStackDistance::kCold) __builtin_prefetch(&hist_[d], 1);
  }
  // The bins were prefetched while the rest of the batch was computed.
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t d = distances[i];
    if (d == LruStackDistance::kCold) continue;
    Bin& bin = hist_[d];
    ++bin.all;
    bin.reads += refs[i].is_read ? 1 : 0;
  }
}

std::uint64_t StackDistanceMrc::Distance(std::uint64_t block, bool is_read) {
  const std::uint64_t d = stack_.Access(block);
  ++references_;
  if (is_read) ++read_references_;
  if (d == LruStackDistance::kCold) {
    ++cold_;
    if (is_read) ++read_cold_;
    return d;
  }
  if (d >= hist_.size()) hist_.resize(std::max<std::size_t>(d + 1, hist_.size() * 2));
  return d;
}

void StackDistanceMrc::AccessBlock(std::uint64_t block, bool is_read) {
  const Ref ref{block, is_read};
  AccessBatch(&ref, 1);
}

std::uint64_t StackDistanceMrc::CountMisses(bool reads, std::uint64_t cache_blocks) const {
  std::uint64_t misses = reads ? read_cold_ : cold_;
  for (std::size_t d = cache_blocks; d < hist_.size(); ++d) {
    misses += reads ? hist_[d].reads : hist_[d].all;
  }
  return misses;
}

std::uint64_t StackDistanceMrc::Misses(std::uint64_t cache_blocks) const {
  return CountMisses(false, cache_blocks);
}

std::uint64_t StackDistanceMrc::ReadMisses(std::uint64_t cache_blocks) const {
  return CountMisses(true, cache_blocks);
}

double StackDistanceMrc::MissRatio(std::uint64_t cache_blocks) const {
  return references_ == 0 ? 0.0 : static_cast<double>(Misses(cache_blocks)) / references_;
}

double StackDistanceMrc::ReadMissRatio(std::uint64_t cache_blocks) const {
  return read_references_ == 0 ? 0.0
                               : static_cast<double>(ReadMisses(cache_blocks)) / read_references_;
}

MissRatioCurve StackDistanceMrc::Curve(const std::vector<std::uint64_t>& cache_blocks) const {
  // Suffix sums make every point O(1).
  std::vector<Bin> suffix(hist_.size() + 1);
  for (std::size_t i = hist_.size(); i-- > 0;) {
    suffix[i].all = suffix[i + 1].all + hist_[i].all;
    suffix[i].reads = suffix[i + 1].reads + hist_[i].reads;
  }
  MissRatioCurve c;
  c.block_size = block_size_;
  c.references = static_cast<double>(references_);
  c.read_references = static_cast<double>(read_references_);
  for (std::uint64_t size : cache_blocks) {
    const Bin tail = size < suffix.size() ? suffix[size] : Bin{};
    const std::uint64_t m = cold_ + tail.all;
    const std::uint64_t rm = read_cold_ + tail.reads;
    c.points.push_back({size, references_ ? static_cast<double>(m) / references_ : 0.0,
                        read_references_ ? static_cast<double>(rm) / read_references_ : 0.0});
  }
  return c;
}

Expected<void> FeedTrace(TraceReader& reader, StackDistanceMrc& mrc, bool reads_only) {
  constexpr std::size_t kRecords = 256;
  std::array<TraceRecord, kRecords> batch;
  std::size_t n = 0;
  for (;;) {
    auto more = reader.Next(&batch[n]);
    if (!more.ok()) return more.error();
    if (*more && (!reads_only || batch[n].op == IoOp::kRead)) ++n;
    if (n == kRecords || (!*more && n > 0)) {
      mrc.Add(std::span<const TraceRecord>(batch.data(), n));
      n = 0;
    }
    if (!*more) return {};
  }
}

}  // namespace tierlab
