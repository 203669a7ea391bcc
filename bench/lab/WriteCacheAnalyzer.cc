#include "bench/lab/WriteCacheAnalyzer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <sstream>

#include "bench/analysis/MrcPass.h"
#include "bench/analysis/PolicySweep.h"
#include "bench/lab/RunCell.h"
#include "bench/trace/TraceFactory.h"
#include "bench/workload/WorkloadGenerator.h"
#include "layouts/JsonFields.h"

namespace tierlab {
namespace {

// The timeline keeps at most this many samples: past it, every other sample
// is dropped and the period doubles (long closed-loop runs).
constexpr std::size_t kMaxSamples = 4096;

double Share(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

std::string Gib(double bytes) {
  char b[48];
  const double g = bytes / static_cast<double>(1ull << 30);
  if (g >= 10) {
    std::snprintf(b, sizeof b, "%.0f GiB", g);
  } else if (g >= 1) {
    std::snprintf(b, sizeof b, "%.1f GiB", g);
  } else {
    std::snprintf(b, sizeof b, "%.0f MiB", bytes / static_cast<double>(1ull << 20));
  }
  return b;
}

// The life of the cache devices at the measured rate, as the table and the
// recommendation both print it.
std::string Life(double years) {
  if (std::isinf(years)) return "unlimited";
  char b[48];
  std::snprintf(b, sizeof b, "%.1f years", years);
  return b;
}

// The endurance clause of the recommendation.
std::string EnduranceClause(const AnalyzerReport& r) {
  char b[256];
  std::snprintf(b, sizeof b,
                "endurance %.3g of %g DWPD of the device (%s at this rate), %.3g DWPD of the "
                "cache partition",
                r.endurance.device_dwpd, r.endurance_dwpd_rating,
                Life(r.endurance.life_years).c_str(), r.endurance.partition_dwpd);
  return b;
}

// The sizing answer in words, from the measured write curve: an interval
// between two simulated sizes, or below the smallest one, or none.
std::string Recommendation(const AnalyzerReport& r) {
  const SizeRecommendation& s = r.size;
  const auto size = [](std::uint64_t bytes) { return Gib(static_cast<double>(bytes)); };
  char b[384];
  switch (s.kind) {
    case SizeRecommendation::Kind::kBelowSmallest:
      std::snprintf(b, sizeof b,
                    "below %s, the smallest size simulated: it already absorbs %.1f%% of writes "
                    "without throttling (target %.0f%%; dirty peak %s at %s); simulate smaller "
                    "sizes (--write-points) to find the knee; ",
                    size(s.at_most_bytes).c_str(), 100 * s.at_most_share, 100 * r.absorb_target,
                    size(r.base.dirty.peak_dirty_bytes).c_str(), size(r.base.cache_bytes).c_str());
      break;
    case SizeRecommendation::Kind::kBetween:
      std::snprintf(b, sizeof b,
                    "more than %s, at most %s: %s absorbs %.1f%% of writes without throttling, "
                    "%s %.1f%% (target %.0f%%); ",
                    size(s.above_bytes).c_str(), size(s.at_most_bytes).c_str(),
                    size(s.at_most_bytes).c_str(), 100 * s.at_most_share,
                    size(s.above_bytes).c_str(), 100 * s.above_share, 100 * r.absorb_target);
      break;
    case SizeRecommendation::Kind::kUnreached:
      std::snprintf(b, sizeof b,
                    "even %s absorbs only %.1f%% of writes without throttling (target %.0f%%): "
                    "the capacity tier cannot destage the write stream; ",
                    size(r.base.cache_bytes).c_str(), 100 * r.base.absorbed_share,
                    100 * r.absorb_target);
      break;
  }
  return b + EnduranceClause(r);
}

// What a profile's request stream needs to be generated again: how many
// I/Os the run issued, on what volume.
struct ProfileStream {
  std::uint64_t issued = 0;  // all jobs, ramp included
  std::uint64_t volume_bytes = 0;
  std::uint32_t alignment = 0;
};

// One simulation of the workload on `layout`. `interval` is the first
// sampling period; `workload_duration` receives the trace time (or run time);
// `stream` (may be null) what ProfileMrc needs, for a profile.
Expected<CacheRunFigures> Simulate(const AnalyzerInput& in, const LayoutSpec& layout,
                                   Nanos interval, Nanos* workload_duration,
                                   ProfileStream* stream = nullptr) {
  CacheRunFigures f;
  CacheTarget* cache = nullptr;
  Nanos t0 = 0;
  Nanos period = std::max<Nanos>(interval, kMilli);
  std::function<void()> sample;
  std::function<void()> tick;
  double busy = 0;  // capacity devices' busy time, summed
  int devices = 0;
  RunSettings settings;
  // The sampler: dirty occupancy, destage and throttling every `period`,
  // halving the timeline (and doubling the period) when it grows too long.
  settings.before = [&](Engine& engine, Volume& volume) -> Expected<void> {
    cache = volume.cache();
    if (cache == nullptr) {
      return Error{"analyze: layout '" + layout.name + "' has no cache section", ErrorKind::kInput};
    }
    if (!KeepsDirtyLines(cache->config().write)) {
      return Error{"analyze: layout '" + layout.name +
                       "': the cache is not write-back (set cache.write to writeback)",
                   ErrorKind::kInput};
    }
    t0 = engine.Now();
    sample = [&f, &engine, &cache, &t0] {
      const CacheStats s = cache->cache_stats();
      f.timeline.push_back(DirtySample{engine.Now() - t0, s.dirty_lines * s.line_size,
                                       s.destaged_bytes, s.write_throttled,
                                       cache->stats().write_bytes});
    };
    tick = [&f, &engine, &period, &sample, &tick] {
      sample();
      if (f.timeline.size() >= kMaxSamples) {
        std::vector<DirtySample> kept;
        for (std::size_t i = 0; i < f.timeline.size(); i += 2) kept.push_back(f.timeline[i]);
        f.timeline = std::move(kept);
        period *= 2;
      }
      engine.ScheduleAfter(period, [&tick] { tick(); });
    };
    sample();
    engine.ScheduleAfter(period, [&tick] { tick(); });
    return {};
  };
  settings.after = [&](Engine& engine, Volume& volume) {
    sample();
    f.duration = engine.Now() - t0;
    const CacheStats s = cache->cache_stats();
    f.line_size = s.line_size;
    f.cache_bytes = s.capacity_lines * s.line_size;
    f.write_requests = s.write_requests;
    f.write_absorbed = s.write_absorbed;
    f.write_throttled = s.write_throttled;
    f.write_bypassed = s.write_bypassed;
    const std::uint64_t clean_absorbed =
        s.write_absorbed - std::min(s.write_absorbed, s.write_throttled);
    f.absorbed_share = Share(static_cast<double>(clean_absorbed), s.write_requests);
    f.throttled_request_ns = s.throttled_ns;
    f.host_write_bytes = cache->stats().write_bytes;
    f.host_read_bytes = cache->stats().read_bytes;
    f.read_hit_ratio = s.ReadHitRatio();
    f.destage_ops = s.destage_ops;
    f.destaged_bytes = s.destaged_bytes;
    f.avg_destage_bytes = s.AverageDestageBytes();
    for (std::uint64_t b : s.cache_device_write_bytes) f.cache_device_write_bytes += b;
    const auto& cfg = cache->config();
    f.high_watermark_bytes =
        static_cast<std::uint64_t>(static_cast<double>(f.cache_bytes) * cfg.high_watermark / 100);
    f.low_watermark_bytes =
        static_cast<std::uint64_t>(static_cast<double>(f.cache_bytes) * cfg.low_watermark / 100);
    for (const TierView& t : volume.tiers()) {
      if (t.role != "capacity") continue;
      for (const BlockDevice* d : t.devices) {
        busy += static_cast<double>(d->stats().busy_ns);
        ++devices;
      }
    }
    if (stream != nullptr) {
      stream->volume_bytes = volume.top().Size();
      stream->alignment = volume.top().BlockSize();
    }
  };

  Workload workload;
  if (!in.trace_path.empty()) {
    TraceProfile t;
    t.name = std::filesystem::path(in.trace_path).filename().string();
    t.trace = t.path = in.trace_path;
    t.trace_options = in.trace_options;
    t.replay = in.replay;
    workload = std::move(t);
  } else {
    workload = std::vector<Profile>{*in.profile};
  }
  auto runs = RunCell(layout, workload, settings);
  if (!runs.ok()) return runs.error();
  const CellRun& run = runs->front();
  Nanos duration = 0;
  Nanos offered_window = 0;  // the workload's own length, without the drain at the end
  if (run.replay) {
    duration = run.replay->trace_duration;
    if (in.replay.mode == ReplayMode::kOpen) {
      offered_window =
          static_cast<Nanos>(static_cast<double>(duration) * 100.0 / in.replay.time_scale_percent);
    }
  } else {
    duration = run.run.end - run.run.start;
    if (stream != nullptr) stream->issued = run.run.issued;
    offered_window = duration;
  }
  *workload_duration = duration > 0 ? duration : f.duration;

  // Closed loop: the run's own time is the offered window.
  if (offered_window <= 0) offered_window = f.duration;
  const double secs = static_cast<double>(offered_window) / 1e9;
  f.offered_write_bps = secs > 0 ? static_cast<double>(f.host_write_bytes) / secs : 0;
  f.dirty = SummarizeDirtyTimeline(f.timeline, f.high_watermark_bytes);
  f.destage_rate = MeasureDestageRate(f.timeline);
  if (devices > 0 && f.duration > 0) {
    f.capacity_busy_share = busy / devices / static_cast<double>(f.duration);
  }
  return f;
}

// A profile's request stream: its generators, as many I/Os as the
// simulation issued. The jobs' streams are interleaved round robin (in the
// simulation they interleave by completion order, which cannot be known
// without re-running it).
template <typename Sink>
Expected<void> ProfileStreamRecords(const AnalyzerInput& in, const ProfileStream& stream,
                                    Sink&& sink) {
  std::vector<WorkloadGenerator> jobs;
  for (std::uint32_t j = 0; j < in.profile->numjobs; ++j) {
    auto g = WorkloadGenerator::Create(*in.profile, stream.volume_bytes, stream.alignment, j);
    if (!g.ok()) return g.error();
    jobs.push_back(std::move(g.value()));
  }
  TraceRecord rec;
  for (std::uint64_t i = 0; i < stream.issued; ++i) {
    const NextIo io = jobs[i % jobs.size()].Next();
    rec.op = io.op;
    rec.offset = io.offset;
    rec.length = static_cast<std::uint32_t>(io.length);
    sink(rec);
  }
  return {};
}

// The read MRC of a profile, through the same MRC as a trace.
Expected<MissRatioCurve> ProfileMrc(const AnalyzerInput& in, std::uint64_t line_size,
                                    const ProfileStream& stream) {
  MrcPass pass(line_size, in.shards_rate);
  auto fed = ProfileStreamRecords(in, stream, [&](const TraceRecord& r) { pass.Add(r); });
  if (!fed.ok()) return fed.error();
  return pass.Curve();
}

// `lru`'s sizes simulated with another policy in write-back mode: every
// line a request touches is a reference, writes allocate, as in the LRU
// curve, so the two are comparable point for point.
Expected<MissRatioCurve> PolicyMrc(const AnalyzerInput& in, const ProfileStream& stream,
                                   const MissRatioCurve& lru) {
  auto spec = ParseReplacementSpec(in.mrc_policy);
  if (!spec.ok()) return Error{"policy: " + spec.error().message, ErrorKind::kInput};
  const SweepTraceOptions options{lru.block_size, false};
  Expected<SweepTrace> trace = Error{"", ErrorKind::kInput};
  if (!in.trace_path.empty()) {
    auto reader = OpenTrace(in.trace_path, in.trace_options);
    if (!reader.ok()) return reader.error();
    trace = SweepTrace::Load(**reader, options);
  } else {
    std::vector<TraceRecord> records;
    auto fed =
        ProfileStreamRecords(in, stream, [&](const TraceRecord& r) { records.push_back(r); });
    if (!fed.ok()) return fed.error();
    trace = SweepTrace::FromRecords(records, options, in.profile->name);
  }
  if (!trace.ok()) return trace.error();
  SweepOptions so;
  so.policies = {*spec};
  for (const MrcPoint& p : lru.points) so.sizes_lines.push_back(p.cache_blocks);
  so.writes = SweepWriteMode::kWriteBack;
  auto cells = RunSweep(*trace, so);
  if (!cells.ok()) return cells.error();
  MissRatioCurve curve = lru;
  curve.references = static_cast<double>(trace->ids().size());
  for (std::size_t i = 0; i < curve.points.size(); ++i) {
    const SweepCounts& c = (*cells)[i].counts;
    curve.points[i].miss_ratio = c.MissRatio();
    curve.points[i].read_miss_ratio = c.ReadMissRatio();
  }
  if (!cells->empty()) curve.read_references = static_cast<double>(cells->front().counts.read_refs);
  return curve;
}

}  // namespace

Expected<LayoutSpec> MakeAnalyzerLayout(const std::string& cache_preset, std::uint64_t cache_bytes,
                                        const std::string& capacity) {
  auto preset = FindPreset(cache_preset);
  if (!preset.ok()) return preset.error();
  auto cap = ExpandShorthand(capacity);
  if (!cap.ok()) return cap.error();
  if (cap->contains("cache")) {
    return Error{"--capacity \"" + capacity + "\": give the capacity devices only, e.g. hdd4",
                 ErrorKind::kInput};
  }
  nlohmann::json j;
  j["name"] = cache_preset + "+" + capacity;
  j["tiers"] = nlohmann::json::array();
  j["tiers"].push_back(
      {{"name", "cache"}, {"preset", cache_preset}, {"count", 1}, {"capacity", cache_bytes}});
  for (auto t : (*cap)["tiers"]) {
    if (t.value("name", "") == "cache") t["name"] = "capacity";
    j["tiers"].push_back(t);
  }
  j["cache"] = {{"tier", "cache"}, {"read", true}, {"write", "writeback"}};
  return ParseLayoutJson(j, j["name"].get<std::string>());
}

Expected<AnalyzerReport> AnalyzeWriteCache(const AnalyzerInput& in) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (in.trace_path.empty() == !in.profile.has_value()) {
    return Error{"analyze: give either a trace or a profile", ErrorKind::kInput};
  }
  if (IsStdinTrace(in.trace_path)) {
    return StdinReadOnceError(
        "analyze reads the trace several times (its MRC pass and one simulation per cache size)");
  }
  AnalyzerReport r;
  r.absorb_target = in.absorb_target;
  r.layout = in.layout.name;
  r.workload = in.trace_path.empty() ? in.profile->name
                                     : std::filesystem::path(in.trace_path).filename().string();
  const TierSpec* cache_tier = nullptr;
  {
    std::string tier_name = "";
    if (in.layout.cache) tier_name = in.layout.cache->tier;
    for (const TierSpec& t : in.layout.tiers) {
      if (t.name == tier_name || (tier_name.empty() && cache_tier == nullptr)) cache_tier = &t;
    }
  }
  if (cache_tier == nullptr) {
    return Error{"analyze: layout '" + in.layout.name + "' has no cache tier", ErrorKind::kInput};
  }
  r.cache_preset = std::string(cache_tier->preset.name);
  r.endurance_dwpd_rating = cache_tier->preset.endurance_dwpd;
  r.cache_devices = cache_tier->count;
  const std::uint64_t partition =
      cache_tier->capacity != 0 ? cache_tier->capacity : cache_tier->preset.capacity_bytes;
  r.cache_partition_bytes = partition * cache_tier->count;
  r.cache_device_capacity_bytes =
      std::max(partition, cache_tier->preset.capacity_bytes) * cache_tier->count;

