#pragma once
// Counters of the cache target, for reports (hit ratios, write absorption,
// destage rate, endurance) and tests. A snapshot: CacheTarget::cache_stats().
//
// Request counters count foreground requests; line counters count cache lines
// touched by them. "Absorbed" writes were acknowledged from the cache alone
// (write-back/write-only); "bypassed" ones went (partly) to the origin instead
// of the cache in a mode that could have absorbed them.

#include <cstdint>
#include <vector>

#include "tiering/core/IoRequest.h"

namespace tierlab {

struct CacheStats {
  std::uint64_t line_size = 0;
  std::uint64_t capacity_lines = 0;
  // Occupancy now. clean + dirty + free + in transition = capacity.
  std::uint64_t clean_lines = 0;
  std::uint64_t dirty_lines = 0;
  std::uint64_t free_lines = 0;

  // Reads: a hit request had every line resident, a partial hit some.
  std::uint64_t read_requests = 0;
  std::uint64_t read_hits = 0;
  std::uint64_t read_partial_hits = 0;
  std::uint64_t read_misses = 0;
  std::uint64_t read_hit_lines = 0;
  std::uint64_t read_miss_lines = 0;

  // Writes.
  std::uint64_t write_requests = 0;
  std::uint64_t write_hits = 0;  // requests whose lines were all resident
  std::uint64_t write_hit_lines = 0;
  std::uint64_t write_absorbed = 0;   // requests acknowledged from the cache alone
  std::uint64_t write_bypassed = 0;   // requests written (partly) around the cache
  std::uint64_t write_throttled = 0;  // requests that waited for destage
  std::uint64_t write_fills = 0;      // partial-line write misses read-filled from origin
  // Time throttled writes waited for space, each counted once: from its first
  // wait to its admission (however often it was woken and waited again).
  Nanos throttled_ns = 0;
  Nanos throttled_max_ns = 0;  // the longest single write's wait

  std::uint64_t promotions = 0;  // lines inserted by read misses
  // Admitted read-miss lines served from the origin but not promoted: the
  // promotion budget (CacheConfig::promotion_concurrency) was used up, or
  // writes were waiting for space.
  std::uint64_t promotions_skipped = 0;
  std::uint64_t write_inserts = 0;  // lines inserted by writes
  std::uint64_t evictions = 0;
  std::uint64_t invalidations = 0;  // lines dropped by writes, discards, errors

  // Foreground requests that waited for a line lock (LineLocks.h) at least
  // once, and the time they waited, from each lock request to its grant.
  // A read waits only while a write miss, an invalidating write or a discard
  // of its line holds or waits for it; a write hit also waits for an earlier
  // write of its line.
  std::uint64_t lock_waits = 0;
  Nanos lock_wait_ns = 0;
  Nanos lock_wait_max_ns = 0;

  // Destage (write-back).
  std::uint64_t destage_ops = 0;  // origin writes (coalesced runs)
  std::uint64_t destaged_bytes = 0;
  std::uint64_t destage_errors = 0;
  // Lines a write touched while they were being destaged: left dirty and
  // queued again (the destage of them did not count).
  std::uint64_t destage_rewritten = 0;
  Nanos dirty_age_ns = 0;  // now - dirty-since time of the oldest queued dirty line

  std::uint64_t cache_read_errors = 0;   // cache-device read errors seen
  std::uint64_t cache_write_errors = 0;  // cache-device write errors seen

  // Bytes written to each cache device (endurance), in device order.
  std::vector<std::uint64_t> cache_device_write_bytes;
  // Line metadata bytes (line table + replacement policy) per cache line.
  double metadata_bytes_per_line = 0;

  double ReadHitRatio() const {
    const double l = static_cast<double>(read_hit_lines + read_miss_lines);
    return l == 0 ? 0 : static_cast<double>(read_hit_lines) / l;
  }
  double AverageDestageBytes() const {
    return destage_ops == 0 ? 0 : static_cast<double>(destaged_bytes) / destage_ops;
  }
};

}  // namespace tierlab
