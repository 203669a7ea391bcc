#pragma once
// Which replacement policy and which size for a trace: every policy at
// every size replayed over one in-memory trace (SweepTrace.h), cells in
// parallel across cores, each cell a cache of dense slots over the policy's
// own data structure (the same ReplacementPolicy the cache target uses).
//
// What a cell counts, per line reference (an object in the object view):
// a hit when the line is resident at the time of the reference, else a
// miss, for reads and writes apart; bytes likewise (SweepTrace::LineBytes).
// Writes act as the cache modes treat them:
//   writeback     a write inserts the line (if admitted) and dirties it; a
//                 dirty line leaving the cache is a dirty eviction, the
//                 destage a write-back cache would issue
//   writethrough  a write updates a resident line and inserts a missing one
//                 clean (write-allocate, as bcache and Open CAS do)
//   writearound   a write invalidates a resident line and inserts nothing
//   writeonly     writes as writeback; a read miss inserts nothing (Open
//                 CAS's write-only mode)
//   none          a write is a reference like a read (libCacheSim and
//                 Caffeine's view: they do not tell reads from writes)
// Reads insert the missing line if admitted (except writeonly). Discards
// invalidate what they cover and are not references. The admission policy
// sees every request (Observe) and decides each insertion (Admit); its
// pinned lines are never evicted. There is no background destage: a dirty
// line stays dirty until evicted or rewritten, so dirty_evictions is what
// eviction alone would destage.
//
// Threading: RunSweep starts up to `threads` workers; the trace is shared
// read-only, each cell owns its policy.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/analysis/SweepTrace.h"
#include "policies/PolicyRegistry.h"
#include "tiering/core/Expected.h"

namespace tierlab {

enum class SweepWriteMode : std::uint8_t {
  kWriteBack,
  kWriteThrough,
  kWriteAround,
  kWriteOnly,
  kNone
};

// "writeback", "writethrough", "writearound", "writeonly", "none".
Expected<SweepWriteMode> ParseSweepWriteMode(std::string_view text);
std::string_view ToString(SweepWriteMode mode);

// Cache sizes: a comma-separated list of lines ("65536"), bytes with a
// k/m/g/t suffix ("64m", converted to whole lines, at least one) or a
// percentage of the trace's unique lines ("5%", "0.5%"; at least one line).
// Sorted, duplicates removed. Errors name the bad item.
Expected<std::vector<std::uint64_t>> ParseSweepSizes(std::string_view text, std::uint64_t line_size,
                                                     std::uint64_t unique_lines);

struct SweepCounts {
  std::uint64_t requests = 0;
  std::uint64_t read_refs = 0, read_misses = 0;
  std::uint64_t write_refs = 0, write_misses = 0;
  std::uint64_t read_bytes = 0, read_miss_bytes = 0;
  std::uint64_t write_bytes = 0, write_miss_bytes = 0;
  std::uint64_t evictions = 0, dirty_evictions = 0;
  std::uint64_t bypasses = 0;  // insertions the policy found no victim for

  double MissRatio() const;
  double ReadMissRatio() const;
  double WriteMissRatio() const;
  double ByteMissRatio() const;
  double ReadByteMissRatio() const;
  double WriteByteMissRatio() const;
};

struct SweepResult {
  std::string policy;  // the spec as given
  std::uint64_t size_lines = 0;
  std::uint64_t size_bytes = 0;
  SweepCounts counts;
};

struct SweepOptions {
  std::vector<ReplacementSpec> policies;
  std::vector<std::uint64_t> sizes_lines;  // each >= 1
  std::optional<AdmissionSpec> admission;  // none: admit every line
  SweepWriteMode writes = SweepWriteMode::kWriteBack;
  unsigned threads = 0;  // 0: one per core
  std::uint64_t seed = 1;
};

// One cell: `policy` (empty, built for `size_lines`) over the whole trace.
SweepCounts SimulateCell(const SweepTrace& trace, ReplacementPolicy& policy,
                         std::uint64_t size_lines, AdmissionPolicy* admission,
                         SweepWriteMode writes);

// Every policy at every size, in policy-major order. Errors: a size the
// policy cannot index (2^31 lines or more).
Expected<std::vector<SweepResult>> RunSweep(const SweepTrace& trace, const SweepOptions& options);

}  // namespace tierlab
