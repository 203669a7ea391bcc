#include "bench/analysis/MrcPass.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "bench/trace/TraceFactory.h"

namespace tierlab {
namespace {

bool Exact(double shards_rate) {
  return shards_rate <= 0 || shards_rate >= 1;
}

}  // namespace

MrcPass::MrcPass(std::uint64_t line_size, double shards_rate)
    : exact_(Exact(shards_rate)),
      sd_(line_size),
      shards_(ShardsOptions{.block_size = line_size, .rate = exact_ ? 1 : shards_rate}) {}

void MrcPass::Add(const TraceRecord& r) {
  if (!exact_) {
    shards_.Add(r);
    return;
  }
  batch_[pending_++] = r;
  if (pending_ == batch_.size()) Flush();
}

MissRatioCurve MrcPass::Curve() {
  Flush();
  const std::uint64_t uniques =
      exact_ ? sd_.unique_blocks()
             : static_cast<std::uint64_t>(static_cast<double>(shards_.sampled_blocks()) /
                                          shards_.rate());
  // Sizes up to the working set (plus 10%): past it every miss is cold.
  const std::uint64_t max_blocks = std::max<std::uint64_t>(uniques + uniques / 10, 1);
  const auto sizes = EvenCacheSizes(max_blocks, 32);
  return exact_ ? sd_.Curve(sizes) : shards_.Curve(sizes);
}

std::string MrcPass::Method(double shards_rate) {
  if (Exact(shards_rate)) return "exact";
  char b[32];
  std::snprintf(b, sizeof b, "shards@%g", shards_rate);
  return b;
}

void MrcPass::Flush() {
  sd_.Add(std::span<const TraceRecord>(batch_.data(), pending_));
  pending_ = 0;
}

Expected<MissRatioCurve> TraceMrc(const std::string& path, const TraceOptions& options,
                                  std::uint64_t line_size, double shards_rate,
                                  Nanos* last_timestamp) {
  auto reader = OpenTrace(path, options);
  if (!reader.ok()) return reader.error();
  MrcPass pass(line_size, shards_rate);
  TraceRecord rec;
  while (true) {
    auto more = (*reader)->Next(&rec);
    if (!more.ok()) return more.error();
    if (!*more) break;
    *last_timestamp = std::max(*last_timestamp, rec.timestamp);
    pass.Add(rec);
  }
  return pass.Curve();
}

}  // namespace tierlab
