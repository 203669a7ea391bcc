#include "cachedev/CacheConfig.h"

#include "cachedev/SlotPlacement.h"

namespace tierlab {
namespace {

struct ModeName {
  WriteMode mode;
  const char* shortname;
  const char* longname;
};
constexpr ModeName kModes[] = {
    {WriteMode::kPassthrough, "pt", "passthrough"},
    {WriteMode::kWriteThrough, "wt", "writethrough"},
    {WriteMode::kWriteBack, "wb", "writeback"},
    {WriteMode::kWriteAround, "wa", "writearound"},
    {WriteMode::kWriteOnly, "wo", "writeonly"},
    {WriteMode::kWriteInvalidate, "wi", "writeinvalidate"},
};

bool IsPow2(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace

std::string_view ToString(WriteMode m) {
  for (const ModeName& n : kModes) {
    if (n.mode == m) return n.shortname;
  }
  return "unknown";
}

std::optional<WriteMode> ParseWriteMode(std::string_view s) {
  if (s == "off") return WriteMode::kPassthrough;
  for (const ModeName& n : kModes) {
    if (s == n.shortname || s == n.longname) return n.mode;
  }
  return std::nullopt;
}

std::vector<std::string> WriteModeNames() {
  std::vector<std::string> v;
  for (const ModeName& n : kModes) v.emplace_back(n.longname);
  return v;
}

std::string CacheConfig::Validate() const {
  if (line_size != 0 &&
      (!IsPow2(line_size) || line_size < kMinLineSize || line_size > kMaxLineSize)) {
    return "line_size: must be 0 (auto) or a power of two in [4096, 1048576], got " +
           std::to_string(line_size);
  }
  if (!(high_watermark > 0 && high_watermark <= 100)) {
    return "high_watermark: must be in (0, 100] percent, got " + std::to_string(high_watermark);
  }
  if (!(low_watermark >= 0 && low_watermark <= high_watermark)) {
    return "low_watermark: must be in [0, high_watermark], got " + std::to_string(low_watermark);
  }
  if (idle_destage_age < 0) return "idle_destage_age: must be >= 0";
  if (idle_quiet < 0) return "idle_quiet: must be >= 0";
  if (destage_concurrency == 0) return "destage_concurrency: must be >= 1";
  if (placement_run != 0 && !SlotPlacement::Valid(placement_run)) {
    return "placement_run: must be 0 (auto) or a power of two in [1, " +
           std::to_string(SlotPlacement::kMaxRun) + "] lines, got " + std::to_string(placement_run);
  }
  if (destage_max_bytes < kMinLineSize) {
    return "destage_max_bytes: must be >= 4096, got " + std::to_string(destage_max_bytes);
  }
  if (policy.empty()) return "policy: must name a policy";
  if (promotion.empty()) return "promotion: must name a policy";
  if (destage_order.empty()) return "destage_order: must name an order";
  return {};
}

std::vector<std::pair<std::string, std::string>> CacheConfig::Describe() const {
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto n = [](auto v) { return std::to_string(v); };
  return {
      {"line_size", n(line_size)},
      {"read", b(read)},
      {"write", std::string(ToString(write))},
      {"policy", policy},
      {"promotion", promotion},
      {"promotion_concurrency", n(promotion_concurrency)},
      {"high_watermark", n(high_watermark)},
      {"low_watermark", n(low_watermark)},
      {"idle_destage_age_ns", n(idle_destage_age)},
      {"idle_quiet_ns", n(idle_quiet)},
      {"destage_order", destage_order},
      {"destage_concurrency", n(destage_concurrency)},
      {"destage_bandwidth", n(destage_bandwidth)},
      {"destage_max_bytes", n(destage_max_bytes)},
      {"destage_flush", b(destage_flush)},
      {"capacity_lines", n(capacity_lines)},
      {"placement_run", n(placement_run)},
      {"metadata_reserve", n(metadata_reserve)},
      {"with_data", b(with_data)},
      {"seed", n(seed)},
  };
}

}  // namespace tierlab
