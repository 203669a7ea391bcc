#pragma once
// The NVMe write-cache analyzer: runs a trace replay or a workload profile
// through a write-back cache stack in simulation and reports what the cache
// does (write absorption, dirty occupancy over time, destage, read hits),
// how long its devices last (DWPD against the preset's rating) and how big
// it must be (read miss-ratio curve in one pass; write-side curve by
// re-running the simulation at smaller cache sizes). docs/ANALYZER.md
// explains every figure.
//
// This file is the orchestration: the simulations (through RunCell, with a
// sampler in the settings' hooks), the MRC passes and the output. What the
// samples and byte counts mean is computed in bench/analysis/ (DirtyTimeline,
// DestageRate, Endurance, WriteCurve, MrcPass).
//
// Ownership: AnalyzeWriteCache builds and destroys its own engines and
// volumes. Failure: Errors from the layout, the trace or the profile (exit
// code 2), or a layout without a write-back cache (2). Not thread-safe.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/analysis/DestageRate.h"
#include "bench/analysis/DirtyTimeline.h"
#include "bench/analysis/Endurance.h"
#include "bench/analysis/MissRatioCurve.h"
#include "bench/analysis/WriteCurve.h"
#include "bench/lab/TraceReplay.h"
#include "bench/trace/TraceReader.h"
#include "bench/workload/Profile.h"
#include "layouts/Layout.h"

namespace tierlab {

struct AnalyzerInput {
  LayoutSpec layout;  // must hold a cache tier and a write-back cache section
  // The workload: a trace (trace_path set) or a profile. The trace is read
  // several times, so it cannot be standard input ("-": an input error).
  std::string trace_path;
  TraceOptions trace_options;
  ReplayOptions replay;  // default for analyze: open loop at the trace's times
  std::optional<Profile> profile;
  // Dirty-occupancy sampling period; 0 = duration / 400 (at least 1 ms),
  // found from the trace's last timestamp or the profile's runtime.
  Nanos sample_interval = 0;
  // Read MRC: 0 = exact (stack distance); in (0,1] = SHARDS at this rate.
  double shards_rate = 0;
  // The read MRC's replacement policy (a PolicyRegistry spec). LRU is the
  // stack-distance curve; any other is simulated at the same sizes by the
  // policy sweep (bench/analysis/PolicySweep.h) in write-back mode.
  std::string mrc_policy = "lru";
  // Write-side curve: this many simulations at cache sizes halving from the
  // configured one (0 = none).
  int write_curve_points = 6;
  // The recommendation's target share of writes absorbed without throttling.
  double absorb_target = 0.95;
};

// The figures of one simulation at one cache size.
struct CacheRunFigures {
  std::uint64_t cache_bytes = 0;  // usable cache capacity (lines x line size)
  std::uint64_t line_size = 0;
  std::uint64_t write_requests = 0;
  std::uint64_t write_absorbed = 0;
  std::uint64_t write_throttled = 0;
  std::uint64_t write_bypassed = 0;
  double absorbed_share = 0;  // (absorbed - throttled) / write requests
  Nanos throttled_request_ns = 0;
  std::uint64_t host_write_bytes = 0;
  std::uint64_t host_read_bytes = 0;
  double read_hit_ratio = 0;
  std::uint64_t destage_ops = 0;
  std::uint64_t destaged_bytes = 0;
  double avg_destage_bytes = 0;
  DestageRate destage_rate;  // from the timeline
  // Host write bytes / the workload's own length (open-loop trace time
  // scaled by replay_time_scale, the profile's ramp + runtime; closed loop:
  // the simulated run time).
  double offered_write_bps = 0;
  double capacity_busy_share = 0;  // busy time of the capacity devices / duration (mean)
  std::uint64_t cache_device_write_bytes = 0;
  Nanos duration = 0;  // simulated run time
  std::uint64_t high_watermark_bytes = 0;
  std::uint64_t low_watermark_bytes = 0;
  std::vector<DirtySample> timeline;
  DirtyTimelineFigures dirty;  // from the timeline
};

struct AnalyzerReport {
  std::string workload;  // trace file name or profile name
  std::string layout;
  std::string cache_preset;
  // All cache devices together: their whole capacity (the preset's, or the
  // layout's capacity where that is larger), and the part given to the
  // cache (the layout's tier capacity; the whole device without one).
  std::uint64_t cache_device_capacity_bytes = 0;
  std::uint64_t cache_partition_bytes = 0;
  std::uint32_t cache_devices = 0;
  double endurance_dwpd_rating = 0;
  Nanos trace_duration = 0;  // endurance time base (trace time, or run time)
  CacheRunFigures base;
  EnduranceFigures endurance;  // of the base run, over trace_duration
  // Sizing.
  std::optional<MissRatioCurve> read_mrc;  // traces, and profiles (their generated stream)
  std::string mrc_method;                  // "exact" or "shards@R"
  std::string mrc_policy = "lru";
  std::vector<WriteCurvePoint> write_curve;
  SizeRecommendation size;  // from the write curve
  // size.at_most_bytes, unless no size reached absorb_target.
  std::optional<std::uint64_t> recommended_bytes;
  double absorb_target = 0.95;
  std::string recommendation;
  double wall_seconds = 0;
};

Expected<AnalyzerReport> AnalyzeWriteCache(const AnalyzerInput& input);

nlohmann::json ToJson(const AnalyzerReport& r);
std::string ToTextTable(const AnalyzerReport& r);
// The HTML page: bench/report/AnalyzerHtml.h.

// The layout for --cache-preset/--cache-size/--capacity: one cache device of
// `preset` holding `cache_bytes`, write-back, over the capacity shorthand
// ("hdd4", "ssd2"...).
Expected<LayoutSpec> MakeAnalyzerLayout(const std::string& cache_preset, std::uint64_t cache_bytes,
                                        const std::string& capacity);

}  // namespace tierlab