  // Sampling period from the workload's length: the trace's last timestamp
  // (scaled in open loop), or the profile's planned time.
  Nanos planned = 0;
  Nanos trace_last = 0;
  if (in.trace_path.empty()) {
    planned = in.profile->ramp_time + in.profile->runtime;
  } else {
    auto probe = OpenTrace(in.trace_path, in.trace_options);
    if (!probe.ok()) return probe.error();
    TraceRecord rec;
    // The MRC pass below reads the trace fully; here only the format check.
    auto first = (*probe)->Next(&rec);
    if (!first.ok()) return first.error();
  }

  // Base run. The MRC pass (traces) also yields the duration; run it first
  // with the layout's line size guess (4 KiB), fixed after the base run.
  Nanos interval = in.sample_interval;
  std::optional<MissRatioCurve> mrc;
  if (!in.trace_path.empty()) {
    auto m = TraceMrc(in.trace_path, in.trace_options, 4096, in.shards_rate, &trace_last);
    if (!m.ok()) return m.error();
    mrc = std::move(*m);
    planned = in.replay.mode == ReplayMode::kOpen
                  ? static_cast<Nanos>(static_cast<double>(trace_last) * 100.0 /
                                       in.replay.time_scale_percent)
                  : 0;
  }
  if (interval <= 0) interval = planned > 0 ? std::max<Nanos>(planned / 400, kMilli) : kMilli;
  Nanos duration = 0;
  ProfileStream stream;
  auto base = Simulate(in, in.layout, interval, &duration, &stream);
  if (!base.ok()) return base.error();
  r.base = std::move(*base);
  r.trace_duration = duration;
  if (mrc && r.base.line_size != 0 && r.base.line_size != 4096) {
    Nanos ignored = 0;
    auto m = TraceMrc(in.trace_path, in.trace_options, r.base.line_size, in.shards_rate, &ignored);
    if (!m.ok()) return m.error();
    mrc = std::move(*m);
  }
  if (!mrc && in.profile) {
    auto m = ProfileMrc(in, r.base.line_size != 0 ? r.base.line_size : 4096, stream);
    if (!m.ok()) return m.error();
    mrc = std::move(*m);
  }
  if (mrc) {
    r.mrc_method = MrcPass::Method(in.shards_rate);
    if (in.mrc_policy != "lru") {
      auto m = PolicyMrc(in, stream, *mrc);
      if (!m.ok()) return m.error();
      mrc = std::move(*m);
      r.mrc_method = "exact";
    }
    r.read_mrc = std::move(mrc);
    r.mrc_policy = in.mrc_policy;
  }

