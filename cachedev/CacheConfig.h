#pragma once
// Configuration of the cache target (CacheTarget.h): line size, read cache,
// write mode, policies by name, destage watermarks and budget, capacity.
//
// Plain public fields, named after the keys of a layout's "cache" section
// (layouts/CacheSpec.cc, docs/CONFIG.md), so that layouts/ can read them
// from JSON and write the effective config back out; Describe() lists them as key/value text for
// reports. Validate() checks what can be checked without the devices and
// names the offending field; CacheTarget::Create() checks the rest (policy
// names, capacity against the devices).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tiering/core/IoRequest.h"

namespace tierlab {

// What happens to writes (and whether reads are inserted). Names follow
// Open CAS where it has one.
enum class WriteMode : std::uint8_t {
  // "off"/"pt": every request goes to the origin; a write still invalidates
  // any resident line, so the cache can never serve stale data.
  kPassthrough,
  // "wt": write origin and cache (resident or admitted lines), ack after both.
  kWriteThrough,
  // "wb": write the cache, ack, destage later. Lines are dirty until destaged.
  kWriteBack,
  // "wa": as Open CAS: a write whose lines are all resident is written through
  // (cache and origin); any other write goes to the origin and invalidates the
  // resident lines it touches. Misses never allocate.
  kWriteAround,
  // "wo": writes absorbed as in write-back, reads never inserted (the S2D
  // all-flash default). Reads of resident lines are still served from cache.
  kWriteOnly,
  // "wi": every write goes to the origin and invalidates the resident lines it
  // touches, hit or not (Open CAS WI; bcache calls this "writearound").
  kWriteInvalidate,
};

// Canonical name ("pt", "wt", "wb", "wa", "wo", "wi").
std::string_view ToString(WriteMode m);
// Accepts the canonical names and the long ones ("off", "passthrough",
// "writethrough", "writeback", "writearound", "writeonly", "writeinvalidate").
std::optional<WriteMode> ParseWriteMode(std::string_view s);
// Long names, for error messages that list valid choices.
std::vector<std::string> WriteModeNames();
// True for the modes that keep dirty lines (wb, wo).
inline bool KeepsDirtyLines(WriteMode m) {
  return m == WriteMode::kWriteBack || m == WriteMode::kWriteOnly;
}

struct CacheConfig {
  static constexpr std::uint64_t kMinLineSize = 4096;
  static constexpr std::uint64_t kMaxLineSize = 1 << 20;
  // With line_size 0 (auto) the line grows from 4 KiB until the cache has at
  // most this many lines (~16 bytes of RAM each).
  static constexpr std::uint64_t kAutoMaxLines = 1ull << 24;

  // Bytes per cache line: a power of two in [4 KiB, 1 MiB]; 0 = auto (above).
  std::uint64_t line_size = 0;
  // Insert lines on read misses. Off: reads are served from resident lines
  // (e.g. dirty ones) but never promoted.
  bool read = true;
  WriteMode write = WriteMode::kWriteThrough;
  // Replacement policy name (PolicyRegistry: lru, fifo, ...).
  std::string policy = "lru";
  // Admission/promotion spec: always, nhit:N[:WINDOW], seqcutoff[:BYTES],
  // pinned:START-END[,...].
  std::string promotion = "always";
  // Promotion budget (dm-cache's migration throttle): lines whose promotion
  // write to the cache device may be in flight at once. A read miss admitted
  // while the budget is used up is served from the origin and not promoted
  // (CacheStats::promotions_skipped), so a cache device slower than the origin,
  // or saturated by writes, never builds an unbounded queue of fills in front
  // of its hits. 0 = unlimited.
  std::uint32_t promotion_concurrency = 64;

  // Write-back destage: start when dirty lines reach high_watermark percent of
  // the capacity, stop at low_watermark (dm-writecache defaults).
  double high_watermark = 50;
  double low_watermark = 45;
  // Idle destage (Open CAS ALRU style): lines dirty for longer than
  // idle_destage_age are destaged in the background once no foreground request
  // arrived for idle_quiet. 0 = off.
  Nanos idle_destage_age = 0;
  Nanos idle_quiet = 0;
  // Destage order name (fifo, lba).
  std::string destage_order = "fifo";
  // Budget: destage operations in flight at once; optional bandwidth cap in
  // bytes/s (0 = none); largest coalesced origin write.
  std::uint32_t destage_concurrency = 8;
  std::uint64_t destage_bandwidth = 0;
  std::uint64_t destage_max_bytes = 1 << 20;
  // Flush the origin before destaged lines are marked clean (and may be
  // evicted), so a flushed write survives a power loss of the origin's
  // volatile cache. Off only to measure what the flushes cost.
  bool destage_flush = true;

  // Lines in the cache; 0 = all the cache devices hold (after the reserved
  // area), placed in runs over the devices (SlotPlacement.h).
  std::uint64_t capacity_lines = 0;
  // Consecutive slots per cache device before the next device
  // (SlotPlacement.h): a power of two, or 0 = 256 KiB worth of lines. Part
  // of a volume's on-disk format (the superblock records it).
  std::uint64_t placement_run = 0;
  // Bytes reserved at the start of each cache device (metadata area).
  std::uint64_t metadata_reserve = 0;

  // Move data (fills, destage, read-fill carry buffers). Forced on when any
  // child device requires data; leave off for timing-only simulation.
  bool with_data = false;
  std::uint64_t seed = 1;

  // Empty if the fields are consistent, else one line naming the field:
  // "line_size: must be a power of two in [4096, 1048576], got 1000".
  std::string Validate() const;
  // Every field as (name, value text), in declaration order.
  std::vector<std::pair<std::string, std::string>> Describe() const;
};

}  // namespace tierlab
