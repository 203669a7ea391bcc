#include "layouts/BlockCacheSpec.h"

#include "layouts/JsonFields.h"
#include "policies/PolicyRegistry.h"

namespace tierlab {

Expected<BlockCacheConfig> ParseBlockCacheJson(const nlohmann::json& j, std::string_view source) {
  JsonFields f(j, std::string(source), "block_cache");
  f.OnlyKeys({"size", "line_size", "policy", "lookup_ns", "insert_ns", "locks"});
  BlockCacheConfig c;
  c.capacity_bytes = f.Bytes("size", c.capacity_bytes);
  c.line_size = f.Bytes("line_size", c.line_size);
  c.replacement = f.Choice("policy", c.replacement, ReplacementPolicyNames());
  c.lookup_ns = f.Int("lookup_ns", c.lookup_ns, 0, 1'000'000'000);
  c.insert_ns = f.Int("insert_ns", c.insert_ns, 0, 1'000'000'000);
  c.locks = static_cast<std::uint32_t>(f.Int("locks", c.locks, 1, 1 << 16));
  if (!f.ok()) return f.error();
  const std::string err = c.Validate();
  if (!err.empty()) return MakeError(std::string(source) + ": block_cache." + err);
  return c;
}

nlohmann::json BlockCacheToJson(const BlockCacheConfig& c) {
  return {{"size", FormatBytes(c.capacity_bytes)},
          {"line_size", FormatBytes(c.line_size)},
          {"policy", c.replacement},
          {"lookup_ns", c.lookup_ns},
          {"insert_ns", c.insert_ns},
          {"locks", c.locks}};
}

}  // namespace tierlab
