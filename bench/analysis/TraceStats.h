#pragma once
// Summary statistics of a block trace in one pass: counts, bytes, working set
// (unique blocks), request-size histogram, sequentiality, duration and rates.
//
// Memory: the working-set counts are exact, with one hash-set entry per
// distinct block (about 32 bytes each, twice: at 4 KiB and at the chosen
// block size) plus one per distinct starting offset; fine for test and
// sample traces, ~1 GB for 10 M distinct blocks. Not thread-safe.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/analysis/FlatU64Map.h"
#include "bench/trace/TraceReader.h"

namespace tierlab {

struct TraceStats {
  std::uint64_t block_size = 4096;  // the "given" block size of unique_blocks
  std::uint64_t requests = 0;
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t discards = 0;
  std::uint64_t flushes = 0;
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;
  std::uint64_t discard_bytes = 0;
  // Distinct blocks touched by reads and writes (discards and flushes excluded).
  std::uint64_t unique_blocks_4k = 0;
  std::uint64_t unique_blocks = 0;         // at block_size
  std::uint64_t unique_read_blocks = 0;    // at block_size, reads only
  std::uint64_t unique_write_blocks = 0;   // at block_size, writes only
  std::uint64_t unique_start_offsets = 0;  // distinct request offsets (reads and writes)
  std::uint32_t min_request_bytes = 0;     // reads and writes
  std::uint32_t max_request_bytes = 0;
  // size_histogram[i]: read/write requests with length in [2^i, 2^(i+1));
  // [0] also holds zero-length requests.
  std::array<std::uint64_t, 33> size_histogram{};
  // Reads (writes) starting exactly where the previous read (write) ended.
  std::uint64_t sequential_reads = 0;
  std::uint64_t sequential_writes = 0;
  Nanos first_timestamp = 0;
  Nanos last_timestamp = 0;

  std::uint64_t working_set_bytes() const { return unique_blocks * block_size; }
  double duration_seconds() const {
    return static_cast<double>(last_timestamp - first_timestamp) / 1e9;
  }
  // Share of reads+writes that continue the previous request of the same op.
  double sequential_fraction() const;
  double iops() const;                // requests / duration; 0 for a zero duration
  double read_mb_per_second() const;  // 1 MB = 1e6 bytes
  double write_mb_per_second() const;
};

// Accumulates TraceStats record by record.
class TraceStatsCollector {
 public:
  // block_size: the working-set block size besides 4 KiB; must be > 0.
  explicit TraceStatsCollector(std::uint64_t block_size = 4096);

  void Add(const TraceRecord& record);
  // The figures so far.
  TraceStats Result() const;

 private:
  void Touch(FlatU64Map<std::uint8_t>& set, std::uint64_t bs, const TraceRecord& r,
             std::uint8_t bit);

  TraceStats s_;
  FlatU64Map<std::uint8_t> blocks_4k_;
  FlatU64Map<std::uint8_t> blocks_;  // value: bit 0 read, bit 1 written
  FlatU64Map<std::uint8_t> starts_;
  std::uint64_t next_read_ = ~std::uint64_t{0};
  std::uint64_t next_write_ = ~std::uint64_t{0};
  bool any_ = false;
};

// Reads the whole trace. Errors are the reader's.
Expected<TraceStats> ComputeTraceStats(TraceReader& reader, std::uint64_t block_size = 4096);

nlohmann::json ToJson(const TraceStats& stats);
// A two-column plain-text table ("requests   113872").
std::string ToTextTable(const TraceStats& stats);

}  // namespace tierlab
