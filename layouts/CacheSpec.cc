#include "layouts/CacheSpec.h"

#include "cachedev/SlotPlacement.h"
#include "layouts/JsonFields.h"
#include "layouts/JsonParse.h"
#include "policies/PolicyRegistry.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

using F = Field<CacheSpec>;
using json = nlohmann::json;

double Millis(Nanos n) {
  return static_cast<double>(n) / static_cast<double>(kMilli);
}
Nanos FromMillis(double ms) {
  return static_cast<Nanos>(ms * static_cast<double>(kMilli));
}

const F kCacheFields[] = {
    {"tier", "string", "", "the tier whose devices hold the cache",
     [](JsonFields& f, std::string_view k, CacheSpec& s) { s.tier = f.String(k, s.tier); },
     [](const CacheSpec& s) -> json { return s.tier; }, false, "the first tier"},
    {"read", "bool, \"on\"/\"off\", or \"hdd\"", "",
     "insert lines on read misses (off: reads are served from resident lines only; hdd: only "
     "lines the capacity tiers hold on HDDs, as Storage Spaces Direct caches reads for HDDs but "
     "not for SSDs)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       const json* v = f.Raw(k);
       if (v != nullptr && v->is_string() && v->get<std::string>() == "hdd") {
         s.config.read = true;
         s.read_hdd = true;
         return;
       }
       if (v != nullptr && !v->is_boolean() && !(v->is_string() && (*v == "on" || *v == "off"))) {
         f.Fail(k, "must be true/false, \"on\"/\"off\" or \"hdd\", got " + DescribeJson(*v));
         return;
       }
       s.config.read = f.Switch(k, s.config.read);
       s.read_hdd = false;
     },
     [](const CacheSpec& s) -> json {
       if (s.read_hdd && s.config.read) return "hdd";
       return s.config.read;
     }},
    {"write",
     "off | passthrough | writethrough | writeback | writearound | writeonly | "
     "writeinvalidate (or pt, wt, wb, wa, wo, wi)",
     "", "what happens to writes (docs/CACHE.md)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       if (!f.Has(k)) return;
       const std::string write = f.String(k, "");
       if (!f.ok()) return;
       if (auto m = ParseWriteMode(write)) {
         s.config.write = *m;
       } else {
         f.Fail(k, "unknown " + QuotedText(write, '"') + "; known: off, " +
                       JoinNames(WriteModeNames()));
       }
     },
     [](const CacheSpec& s) -> json {
       for (const std::string& n : WriteModeNames()) {  // the long name reads better in a report
         if (ParseWriteMode(n) == s.config.write) return n;
       }
       return std::string(ToString(s.config.write));
     }},
    {"policy", "lru | fifo | clock | 2q | arc | smq | s3fifo[:PARAMS] | lfu", "",
     "replacement policy (docs/CONFIG.md, \"Policies\")",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.policy = f.String(k, s.config.policy);
       if (!f.ok() || !f.Has(k)) return;
       if (auto spec = ParseReplacementSpec(s.config.policy); !spec.ok()) {
         f.Fail(k, spec.error().message);
       }
     },
     [](const CacheSpec& s) -> json { return s.config.policy; }},
    {"promotion", "always | nhit:N[:WINDOW] | seqcutoff[:BYTES] | pinned:START-END[,...]", "",
     "admission of lines into the cache (docs/CONFIG.md, \"Policies\")",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.promotion = f.String(k, s.config.promotion);
     },
     [](const CacheSpec& s) -> json { return s.config.promotion; }},
    {"promotion_concurrency", "integer 0..1048576", "lines",
     "promotion writes in flight at once; a miss beyond it is not promoted (0 = unlimited)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.promotion_concurrency =
           static_cast<std::uint32_t>(f.Int(k, s.config.promotion_concurrency, 0, 1 << 20));
     },
     [](const CacheSpec& s) -> json { return s.config.promotion_concurrency; }},
    {"line_size", "bytes, a power of two 4k..1m; 0 = auto", "bytes", "cache line size",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.line_size = f.Bytes(k, s.config.line_size);
     },
     [](const CacheSpec& s) -> json { return FormatBytes(s.config.line_size); }},
    {"high_watermark", "number 0..100", "%",
     "write-back destage starts when dirty lines reach this share of the cache",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.high_watermark = f.Number(k, s.config.high_watermark, 0, 100);
     },
     [](const CacheSpec& s) -> json { return s.config.high_watermark; }},
    {"low_watermark", "number 0..100, at most high_watermark", "%", "destage stops here",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.low_watermark = f.Number(k, s.config.low_watermark, 0, 100);
     },
     [](const CacheSpec& s) -> json { return s.config.low_watermark; }},
    {"destage_order", "fifo | lba", "", "order dirty lines are destaged in",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.destage_order = f.Choice(k, s.config.destage_order, DestageOrderNames());
     },
     [](const CacheSpec& s) -> json { return s.config.destage_order; }},
    {"destage_concurrency", "integer 1..4096", "operations", "destage writes in flight at once",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.destage_concurrency =
           static_cast<std::uint32_t>(f.Int(k, s.config.destage_concurrency, 1, 4096));
     },
     [](const CacheSpec& s) -> json { return s.config.destage_concurrency; }},
    {"destage_bandwidth", "bytes", "bytes/s", "cap on destage traffic (0 = none)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.destage_bandwidth = f.Bytes(k, s.config.destage_bandwidth);
     },
     [](const CacheSpec& s) -> json { return FormatBytes(s.config.destage_bandwidth); }},
    {"destage_max_bytes", "bytes", "bytes", "largest coalesced write to the origin",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.destage_max_bytes = f.Bytes(k, s.config.destage_max_bytes);
     },
     [](const CacheSpec& s) -> json { return FormatBytes(s.config.destage_max_bytes); }},
    {"destage_flush", "bool", "",
     "flush the origin before destaged lines turn clean (off only to measure its cost)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.destage_flush = f.Bool(k, s.config.destage_flush);
     },
     [](const CacheSpec& s) -> json { return s.config.destage_flush; }},
    {"idle_destage_age_ms", "number 0..1e9", "ms",
     "when idle, destage lines dirty for longer than this (0 = no idle destage)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.idle_destage_age =
           FromMillis(f.Number(k, Millis(s.config.idle_destage_age), 0, 1e9));
     },
     [](const CacheSpec& s) -> json { return Millis(s.config.idle_destage_age); }},
    {"idle_quiet_ms", "number 0..1e9", "ms", "idle means no foreground request for this long",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.idle_quiet = FromMillis(f.Number(k, Millis(s.config.idle_quiet), 0, 1e9));
     },
     [](const CacheSpec& s) -> json { return Millis(s.config.idle_quiet); }},
    {"capacity", "bytes", "bytes", "cache size (0 = all the cache devices hold)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) { s.capacity = f.Bytes(k, s.capacity); },
     [](const CacheSpec& s) -> json { return FormatBytes(s.capacity); }, true},
    {"placement_run", "0, or a power of two 1..65536", "lines",
     "consecutive cache lines placed on one cache device before the next (0 = auto: 256 KiB)",
     [](JsonFields& f, std::string_view k, CacheSpec& s) {
       s.config.placement_run =
           static_cast<std::uint64_t>(f.Int(k, static_cast<std::int64_t>(s.config.placement_run), 0,
                                            static_cast<std::int64_t>(SlotPlacement::kMaxRun)));
     },
     [](const CacheSpec& s) -> json { return s.config.placement_run; }, true},
};

}  // namespace

CacheSpec::CacheSpec() {
  config.line_size = 4096;
  config.destage_order = "lba";
}

std::span<const Field<CacheSpec>> CacheFields() {
  return kCacheFields;
}

Expected<CacheSpec> ParseCacheJson(const nlohmann::json& j, std::string_view source,
                                   std::string_view default_tier) {
  JsonFields f(j, std::string(source), "cache");
  CacheSpec c;
  c.tier = std::string(default_tier);
  ReadFields(CacheFields(), f, c);
  if (!f.ok()) return f.error();
  CacheConfig& cfg = c.config;
  if (auto spec = ParseAdmissionSpec(cfg.promotion); !spec.ok()) {
    f.Fail("promotion", spec.error().message);
    return f.error();
  }
  const std::string err = cfg.Validate();
  if (!err.empty()) return MakeError(std::string(source) + ": cache." + err);
  return c;
}

nlohmann::json CacheSpecToJson(const CacheSpec& c) {
  return WriteFields(CacheFields(), c);
}

}  // namespace tierlab
