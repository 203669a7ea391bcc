#include "bench/trace/TraceFormat.h"

#include <array>
#include <utility>

namespace tierlab {
namespace {

constexpr std::array<std::pair<TraceFormat, const char*>, 11> kNames = {{
    {TraceFormat::kAuto, "auto"},
    {TraceFormat::kFioIologV2, "fio-v2"},
    {TraceFormat::kFioIologV3, "fio-v3"},
    {TraceFormat::kBlkparse, "blkparse"},
    {TraceFormat::kMsrCsv, "msr"},
    {TraceFormat::kSpcCsv, "spc"},
    {TraceFormat::kSystor17Csv, "systor17"},
    {TraceFormat::kVscsi, "vscsi"},
    {TraceFormat::kTierlabBin, "tierlab"},
    {TraceFormat::kKeysU32, "keys-u32"},
    {TraceFormat::kKeysU64, "keys-u64"},
}};

}  // namespace

const char* ToString(TraceFormat format) {
  for (const auto& [f, name] : kNames) {
    if (f == format) return name;
  }
  return "unknown";
}

std::optional<TraceFormat> ParseTraceFormat(std::string_view name) {
  for (const auto& [f, n] : kNames) {
    if (name == n) return f;
  }
  return std::nullopt;
}

std::vector<std::string> TraceFormatNames() {
  std::vector<std::string> out;
  for (const auto& [f, name] : kNames) out.emplace_back(name);
  return out;
}

std::string TraceFormatChoices() {
  std::string out;
  for (const auto& [f, name] : kNames) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace tierlab
