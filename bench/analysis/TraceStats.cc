#include "bench/analysis/TraceStats.h"

#include <cstdio>

namespace tierlab {

double TraceStats::sequential_fraction() const {
  std::uint64_t rw = reads + writes;
  return rw == 0 ? 0.0 : static_cast<double>(sequential_reads + sequential_writes) / rw;
}

double TraceStats::iops() const {
  double d = duration_seconds();
  return d > 0 ? static_cast<double>(requests) / d : 0.0;
}

double TraceStats::read_mb_per_second() const {
  double d = duration_seconds();
  return d > 0 ? static_cast<double>(read_bytes) / 1e6 / d : 0.0;
}

double TraceStats::write_mb_per_second() const {
  double d = duration_seconds();
  return d > 0 ? static_cast<double>(write_bytes) / 1e6 / d : 0.0;
}

TraceStatsCollector::TraceStatsCollector(std::uint64_t block_size) {
  s_.block_size = block_size == 0 ? 4096 : block_size;
}

void TraceStatsCollector::Touch(FlatU64Map<std::uint8_t>& set, std::uint64_t bs,
                                const TraceRecord& r, std::uint8_t bit) {
  std::uint64_t first = r.offset / bs;
  std::uint64_t last = r.length == 0 ? first : (r.end() - 1) / bs;
  for (std::uint64_t b = first; b <= last; ++b) {
    auto [v, inserted] = set.Insert(b, bit);
    if (!inserted) *v |= bit;
  }
}

void TraceStatsCollector::Add(const TraceRecord& r) {
  if (!any_) {
    any_ = true;
    s_.first_timestamp = r.timestamp;
  }
  s_.last_timestamp = std::max(s_.last_timestamp, r.timestamp);
  s_.first_timestamp = std::min(s_.first_timestamp, r.timestamp);
  ++s_.requests;
  switch (r.op) {
    case IoOp::kFlush: ++s_.flushes; return;
    case IoOp::kDiscard:
      ++s_.discards;
      s_.discard_bytes += r.length;
      return;
    case IoOp::kRead:
      ++s_.reads;
      s_.read_bytes += r.length;
      if (r.offset == next_read_) ++s_.sequential_reads;
      next_read_ = r.end();
      break;
    case IoOp::kWrite:
      ++s_.writes;
      s_.write_bytes += r.length;
      if (r.offset == next_write_) ++s_.sequential_writes;
      next_write_ = r.end();
      break;
  }
  std::uint8_t bit = r.op == IoOp::kRead ? 1 : 2;
  Touch(blocks_4k_, 4096, r, bit);
  Touch(blocks_, s_.block_size, r, bit);
  starts_.Insert(r.offset, 0);
  if (s_.reads + s_.writes == 1 || r.length < s_.min_request_bytes) s_.min_request_bytes = r.length;
  s_.max_request_bytes = std::max(s_.max_request_bytes, r.length);
  int bucket = r.length == 0 ? 0 : 31 - __builtin_clz(r.length);
  ++s_.size_histogram[bucket];
}

TraceStats TraceStatsCollector::Result() const {
  TraceStats s = s_;
  s.unique_blocks_4k = blocks_4k_.size();
  s.unique_blocks = blocks_.size();
  s.unique_start_offsets = starts_.size();
  s.unique_read_blocks = 0;
  s.unique_write_blocks = 0;
  blocks_.ForEach([&](std::uint64_t, const std::uint8_t& v) {
    if (v & 1) ++s.unique_read_blocks;
    if (v & 2) ++s.unique_write_blocks;
  });
  return s;
}

Expected<TraceStats> ComputeTraceStats(TraceReader& reader, std::uint64_t block_size) {
  TraceStatsCollector c(block_size);
  TraceRecord r;
  for (;;) {
    auto more = reader.Next(&r);
    if (!more.ok()) return more.error();
    if (!*more) break;
    c.Add(r);
  }
  return c.Result();
}

nlohmann::json ToJson(const TraceStats& s) {
  nlohmann::json hist = nlohmann::json::array();
  for (std::size_t i = 0; i < s.size_histogram.size(); ++i) {
    if (s.size_histogram[i] == 0) continue;
    hist.push_back({{"min_bytes", i == 0 ? 0 : (std::uint64_t{1} << i)},
                    {"max_bytes", (std::uint64_t{1} << (i + 1)) - 1},
                    {"requests", s.size_histogram[i]}});
  }
  return {
      {"requests", s.requests},
      {"read",
       {{"requests", s.reads},
        {"bytes", s.read_bytes},
        {"sequential", s.sequential_reads},
        {"unique_blocks", s.unique_read_blocks},
        {"bw_mb_per_s", s.read_mb_per_second()}}},
      {"write",
       {{"requests", s.writes},
        {"bytes", s.write_bytes},
        {"sequential", s.sequential_writes},
        {"unique_blocks", s.unique_write_blocks},
        {"bw_mb_per_s", s.write_mb_per_second()}}},
      {"discard", {{"requests", s.discards}, {"bytes", s.discard_bytes}}},
      {"flush", {{"requests", s.flushes}}},
      {"block_size", s.block_size},
      {"unique_blocks", s.unique_blocks},
      {"unique_blocks_4k", s.unique_blocks_4k},
      {"working_set_bytes", s.working_set_bytes()},
      {"unique_start_offsets", s.unique_start_offsets},
      {"min_request_bytes", s.min_request_bytes},
      {"max_request_bytes", s.max_request_bytes},
      {"size_histogram", hist},
      {"sequential_fraction", s.sequential_fraction()},
      {"duration_s", s.duration_seconds()},
      {"iops", s.iops()},
  };
}

std::string ToTextTable(const TraceStats& s) {
  std::string out;
  char line[160];
  auto row = [&](const char* k, const std::string& v) {
    std::snprintf(line, sizeof line, "%-26s %s\n", k, v.c_str());
    out += line;
  };
  auto u = [](std::uint64_t v) { return std::to_string(v); };
  auto d = [](double v, const char* fmt) {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return std::string(b);
  };
  row("requests", u(s.requests));
  row("reads", u(s.reads) + " (" + u(s.read_bytes) + " bytes)");
  row("writes", u(s.writes) + " (" + u(s.write_bytes) + " bytes)");
  row("discards", u(s.discards) + " (" + u(s.discard_bytes) + " bytes)");
  row("flushes", u(s.flushes));
  row("request size", u(s.min_request_bytes) + " .. " + u(s.max_request_bytes) + " bytes");
  row("unique blocks (4 KiB)", u(s.unique_blocks_4k));
  row(("unique blocks (" + u(s.block_size) + " B)").c_str(),
      u(s.unique_blocks) + " (reads " + u(s.unique_read_blocks) + ", writes " +
          u(s.unique_write_blocks) + ")");
  row("working set", d(static_cast<double>(s.working_set_bytes()) / (1 << 20), "%.1f MiB"));
  row("unique start offsets", u(s.unique_start_offsets));
  row("sequential", d(100.0 * s.sequential_fraction(), "%.1f %%"));
  row("duration", d(s.duration_seconds(), "%.3f s"));
  row("IOPS", d(s.iops(), "%.1f"));
  row("read MB/s", d(s.read_mb_per_second(), "%.2f"));
  row("write MB/s", d(s.write_mb_per_second(), "%.2f"));
  for (std::size_t i = 0; i < s.size_histogram.size(); ++i) {
    if (s.size_histogram[i] == 0) continue;
    std::string k = "size [" + u(i == 0 ? 0 : std::uint64_t{1} << i) + ", " +
                    u(std::uint64_t{1} << (i + 1)) + ")";
    row(k.c_str(), u(s.size_histogram[i]));
  }
  return out;
}

}  // namespace tierlab
