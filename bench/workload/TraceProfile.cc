#include "bench/workload/TraceProfile.h"

#include <filesystem>
#include <limits>

#include "bench/trace/TraceFactory.h"
#include "bench/workload/Profile.h"  // kMaxIodepth
#include "layouts/JsonFields.h"

namespace tierlab {

namespace {

std::string Resolve(const std::string& trace, const std::string& base_dir) {
  std::error_code ec;
  if (!base_dir.empty() && !IsStdinTrace(trace) && std::filesystem::path(trace).is_relative()) {
    const std::filesystem::path p = std::filesystem::path(base_dir) / trace;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return trace;
}

}  // namespace

const std::vector<std::string_view>& TraceProfileKeys() {
  static const std::vector<std::string_view> keys = {
      "trace",           "name",        "format",     "skip_bad",          "blkparse_action",
      "lba_unit",        "replay_mode", "iodepth",    "replay_time_scale", "replay_scale",
      "replay_past_end", "number_ios",  "object_size"};
  return keys;
}

bool IsTraceProfileJson(const nlohmann::json& j) {
  return j.is_object() && j.contains("trace");
}

Expected<TraceProfile> ParseTraceProfileJson(const nlohmann::json& j, std::string_view source,
                                             const std::string& base_dir) {
  if (!j.is_object()) return MakeError(std::string(source) + ": a trace profile must be an object");
  JsonFields f(j, std::string(source), "");
  f.OnlyKeys(TraceProfileKeys());
  TraceProfile p;
  p.trace = f.String("trace", "");
  if (f.ok() && p.trace.empty()) f.Fail("trace", "must name a trace file");
  p.name =
      f.String("name", IsStdinTrace(p.trace) ? std::string(kStdinTraceName)
                                             : std::filesystem::path(p.trace).filename().string());
  const std::string format = f.Choice("format", "auto", TraceFormatNames());
  p.trace_options.skip_bad = f.Bool("skip_bad", false);
  const std::string action = f.Choice("blkparse_action", "D", {"Q", "D", "C"});
  p.trace_options.lba_unit =
      static_cast<std::uint32_t>(f.Int("lba_unit", 512, 1, std::int64_t{1} << 30));
  p.trace_options.object_size =
      static_cast<std::uint32_t>(f.Int("object_size", 4096, 1, std::int64_t{1} << 30));
  const std::string mode = f.Choice("replay_mode", "closed", {"closed", "open"});
  p.iodepth_set = f.Has("iodepth");
  const auto iodepth = f.Int("iodepth", 0, 1, kMaxIodepth);
  p.replay.time_scale_percent =
      f.Number("replay_time_scale", 100, kMinReplayTimeScale, kMaxReplayTimeScale);
  p.replay.replay_scale = static_cast<std::uint64_t>(
      f.Int("replay_scale", 1, 1, std::numeric_limits<std::int64_t>::max()));
  p.replay.reject_past_end = f.Choice("replay_past_end", "wrap", {"wrap", "reject"}) == "reject";
  p.replay.max_records = static_cast<std::uint64_t>(
      f.Int("number_ios", 0, 0, std::numeric_limits<std::int64_t>::max()));
  if (!f.ok()) return f.error();
  if (p.replay.time_scale_percent <= 0) {
    return MakeError(f.Where("replay_time_scale") + ": must be > 0");
  }
  p.trace_options.format = ParseTraceFormat(format).value_or(TraceFormat::kAuto);
  p.trace_options.blkparse_action = action[0];
  p.replay.mode = mode == "open" ? ReplayMode::kOpen : ReplayMode::kClosed;
  p.replay.iodepth = p.iodepth_set ? static_cast<std::uint32_t>(iodepth)
                                   : (p.replay.mode == ReplayMode::kOpen ? 256 : 1);
  p.path = Resolve(p.trace, base_dir);
  return p;
}

nlohmann::json ToJson(const TraceProfile& p) {
  nlohmann::json j = {{"trace", p.trace},
                      {"name", p.name},
                      {"format", ToString(p.trace_options.format)},
                      {"skip_bad", p.trace_options.skip_bad},
                      {"blkparse_action", std::string(1, p.trace_options.blkparse_action)},
                      {"lba_unit", p.trace_options.lba_unit},
                      {"replay_mode", p.replay.mode == ReplayMode::kOpen ? "open" : "closed"},
                      {"replay_time_scale", p.replay.time_scale_percent},
                      {"replay_scale", p.replay.replay_scale},
                      {"replay_past_end", p.replay.reject_past_end ? "reject" : "wrap"},
                      {"number_ios", p.replay.max_records}};
  if (p.iodepth_set) j["iodepth"] = p.replay.iodepth;
  // Only where it means something (key-only traces) or was changed, so the
  // results of other traces keep their shape.
  const TraceFormat f = p.trace_options.format;
  if (f == TraceFormat::kKeysU32 || f == TraceFormat::kKeysU64 ||
      p.trace_options.object_size != TraceOptions{}.object_size) {
    j["object_size"] = p.trace_options.object_size;
  }
  return j;
}

Expected<TraceProfile> ApplyTraceProfilePatch(const TraceProfile& p, const nlohmann::json& patch,
                                              std::string_view source,
                                              const std::string& base_dir) {
  nlohmann::json j = ToJson(p);
  j.merge_patch(patch);
  auto out = ParseTraceProfileJson(j, source, base_dir);
  if (!out.ok()) return out.error();
  if (out->trace == p.trace) out->path = p.path;
  return out;
}

Expected<void> CheckTraceProfile(const TraceProfile& p) {
  if (IsStdinTrace(p.path)) {
    return StdinReadOnceError(
        "a matrix opens its traces before it runs and replays them in every "
        "cell");
  }
  auto reader = OpenTrace(p.path, p.trace_options);
  if (!reader.ok()) return reader.error();
  TraceRecord r;
  auto first = (*reader)->Next(&r);
  if (!first.ok()) return first.error();
  return {};
}

}  // namespace tierlab
