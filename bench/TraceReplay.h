#pragma once
// Replays a block trace on a volume as a workload, measured like RunWorkload
// (same RunResult, so the same JSON and tables).
//
// Closed loop (default): `iodepth` requests outstanding, issued in trace
// order as fast as the stack completes them; timestamps are ignored.
// Open loop: each record arrives at its trace timestamp scaled by fio's
// replay_time_scale, a percentage of the original rate (100 = as recorded,
// 50 = half the rate, i.e. twice as slow, 200 = twice as fast). An arrival
// that finds all `iodepth` slots busy waits; its latency counts from its
// arrival (no coordinated omission).
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

#include "bench/Profile.h"
#include "bench/Runner.h"
#include "bench/trace/TraceReader.h"
#include "tiering/BlockDevice.h"
#include "tiering/Engine.h"

namespace tierlab {

enum class ReplayMode : std::uint8_t { kClosed, kOpen };

struct ReplayOptions {
  ReplayMode mode = ReplayMode::kClosed;
  std::uint32_t iodepth = 1;  // outstanding requests at most, >= 1
  // fio's replay_time_scale: % of the original I/O rate (open loop), > 0.
  double time_scale_percent = 100;
  std::uint64_t replay_scale = 1;  // offsets divided by this, >= 1
  bool reject_past_end = false;    // false: wrap modulo the volume size
  std::uint64_t max_records = 0;   // 0: the whole trace
  RunOptions run;                  // progress callback
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

Expected<ReplayResult> ReplayTrace(Engine& engine, BlockDevice& volume, TraceReader& reader,
                                   const ReplayOptions& options);

// A Profile describing a replay for reports: name, iodepth, rw=randrw with
// rwmixread from the issued mix.
Profile ReplayProfile(const std::string& name, const ReplayOptions& options,
                      const ReplayResult& result);

Expected<ReplayMode> ParseReplayMode(const std::string& s);

// The "replay" section of a run's results JSON (`tierlab run --trace`,
// matrix cells replaying a trace): the options and the record counts.
nlohmann::json ReplayToJson(const std::string& trace, TraceFormat format,
                            const ReplayOptions& options, const ReplayResult& result);

}  // namespace tierlab
