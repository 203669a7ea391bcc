#pragma once
// Replays a block trace on a volume as a workload, measured like RunWorkload
// (same RunResult, so the same JSON and tables).
//
// Closed and open loop as bench/workload/ReplaySpec.h describes. In the open
// loop an arrival that finds all `iodepth` slots busy waits; its latency
// counts from its arrival (no coordinated omission).
//
// Offsets: divided by replay_scale (fio's option of that name: scale offsets
// down by this factor), aligned down to the volume's block size with the end
// rounded up, then wrapped modulo the volume size (default) or rejected when
// past the end (counted in `rejected`, never issued). Discards and flushes
// are issued as such; zero-length reads/writes are skipped (counted).
//
// Ownership: the reader, engine and volume are borrowed for the call.
// Failure: a reader error (malformed record) stops issuing; the error is
// returned once in-flight I/O has drained. Not thread-safe.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/lab/Runner.h"
#include "bench/trace/TraceReader.h"
#include "bench/workload/Profile.h"
#include "bench/workload/ReplaySpec.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"

namespace tierlab {

// The replay's inputs (ReplaySpec.h) and, for the run itself, the runner's
// options (progress).
struct ReplayOptions : ReplaySpec {
  ReplayOptions() = default;
  explicit ReplayOptions(const ReplaySpec& spec) : ReplaySpec(spec) {}

  RunOptions run;  // progress callback, cancellation
};

struct ReplayResult {
  RunResult run;                  // measured over the whole replay
  std::uint64_t records = 0;      // trace records read
  std::uint64_t rejected = 0;     // past the end with reject_past_end
  std::uint64_t wrapped = 0;      // records whose offset was wrapped
  std::uint64_t skipped = 0;      // zero-length reads/writes
  std::uint64_t reads = 0;        // issued
  std::uint64_t writes = 0;       // issued
  std::uint64_t other = 0;        // discards + flushes issued
  std::uint64_t write_bytes = 0;  // issued (after alignment)
  Nanos trace_duration = 0;       // last record's timestamp (unscaled)
  std::uint64_t bad_records = 0;  // skipped by the reader (skip_bad)
};

// Errors: options out of range (CheckReplaySpec), a trace with no I/O
// record (the message says what its lines were), a record whose scaled
// arrival leaves the engine's clock range (exit code 2); reader errors.
Expected<ReplayResult> ReplayTrace(Engine& engine, BlockDevice& volume, TraceReader& reader,
                                   const ReplayOptions& options);

// A Profile describing a replay for reports: name, iodepth, rw=randrw with
// rwmixread from the issued mix.
Profile ReplayProfile(const std::string& name, const ReplaySpec& options,
                      const ReplayResult& result);

// The "replay" section of a run's results JSON (`tierlab run --trace`,
// matrix cells replaying a trace): the options and the record counts.
nlohmann::json ReplayToJson(const std::string& trace, TraceFormat format, const ReplaySpec& options,
                            const ReplayResult& result);

}  // namespace tierlab