  // Endurance over the workload's own time (trace time for traces).
  r.endurance = ComputeEndurance({.device_write_bytes = r.base.cache_device_write_bytes,
                                  .host_write_bytes = r.base.host_write_bytes,
                                  .duration = r.trace_duration,
                                  .device_bytes = r.cache_device_capacity_bytes,
                                  .partition_bytes = r.cache_partition_bytes,
                                  .rated_dwpd = r.endurance_dwpd_rating});

  // Write-side curve: the same simulation with the cache capacity halved
  // again and again (cache.capacity; the devices stay as configured).
  r.write_curve.push_back({r.base.cache_bytes, r.base.absorbed_share,
                           Share(static_cast<double>(r.base.dirty.throttled_wall_ns),
                                 static_cast<double>(r.base.duration))});
  std::uint64_t size = r.base.cache_bytes;
  for (int i = 1; i < in.write_curve_points; ++i) {
    size /= 2;
    if (r.base.line_size == 0 || size < 64 * r.base.line_size) break;
    LayoutSpec l = in.layout;
    if (!l.cache) {
      l.cache = CacheSpec{};
      l.cache->tier = l.tiers[0].name;
    }
    l.cache->capacity = size;
    Nanos ignored = 0;
    auto f = Simulate(in, l, interval, &ignored);
    if (!f.ok()) return f.error();
    r.write_curve.push_back(
        {f->cache_bytes, f->absorbed_share,
         Share(static_cast<double>(f->dirty.throttled_wall_ns), static_cast<double>(f->duration))});
  }
  SortBySize(r.write_curve);
  r.size = RecommendSize(r.write_curve, in.absorb_target);
  if (r.size.kind != SizeRecommendation::Kind::kUnreached) {
    r.recommended_bytes = r.size.at_most_bytes;
  }
  r.recommendation = Recommendation(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

nlohmann::json ToJson(const AnalyzerReport& r) {
  const CacheRunFigures& b = r.base;
  nlohmann::json j;
  j["workload"] = r.workload;
  j["layout"] = r.layout;
  j["cache"] = {{"preset", r.cache_preset},
                {"devices", r.cache_devices},
                {"device_bytes", r.cache_device_capacity_bytes},
                {"partition_bytes", r.cache_partition_bytes},
                {"cache_bytes", b.cache_bytes},
                {"line_size", b.line_size}};
  j["duration_s"] = static_cast<double>(r.trace_duration) / 1e9;
  j["simulated_s"] = static_cast<double>(b.duration) / 1e9;
  j["write_absorption"] = {
      {"write_requests", b.write_requests},
      {"absorbed", b.write_absorbed},
      {"throttled", b.write_throttled},
      {"bypassed", b.write_bypassed},
      {"absorbed_share", b.absorbed_share},
      {"offered_write_mb_per_s", b.offered_write_bps / 1e6},
      {"sustainable_destage_mb_per_s", b.destage_rate.bytes_per_s
                                           ? nlohmann::json(*b.destage_rate.bytes_per_s / 1e6)
                                           : nlohmann::json(nullptr)},
      {"throttled_request_s", static_cast<double>(b.throttled_request_ns) / 1e9},
      {"throttled_wall_s", static_cast<double>(b.dirty.throttled_wall_ns) / 1e9},
      {"throttled_share",
       Share(static_cast<double>(b.dirty.throttled_wall_ns), static_cast<double>(b.duration))}};
  nlohmann::json tl = nlohmann::json::array();
  for (const DirtySample& s : b.timeline) {
    tl.push_back({static_cast<double>(s.t) / 1e9, s.dirty_bytes});
  }
  j["dirty"] = {{"high_watermark_bytes", b.high_watermark_bytes},
                {"low_watermark_bytes", b.low_watermark_bytes},
                {"peak_bytes", b.dirty.peak_dirty_bytes},
                {"time_to_high_watermark_s",
                 b.dirty.time_to_high_watermark
                     ? nlohmann::json(static_cast<double>(*b.dirty.time_to_high_watermark) / 1e9)
                     : nlohmann::json(nullptr)},
                {"peak_fill_mb_per_s", b.dirty.peak_fill_bps / 1e6},
                {"burst_time_to_full_s", b.dirty.burst_time_to_full_s
                                             ? nlohmann::json(*b.dirty.burst_time_to_full_s)
                                             : nlohmann::json(nullptr)},
                {"timeline", tl}};
  j["destage"] = {{"bytes", b.destaged_bytes},
                  {"ops", b.destage_ops},
                  {"avg_bytes", b.avg_destage_bytes},
                  {"capacity_busy_share", b.capacity_busy_share}};
  j["read_hit_ratio"] = b.read_hit_ratio;
  j["endurance"] = {
      {"cache_device_write_bytes", b.cache_device_write_bytes},
      {"host_write_bytes", b.host_write_bytes},
      {"bytes_per_day", r.endurance.bytes_per_day},
      {"device_dwpd", r.endurance.device_dwpd},
      {"partition_dwpd", r.endurance.partition_dwpd},
      {"rated_dwpd", r.endurance_dwpd_rating},
      {"life_years", std::isinf(r.endurance.life_years) ? nlohmann::json(nullptr)
                                                        : nlohmann::json(r.endurance.life_years)},
      {"warranty_years", kWarrantyYears},
      {"write_amplification", r.endurance.write_amplification}};
  nlohmann::json wc = nlohmann::json::array();
  for (const WriteCurvePoint& p : r.write_curve) {
    wc.push_back({{"cache_bytes", p.cache_bytes},
                  {"absorbed_share", p.absorbed_share},
                  {"throttled_share", p.throttled_wall_share}});
  }
  j["sizing"] = {{"write_curve", wc},
                 {"write_curve_method", "simulation at each size"},
                 {"absorb_target", r.absorb_target},
                 {"recommended_bytes", r.recommended_bytes ? nlohmann::json(*r.recommended_bytes)
                                                           : nlohmann::json(nullptr)},
                 {"recommended_range",
                  {{"kind", KindName(r.size.kind)},
                   {"above_bytes", r.size.kind == SizeRecommendation::Kind::kBetween
                                       ? nlohmann::json(r.size.above_bytes)
                                       : nlohmann::json(nullptr)},
                   {"at_most_bytes", r.recommended_bytes ? nlohmann::json(*r.recommended_bytes)
                                                         : nlohmann::json(nullptr)}}},
                 {"recommendation", r.recommendation}};
  if (r.read_mrc) {
    j["sizing"]["read_mrc"] = ToJson(*r.read_mrc);
    j["sizing"]["read_mrc_method"] = r.mrc_method;
    j["sizing"]["read_mrc_policy"] = r.mrc_policy;
  }
  j["wall_s"] = r.wall_seconds;
  return j;
}

std::string ToTextTable(const AnalyzerReport& r) {
  const CacheRunFigures& b = r.base;
  std::ostringstream o;
  char buf[256];
  auto row = [&](const char* k, const std::string& v) {
    std::snprintf(buf, sizeof buf, "%-34s %s\n", k, v.c_str());
    o << buf;
  };
  auto num = [&](const char* fmt, double v) {
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  o << "write-cache analysis: " << r.workload << " on " << r.layout << "\n\n";
  row("cache", r.cache_preset + " x" + std::to_string(r.cache_devices) + ", cache " +
                   Gib(static_cast<double>(b.cache_bytes)) + ", line " +
                   std::to_string(b.line_size) + " B");
  row("workload time", num("%.1f s", static_cast<double>(r.trace_duration) / 1e9));
  row("write requests", std::to_string(b.write_requests));
  row("absorbed without throttling", num("%.2f %%", 100 * b.absorbed_share));
  row("throttled writes",
      std::to_string(b.write_throttled) +
          num(" (%.1f s waiting, ", static_cast<double>(b.throttled_request_ns) / 1e9) +
          num("%.1f s of wall time)", static_cast<double>(b.dirty.throttled_wall_ns) / 1e9));
  row("offered write rate", num("%.2f MB/s", b.offered_write_bps / 1e6));
  row("sustainable destage rate", b.destage_rate.bytes_per_s
                                      ? num("%.2f MB/s", *b.destage_rate.bytes_per_s / 1e6)
                                      : std::string("n/a (nothing destaged)"));
  row("dirty peak", Gib(static_cast<double>(b.dirty.peak_dirty_bytes)) + " (high mark " +
                        Gib(static_cast<double>(b.high_watermark_bytes)) + ", low " +
                        Gib(static_cast<double>(b.low_watermark_bytes)) + ")");
  row("time to high watermark",
      b.dirty.time_to_high_watermark
          ? num("%.1f s", static_cast<double>(*b.dirty.time_to_high_watermark) / 1e9)
          : std::string("never reached"));
  row("burst time to full", b.dirty.burst_time_to_full_s
                                ? num("%.1f s", *b.dirty.burst_time_to_full_s) +
                                      num(" at %.1f MB/s", b.dirty.peak_fill_bps / 1e6)
                                : std::string("n/a"));
  row("destaged", num("%.1f MB", static_cast<double>(b.destaged_bytes) / 1e6) + " in " +
                      std::to_string(b.destage_ops) +
                      num(" ops, avg %.1f KiB", b.avg_destage_bytes / 1024));
  row("capacity tier busy", num("%.1f %%", 100 * b.capacity_busy_share));
  row("read hit ratio", num("%.2f %%", 100 * b.read_hit_ratio));
  row("cache device writes",
      num("%.1f MB", static_cast<double>(b.cache_device_write_bytes) / 1e6) +
          num(" (write amplification %.2f)", r.endurance.write_amplification));
  row("endurance, device", num("%.3g DWPD of the device", r.endurance.device_dwpd) + " (" +
                               Gib(static_cast<double>(r.cache_device_capacity_bytes)) +
                               num(", rated %g), ", r.endurance_dwpd_rating) +
                               Life(r.endurance.life_years) + " at this rate");
  row("endurance, cache partition",
      num("%.3g DWPD of the cache partition", r.endurance.partition_dwpd) + " (" +
          Gib(static_cast<double>(r.cache_partition_bytes)) + ")");
  o << "\nwrite curve (simulated at each size)\n";
  for (const WriteCurvePoint& p : r.write_curve) {
    std::snprintf(buf, sizeof buf, "  %-12s absorbed %6.2f %%  throttled %5.1f %% of time\n",
                  Gib(static_cast<double>(p.cache_bytes)).c_str(), 100 * p.absorbed_share,
                  100 * p.throttled_wall_share);
    o << buf;
  }
  if (r.read_mrc) {
    o << "\nread miss-ratio curve (" << r.mrc_method << ", " << r.mrc_policy << ")\n";
    const auto& pts = r.read_mrc->points;
    const std::size_t step = std::max<std::size_t>(1, pts.size() / 8);
    for (std::size_t i = 0; i < pts.size(); i += step) {
      std::snprintf(buf, sizeof buf, "  %-12s read miss %6.2f %%\n",
                    Gib(static_cast<double>(pts[i].cache_blocks * r.read_mrc->block_size)).c_str(),
                    100 * pts[i].read_miss_ratio);
      o << buf;
    }
  }
  o << "\nrecommendation: " << r.recommendation << "\n";
  return o.str();
}

}  // namespace tierlab
