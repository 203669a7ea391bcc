#pragma once
// A layout: the devices of a volume, grouped in tiers, and how they stack.
//
//   {
//     "name": "nvme2+hdd4",
//     "size": "256g",                       // volume size (optional: the capacity stack's)
//     "tiers": [
//       {"name": "cache", "preset": "nvme-pm1725", "count": 2, "combine": "stripe",
//        "chunk": "64k", "capacity": "8g", "paths": ["/dev/nvme0n1", "..."]},
//       {"name": "capacity", "preset": "hdd-7200", "count": 4, "combine": "stripe"}
//     ],
//     "cache": {"tier": "cache", "read": true, "write": "writeback", "policy": "lru",
//               "promotion": "always", "line_size": "4k", "high_watermark": 50,
//               "low_watermark": 45, "destage_order": "lba"},
//     "tiering": {"extent_size": "...", ...},     // several capacity tiers: a tier target
//     "block_cache": {"size": "1g", "policy": "lru", "lookup_ns": 300, ...},
//     "reduction": {"dedupe": true, "compression": "lz4", "where": "inline", ...},
//     "cpu": {"per_io_ns": 780, ...} or "file:cpu.json",  // the host's CPU (simulation)
//     "cluster": {"nodes": 4, "network": {...}, "protection": {...}, ...}
//   }
//
// Roles: the tier named by cache.tier (default the first) holds the cache
// devices; every other tier, in order fast -> slow, is capacity. One capacity
// tier is the cache's origin; several are joined by the tier target
// ("tiering"). Without "cache" every tier is capacity.
//
// The cache, tiering and block_cache sections are read into their typed
// specs (CacheSpec.h, TieringSpec.h, BlockCacheSpec.h) when the layout is
// read, so a bad key fails before anything is built. Every key, its default
// and unit: the field tables (LayoutFields(), TierFields(), ModelFields())
// and docs/CONFIG.md, which a test compares with them.
//
// Errors name the file and the field path and list valid choices:
//   "x.json: tiers[0].preset: unknown "optane"; known: optane-p4800x, ..."

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layouts/BlockCacheSpec.h"
#include "layouts/CacheSpec.h"
#include "layouts/ClusterSpec.h"
#include "layouts/FieldTable.h"
#include "layouts/HostCpuSpec.h"
#include "layouts/JsonParse.h"  // ReadJsonFile
#include "layouts/ReductionSpec.h"
#include "layouts/TieringSpec.h"
#include "tiering/core/Expected.h"
#include "tiering/devices/DevicePreset.h"
#include "tiering/devices/FileDevice.h"  // FileEngine

