#include "layouts/CacheSpec.h"

#include "layouts/JsonFields.h"
#include "policies/PolicyRegistry.h"

namespace tierlab {

Expected<CacheSpec> ParseCacheJson(const nlohmann::json& j, std::string_view source,
                                   std::string_view default_tier) {
  JsonFields f(j, std::string(source), "cache");
  f.OnlyKeys({"tier", "read", "write", "policy", "promotion", "line_size", "high_watermark",
              "low_watermark", "destage_order", "destage_concurrency", "destage_bandwidth",
              "destage_max_bytes", "destage_flush", "idle_destage_age_ms", "idle_quiet_ms",
              "capacity", "promotion_concurrency"});
  CacheSpec c;
  CacheConfig& cfg = c.config;
  c.tier = f.String("tier", std::string(default_tier));
  cfg.read_cache = f.Switch("read", true);
  const std::string write = f.String("write", "writethrough");
  if (auto m = ParseWriteMode(write)) {
    cfg.write_mode = *m;
  } else {
    f.Fail("write", "unknown \"" + write + "\"; known: off, " + JoinNames(WriteModeNames()));
  }
  cfg.replacement = f.Choice("policy", "lru", ReplacementPolicyNames());
  cfg.admission = f.String("promotion", "always");
  cfg.promotion_max_in_flight =
      static_cast<std::uint32_t>(f.Int("promotion_concurrency", 64, 0, 1 << 20));
  cfg.line_size = f.Bytes("line_size", 4096);
  cfg.high_watermark = f.Number("high_watermark", 50, 0, 100);
  cfg.low_watermark = f.Number("low_watermark", 45, 0, 100);
  cfg.destage_order = f.Choice("destage_order", "lba", DestageOrderNames());
  cfg.destage_max_in_flight = static_cast<std::uint32_t>(f.Int("destage_concurrency", 8, 1, 4096));
  cfg.destage_bandwidth = f.Bytes("destage_bandwidth", 0);
  cfg.destage_max_bytes = f.Bytes("destage_max_bytes", 1 << 20);
  cfg.destage_flush = f.Bool("destage_flush", true);
  cfg.idle_destage_age =
      static_cast<Nanos>(f.Number("idle_destage_age_ms", 0, 0, 1e9) * static_cast<double>(kMilli));
  cfg.idle_quiet =
      static_cast<Nanos>(f.Number("idle_quiet_ms", 0, 0, 1e9) * static_cast<double>(kMilli));
  c.capacity_bytes = f.Bytes("capacity", 0);
  if (!f.ok()) return f.error();
  if (MakeAdmissionPolicy(cfg.admission, cfg.line_size == 0 ? 4096 : cfg.line_size) == nullptr) {
    f.Fail("promotion",
           "bad spec \"" + cfg.admission + "\"; known: " + JoinNames(AdmissionPolicyNames()));
    return f.error();
  }
  const std::string err = cfg.Validate();
  if (!err.empty()) return MakeError(std::string(source) + ": cache." + err);
  return c;
}

nlohmann::json CacheSpecToJson(const CacheSpec& c) {
  const CacheConfig& cfg = c.config;
  nlohmann::json j;
  j["tier"] = c.tier;
  j["read"] = cfg.read_cache;
  for (const std::string& n : WriteModeNames()) {  // the long name reads better in a report
    if (ParseWriteMode(n) == cfg.write_mode) j["write"] = n;
  }
  j["policy"] = cfg.replacement;
  j["promotion"] = cfg.admission;
  j["promotion_concurrency"] = cfg.promotion_max_in_flight;
  j["line_size"] = FormatBytes(cfg.line_size);
  j["high_watermark"] = cfg.high_watermark;
  j["low_watermark"] = cfg.low_watermark;
  j["destage_order"] = cfg.destage_order;
  j["destage_concurrency"] = cfg.destage_max_in_flight;
  j["destage_bandwidth"] = FormatBytes(cfg.destage_bandwidth);
  j["destage_max_bytes"] = FormatBytes(cfg.destage_max_bytes);
  j["destage_flush"] = cfg.destage_flush;
  j["idle_destage_age_ms"] =
      static_cast<double>(cfg.idle_destage_age) / static_cast<double>(kMilli);
  j["idle_quiet_ms"] = static_cast<double>(cfg.idle_quiet) / static_cast<double>(kMilli);
  if (c.capacity_bytes != 0) j["capacity"] = FormatBytes(c.capacity_bytes);
  return j;
}

}  // namespace tierlab
