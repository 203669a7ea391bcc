#include "layouts/ReductionSpec.h"

#include "layouts/JsonFields.h"

namespace tierlab {
namespace {

using F = Field<ReductionSpec>;
using json = nlohmann::json;

CompressionKind CompressionNamed(const std::string& s) {
  if (s == "lz4") return CompressionKind::kLz4;
  if (s == "zstd") return CompressionKind::kZstd;
  return CompressionKind::kNone;
}

const F kReductionFields[] = {
    {"dedupe", "boolean", "", "deduplicate 4 KiB blocks (XXH3 hint, verified by a read)",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.dedupe = f.Bool(k, s.config.dedupe);
     },
     [](const ReductionSpec& s) -> json { return s.config.dedupe; }},
    {"compression", "none | lz4 | zstd", "", "compressor of 4 KiB blocks",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.compression = CompressionNamed(
           f.Choice(k, std::string(ToString(s.config.compression)), {"none", "lz4", "zstd"}));
     },
     [](const ReductionSpec& s) -> json { return std::string(ToString(s.config.compression)); }},
    {"zstd_level", "integer 1..19", "", "zstd's level",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.zstd_level = static_cast<int>(f.Int(k, s.config.zstd_level, 1, 19));
     },
     [](const ReductionSpec& s) -> json { return s.config.zstd_level; }},
    {"keep_compressed_max", "bytes 1..4095", "bytes",
     "a block is stored compressed only if it compresses to at most this (vSAN: 2 KiB)",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.keep_compressed_max =
           static_cast<std::uint32_t>(f.Bytes(k, s.config.keep_compressed_max));
       if (f.ok() && (s.config.keep_compressed_max == 0 || s.config.keep_compressed_max >= 4096)) {
         f.Fail(k, "must be between 1 and 4095 bytes");
       }
     },
     [](const ReductionSpec& s) -> json { return FormatBytes(s.config.keep_compressed_max); }},
    {"where", "inline | destage", "",
     "inline: above the cache, before the acknowledgement; destage: below it, as it destages",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.where = f.Choice(k, "inline", {"inline", "destage"}) == "destage"
                     ? ReductionPlace::kDestage
                     : ReductionPlace::kInline;
     },
     [](const ReductionSpec& s) -> json {
       return s.where == ReductionPlace::kDestage ? "destage" : "inline";
     }},
    {"logical_size", "bytes", "bytes",
     "the volume's size seen above reduction (0: the physical stack's; larger overcommits)",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.logical_bytes = f.Bytes(k, s.config.logical_bytes);
     },
     [](const ReductionSpec& s) -> json { return FormatBytes(s.config.logical_bytes); }},
    {"cpu_threads", "integer 1..256", "", "modelled cores that hash and compress (simulation only)",
     [](JsonFields& f, std::string_view k, ReductionSpec& s) {
       s.config.cpu_threads = static_cast<std::uint32_t>(f.Int(k, s.config.cpu_threads, 1, 256));
     },
     [](const ReductionSpec& s) -> json { return s.config.cpu_threads; }},
};

}  // namespace

std::span<const Field<ReductionSpec>> ReductionFields() {
  return kReductionFields;
}

Expected<ReductionSpec> ParseReductionJson(const nlohmann::json& j, std::string_view source) {
  JsonFields f(j, std::string(source), "reduction");
  ReductionSpec r;
  ReadFields(ReductionFields(), f, r);
  if (!f.ok()) return f.error();
  return r;
}

nlohmann::json ReductionToJson(const ReductionSpec& r) {
  return WriteFields(ReductionFields(), r);
}

}  // namespace tierlab