namespace tierlab {

// How a tier's devices make one device: RAID0 (dm-stripe), RAID1
// (dm-mirror), concatenation (dm-linear), or parity RAID with 1, 2 or 3
// parity chunks per stripe (ParityTarget: RAID-5, RAID-6, triple parity).
enum class Combine : std::uint8_t { kStripe, kMirror, kLinear, kRaid5, kRaid6, kRaidTp };
std::string_view ToString(Combine c);
// Parity chunks per stripe of a parity combine, 0 for the others.
int ParityChunks(Combine c);

// A capacity tier written as a log (LogStructuredTarget): the tier's
// combined devices hold segments, NVRAM devices of their own hold the
// write-acknowledgement log. docs/CONFIG.md, "Log-structured tiers".
struct TierLogSpec {
  std::uint64_t segment_bytes = 4608 * 1024;
  double usable = 0.8;
  double cleaner_start = 0.95;
  std::string nvram_preset = "ram";
  DevicePreset nvram;  // the catalog entry of nvram_preset
  std::uint64_t nvram_capacity = 4ull << 30;
  bool nvram_mirror = true;  // two NVRAM devices as a mirror (a standby controller's copy)
  // Real mode: the NVRAM devices' files or block devices, one per device
  // (none: sparse files beside the tier's temp files, or in a volume's
  // directory).
  std::vector<std::string> nvram_paths;
};

struct TierSpec {
  std::string name;
  DevicePreset preset;  // the catalog entry, with custom overrides applied
  std::uint32_t count = 1;
  Combine combine = Combine::kStripe;
  std::uint64_t chunk = 256 * 1024;       // stripe or parity RAID chunk
  std::uint64_t capacity = 0;             // per device; 0 = the preset's
  std::vector<std::string> paths;         // real files or block devices, one per device (optional)
  FileEngine engine = FileEngine::kAuto;  // real mode: the kernel interface of the tier's files
  // Latency added in front of each device (dm-delay; DelayTarget), in both
  // modes: a slow tier made of fast files, simulated as it runs.
  Nanos read_delay = 0;
  Nanos write_delay = 0;
  // A throttle in front of each device (RateLimitTarget), in both modes:
  // requests and bytes a second per direction, 0 = none.
  double read_iops_limit = 0;
  double write_iops_limit = 0;
  std::uint64_t read_bw_limit = 0;
  std::uint64_t write_bw_limit = 0;
  nlohmann::json model;            // custom preset field overrides, as given
  std::optional<TierLogSpec> log;  // none = the combined devices are the tier
};

struct LayoutSpec {
  std::string name;
  std::uint64_t size = 0;  // 0 = the capacity stack's size
  std::vector<TierSpec> tiers;
  std::optional<CacheSpec> cache;             // none = no cache target
  std::optional<TieringSpec> tiering;         // none = defaults (used only with 2+ capacity tiers)
  std::optional<BlockCacheSpec> block_cache;  // none = no RAM block cache
  std::optional<ReductionSpec> reduction;     // none = no dedup or compression
  std::optional<HostCpuSpec> cpu;             // none = the host's CPU costs nothing
  // The tiers and sections above are one node of a cluster (ClusterSpec.h).
  std::optional<ClusterSpec> cluster;  // none = one node, the volume its stack
  std::string source;                  // file name or shorthand, for error messages
  // The cache, tiering and block_cache sections exactly as written, for
  // LayoutAsWrittenJson only: nothing is built from them.
  nlohmann::json as_written;
};

// The tables of the layout's top-level keys, of one entry of "tiers" and of
// a tier's "model" overrides (FieldTable.h).
std::span<const Field<LayoutSpec>> LayoutFields();
std::span<const Field<TierSpec>> TierFields();
std::span<const Field<DevicePreset>> ModelFields();
// The write cliff's figures hang together: steady figures only with a
// cliff, both of them with one, neither above the rated figure, none on a
// disk. Fails `f` (a "model" object) naming the field.
void CheckWriteCliff(const DevicePreset& p, JsonFields& f);
// A tier's "log" section and its "nvram" object.
std::span<const Field<TierLogSpec>> TierLogFields();
std::span<const Field<TierLogSpec>> TierLogNvramFields();

// Parses a layout object and its sections; `source` prefixes errors. Exit
// code 2 on error.
Expected<LayoutSpec> ParseLayoutJson(const nlohmann::json& j, std::string_view source);

// In a cluster layout every device path (tiers[].paths, a log's NVRAM
// paths) holds {node}, which each node's stack replaces with its number:
// "/srv/n{node}-cache.img" is /srv/n0-cache.img on node 0.
inline constexpr std::string_view kNodePlaceholder = "{node}";
std::string PathForNode(std::string_view path, std::uint32_t node);

// Device i of a tier, as the stack names it and a failure names it:
// "ssd1".
inline std::string DeviceName(const TierSpec& t, std::uint32_t i) {
  return t.name + std::to_string(i);
}
// The effective layout: every key of every section, defaults filled in
// (`tierlab layout show`); ParseLayoutJson(LayoutToJson(l)) reproduces it.
nlohmann::json LayoutToJson(const LayoutSpec& l);
// The layout as written: name, size and tiers with their defaults, the
// sections as given. A matrix cell's id is a hash of it, so the ids of
// earlier results files stay what they were (MatrixResults.h, --resume).
nlohmann::json LayoutAsWrittenJson(const LayoutSpec& l);

// Shorthand names: "nvme2+hdd4", "nvme4+ssd4", "nvme2+ssd4+hdd4", "ssd2+hdd4",
// "ssd4/hdd4" (tiered, no cache), expanded with Storage Spaces Direct's
// defaults (docs/CONFIG.md, "Shorthand layouts"). Returns the layout JSON, or an error naming the
// token that is wrong.
Expected<nlohmann::json> ExpandShorthand(std::string_view name);
bool LooksLikeShorthand(std::string_view name);

// A file path (ends in .json or exists) or a shorthand name.
Expected<LayoutSpec> LoadLayout(std::string_view name_or_path);

// The layout `tierlab run` uses with no --layout.
nlohmann::json DefaultLayoutJson();

}  // namespace tierlab
