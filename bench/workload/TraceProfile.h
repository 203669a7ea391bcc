#pragma once
// A block trace used as a workload profile, as a matrix names it: a JSON
// object whose "trace" key is the trace file, plus how to read and replay it.
//
//   {"trace": "traces/db.vscsi",      // required; relative to the matrix file, else the cwd;
//                                     // gzip/zstd/xz read directly; "-": stdin (not in a matrix)
//    "name": "db",                    // default: the file name
//    "format": "auto",                // a TraceFormat name (TraceFormat.h)
//    "skip_bad": false,               // skip malformed records (counted in "replay")
//    "blkparse_action": "D",          // Q, D or C
//    "lba_unit": 512,                 // bytes per LBA (SPC, vscsi)
//    "object_size": 4096,             // bytes each key reads (keys-u32, keys-u64)
//    "replay_mode": "closed",         // closed: as fast as the stack allows; open: trace times
//    "iodepth": 1,                    // default 1 closed loop, 256 open loop
//    "replay_time_scale": 100,        // open loop: % of the trace's rate (fio's meaning)
//    "replay_scale": 1,               // divide trace offsets by this (fio's replay_scale)
//    "replay_past_end": "wrap",       // wrap offsets past the volume end, or "reject" them
//    "number_ios": 0}                 // replay only the first N records (0 = all)
//
// The keys mean what `tierlab run --trace` options of the same name mean
// (bench/lab/TraceReplay.h). Matrix axes and profile_override address these
// keys like a profile's ("iodepth", "replay_time_scale"); an axis on a key a
// trace profile does not have is an error, while profile_override keys it
// does not have are left to the synthetic profiles.
//
// Errors (exit code 2) name the source and the key:
// `m.json: profiles[2]: replay_mode: must be one of closed, open, got "x"`.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "bench/trace/TraceReader.h"
#include "bench/workload/ReplaySpec.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct TraceProfile {
  std::string name;
  std::string trace;  // as written: part of the configuration's identity
  std::string path;   // where it is opened (trace resolved against base_dir)
  TraceOptions trace_options;
  ReplaySpec replay;
  bool iodepth_set = false;
};

// True for an object with a "trace" key: a trace profile, not a fio profile.
bool IsTraceProfileJson(const nlohmann::json& j);

// `base_dir`: where a relative "trace" is looked up first (the matrix file's
// directory; empty: the cwd only). Does not open the file (CheckTraceProfile).
Expected<TraceProfile> ParseTraceProfileJson(const nlohmann::json& j, std::string_view source,
                                             const std::string& base_dir = "");

// The effective profile; ParseTraceProfileJson(ToJson(p)) == p but for path
// resolution. iodepth appears only when it was set, object_size only for
// key-only formats or when it is not the default.
nlohmann::json ToJson(const TraceProfile& p);

// JSON merge patch on ToJson(p), re-parsed; the trace is re-resolved only
// when the patch changes it.
Expected<TraceProfile> ApplyTraceProfilePatch(const TraceProfile& p, const nlohmann::json& patch,
                                              std::string_view source,
                                              const std::string& base_dir = "");

// Opens the trace and reads its first record, so that a missing file, an
// undetectable format or a bad header fails before a matrix runs. A matrix
// reads its traces more than once, so "-" (standard input) is an error
// here (StdinReadOnceError).
Expected<void> CheckTraceProfile(const TraceProfile& p);

// The keys above, for "valid keys" lists.
const std::vector<std::string_view>& TraceProfileKeys();

}  // namespace tierlab
