#include "layouts/BlockCacheSpec.h"

#include "layouts/JsonFields.h"
#include "policies/PolicyRegistry.h"

namespace tierlab {
namespace {

using F = Field<BlockCacheSpec>;
using json = nlohmann::json;

const F kBlockCacheFields[] = {
    {"size", "bytes", "bytes", "RAM the block cache holds",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.size = f.Bytes(k, s.config.size);
     },
     [](const BlockCacheSpec& s) -> json { return FormatBytes(s.config.size); }},
    {"line_size", "bytes, a power of two >= 512", "bytes", "cache granularity",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.line_size = f.Bytes(k, s.config.line_size);
     },
     [](const BlockCacheSpec& s) -> json { return FormatBytes(s.config.line_size); }},
    {"policy", "lru | fifo | clock | 2q | arc | smq | s3fifo[:PARAMS] | lfu", "",
     "replacement policy (docs/CONFIG.md, \"Policies\")",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.policy = f.String(k, s.config.policy);
       if (!f.ok() || !f.Has(k)) return;
       if (auto spec = ParseReplacementSpec(s.config.policy); !spec.ok()) {
         f.Fail(k, spec.error().message);
       }
     },
     [](const BlockCacheSpec& s) -> json { return s.config.policy; }},
    {"lookup_ns", "integer 0..1e9", "ns", "modelled CPU per line looked up (simulation only)",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.lookup_ns = f.Int(k, s.config.lookup_ns, 0, 1'000'000'000);
     },
     [](const BlockCacheSpec& s) -> json { return s.config.lookup_ns; }},
    {"insert_ns", "integer 0..1e9", "ns", "modelled CPU per line inserted (simulation only)",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.insert_ns = f.Int(k, s.config.insert_ns, 0, 1'000'000'000);
     },
     [](const BlockCacheSpec& s) -> json { return s.config.insert_ns; }},
    {"locks", "integer 1..65536", "", "lock stripes requests serialise on",
     [](JsonFields& f, std::string_view k, BlockCacheSpec& s) {
       s.config.locks = static_cast<std::uint32_t>(f.Int(k, s.config.locks, 1, 1 << 16));
     },
     [](const BlockCacheSpec& s) -> json { return s.config.locks; }},
};

}  // namespace

std::span<const Field<BlockCacheSpec>> BlockCacheFields() {
  return kBlockCacheFields;
}

Expected<BlockCacheSpec> ParseBlockCacheJson(const nlohmann::json& j, std::string_view source) {
  JsonFields f(j, std::string(source), "block_cache");
  BlockCacheSpec b;
  ReadFields(BlockCacheFields(), f, b);
  if (!f.ok()) return f.error();
  const std::string err = b.config.Validate();
  if (!err.empty()) return MakeError(std::string(source) + ": block_cache." + err);
  return b;
}

nlohmann::json BlockCacheToJson(const BlockCacheSpec& b) {
  return WriteFields(BlockCacheFields(), b);
}

}  // namespace tierlab
