#include "bench/trace/StackDistanceMrc.h"

namespace tierlab {

StackDistanceMrc::StackDistanceMrc(std::uint64_t block_size)
    : block_size_(block_size == 0 ? 4096 : block_size) {}

void StackDistanceMrc::Add(const TraceRecord& r) {
  if (r.op != IoOp::kRead && r.op != IoOp::kWrite) return;
  bool is_read = r.op == IoOp::kRead;
  std::uint64_t first = r.offset / block_size_;
  std::uint64_t last = r.length == 0 ? first : (r.end() - 1) / block_size_;
  for (std::uint64_t b = first; b <= last; ++b) AccessBlock(b, is_read);
}

void StackDistanceMrc::AccessBlock(std::uint64_t block, bool is_read) {
  std::uint64_t d = stack_.Access(block);
  ++references_;
  if (is_read) ++read_references_;
  if (d == LruStackDistance::kCold) {
    ++cold_;
    if (is_read) ++read_cold_;
    return;
  }
  if (d >= hist_.size()) hist_.resize(std::max<std::size_t>(d + 1, hist_.size() * 2), 0);
  ++hist_[d];
  if (is_read) {
    if (d >= read_hist_.size())
      read_hist_.resize(std::max<std::size_t>(d + 1, read_hist_.size() * 2), 0);
    ++read_hist_[d];
  }
}

std::uint64_t StackDistanceMrc::CountMisses(const std::vector<std::uint64_t>& hist,
                                            std::uint64_t cold, std::uint64_t cache_blocks) {
  std::uint64_t misses = cold;
  for (std::size_t d = cache_blocks; d < hist.size(); ++d) misses += hist[d];
  return misses;
}

std::uint64_t StackDistanceMrc::Misses(std::uint64_t cache_blocks) const {
  return CountMisses(hist_, cold_, cache_blocks);
}

std::uint64_t StackDistanceMrc::ReadMisses(std::uint64_t cache_blocks) const {
  return CountMisses(read_hist_, read_cold_, cache_blocks);
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
  auto suffix = [](const std::vector<std::uint64_t>& h) {
    std::vector<std::uint64_t> s(h.size() + 1, 0);
    for (std::size_t i = h.size(); i-- > 0;) s[i] = s[i + 1] + h[i];
    return s;
  };
  std::vector<std::uint64_t> all = suffix(hist_);
  std::vector<std::uint64_t> rd = suffix(read_hist_);
  MissRatioCurve c;
  c.block_size = block_size_;
  c.references = static_cast<double>(references_);
  c.read_references = static_cast<double>(read_references_);
  for (std::uint64_t size : cache_blocks) {
    std::uint64_t m = cold_ + (size < all.size() ? all[size] : 0);
    std::uint64_t rm = read_cold_ + (size < rd.size() ? rd[size] : 0);
    c.points.push_back({size, references_ ? static_cast<double>(m) / references_ : 0.0,
                        read_references_ ? static_cast<double>(rm) / read_references_ : 0.0});
  }
  return c;
}

Expected<void> FeedTrace(TraceReader& reader, StackDistanceMrc& mrc, bool reads_only) {
  TraceRecord r;
  for (;;) {
    auto more = reader.Next(&r);
    if (!more.ok()) return more.error();
    if (!*more) return {};
    if (reads_only && r.op != IoOp::kRead) continue;
    mrc.Add(r);
  }
}

}  // namespace tierlab
