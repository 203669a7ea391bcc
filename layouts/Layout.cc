#include "layouts/Layout.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

#include "layouts/JsonFields.h"

namespace tierlab {
namespace {

const std::vector<std::string> kCombineNames = {"stripe", "mirror", "linear"};

Combine ParseCombine(const std::string& s) {
  if (s == "mirror") return Combine::kMirror;
  if (s == "linear") return Combine::kLinear;
  return Combine::kStripe;
}

// Custom model fields a tier may override on its preset ("model": {...}).
void ApplyModelOverrides(JsonFields& f, DevicePreset& p) {
  f.OnlyKeys({"type", "read_iops_4k", "write_iops_4k", "seq_read_mbps", "seq_write_mbps",
              "read_latency_us", "write_latency_us", "service_units", "endurance_dwpd", "rpm",
              "avg_seek_ms", "track_to_track_ms", "max_transfer_mbps", "min_transfer_mbps"});
  std::vector<std::string> types = {"ram", "optane", "nvme", "ssd", "hdd"};
  if (f.Has("type")) {
    auto t = ParseDeviceType(f.Choice("type", "nvme", types));
    if (t.ok()) p.type = *t;
  }
  p.read_iops_4k = f.Number("read_iops_4k", p.read_iops_4k, 1, 1e9);
  p.write_iops_4k = f.Number("write_iops_4k", p.write_iops_4k, 1, 1e9);
  p.seq_read_mbps = f.Number("seq_read_mbps", p.seq_read_mbps, 1, 1e6);
  p.seq_write_mbps = f.Number("seq_write_mbps", p.seq_write_mbps, 1, 1e6);
  p.read_latency = static_cast<Nanos>(
      f.Number("read_latency_us", static_cast<double>(p.read_latency) / 1e3, 0.01, 1e6) * 1e3);
  p.write_latency = static_cast<Nanos>(
      f.Number("write_latency_us", static_cast<double>(p.write_latency) / 1e3, 0.01, 1e6) * 1e3);
  p.service_units = static_cast<std::uint32_t>(f.Int("service_units", p.service_units, 1, 65536));
  p.endurance_dwpd = f.Number("endurance_dwpd", p.endurance_dwpd, 0, 1e4);
  p.rpm = f.Number("rpm", p.rpm, 0, 1e5);
  const double seek = f.Number("avg_seek_ms", p.avg_seek_read_ms, 0, 1e3);
  if (f.Has("avg_seek_ms")) p.avg_seek_read_ms = p.avg_seek_write_ms = seek;
  const double ttt = f.Number("track_to_track_ms", p.track_to_track_read_ms, 0, 1e3);
  if (f.Has("track_to_track_ms")) p.track_to_track_read_ms = p.track_to_track_write_ms = ttt;
  p.max_transfer_mbps = f.Number("max_transfer_mbps", p.max_transfer_mbps, 0, 1e6);
  p.min_transfer_mbps = f.Number("min_transfer_mbps", p.min_transfer_mbps, 0, 1e6);
}

Expected<TierSpec> ParseTier(const nlohmann::json& j, const std::string& source,
                             const std::string& path) {
  JsonFields f(j, source, path);
  f.OnlyKeys({"name", "preset", "count", "combine", "chunk", "capacity", "paths", "model"});
  TierSpec t;
  t.name = f.String("name", "");
  const std::string preset = f.String("preset", "");
  if (f.ok() && preset.empty()) f.Fail("preset", "missing; known: " + KnownPresetList());
  if (f.ok()) {
    auto p = FindPreset(preset);
    if (!p.ok()) {
      f.Fail("preset", "unknown \"" + preset + "\"; known: " + KnownPresetList());
    } else {
      t.preset = *p;
    }
  }
  t.count = static_cast<std::uint32_t>(f.Int("count", 1, 1, 1024));
  t.combine = ParseCombine(f.Choice("combine", "stripe", kCombineNames));
  t.chunk = f.Bytes("chunk", 256 * 1024);
  if (f.ok() && (t.chunk == 0 || t.chunk % 4096 != 0)) {
    f.Fail("chunk", "must be a non-zero multiple of 4k, got " + std::to_string(t.chunk));
  }
  t.capacity = f.Bytes("capacity", 0);
  if (f.ok() && f.Has("capacity") && t.capacity < 1024 * 1024) {
    f.Fail("capacity", "must be at least 1m, got " + std::to_string(t.capacity));
  }
  t.paths = f.Strings("paths");
  if (f.ok() && !t.paths.empty() && t.paths.size() != t.count) {
    f.Fail("paths", "has " + std::to_string(t.paths.size()) + " entries for count " +
                        std::to_string(t.count) + "; give one path per device");
  }
  if (f.ok() && f.Has("model")) {
    t.model = j.at("model");
    JsonFields m(t.model, source, path + ".model");
    ApplyModelOverrides(m, t.preset);
    if (!m.ok()) return m.error();
  }
  if (!f.ok()) return f.error();
  return t;
}

}  // namespace

std::string_view ToString(Combine c) {
  switch (c) {
    case Combine::kStripe: return "stripe";
    case Combine::kMirror: return "mirror";
    case Combine::kLinear: return "linear";
  }
  return "stripe";
}

Expected<LayoutSpec> ParseLayoutJson(const nlohmann::json& j, std::string_view source) {
  const std::string src(source);
  JsonFields f(j, src, "");
  f.OnlyKeys({"name", "size", "tiers", "cache", "tiering", "block_cache", "description"});
  LayoutSpec l;
  l.source = src;
  l.name = f.String("name", src);
  l.size = f.Bytes("size", 0);
  if (!f.ok()) return f.error();
  if (!j.contains("tiers") || !j.at("tiers").is_array() || j.at("tiers").empty()) {
    return MakeError(src + ": tiers: must be a non-empty array of tiers");
  }
  const auto& tiers = j.at("tiers");
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    auto t = ParseTier(tiers[i], src, "tiers[" + std::to_string(i) + "]");
    if (!t.ok()) return t.error();
    if (t->name.empty()) t->name = "tier" + std::to_string(i);
    for (const auto& other : l.tiers) {
      if (other.name == t->name) {
        return MakeError(src + ": tiers[" + std::to_string(i) + "].name: duplicate \"" + t->name +
                         "\"");
      }
    }
    l.tiers.push_back(std::move(t.value()));
  }
  if (j.contains("cache") && !j.at("cache").is_null()) l.cache = j.at("cache");
  if (j.contains("tiering") && !j.at("tiering").is_null()) l.tiering = j.at("tiering");
  if (j.contains("block_cache") && !j.at("block_cache").is_null())
    l.block_cache = j.at("block_cache");
  return l;
}

nlohmann::json LayoutToJson(const LayoutSpec& l) {
  nlohmann::json j;
  j["name"] = l.name;
  if (l.size != 0) j["size"] = FormatBytes(l.size);
  j["tiers"] = nlohmann::json::array();
  for (const auto& t : l.tiers) {
    nlohmann::json tj;
    tj["name"] = t.name;
    tj["preset"] = std::string(t.preset.name);
    tj["count"] = t.count;
    tj["combine"] = std::string(ToString(t.combine));
    tj["chunk"] = FormatBytes(t.chunk);
    if (t.capacity != 0) tj["capacity"] = FormatBytes(t.capacity);
    if (!t.paths.empty()) tj["paths"] = t.paths;
    if (!t.model.is_null()) tj["model"] = t.model;
    j["tiers"].push_back(tj);
  }
  if (!l.cache.is_null()) j["cache"] = l.cache;
  if (!l.tiering.is_null()) j["tiering"] = l.tiering;
  if (!l.block_cache.is_null()) j["block_cache"] = l.block_cache;
  return j;
}

namespace {

struct ShorthandType {
  const char* token;
  const char* preset;
};
// Longest tokens first so "hdd10k" wins over "hdd".
constexpr ShorthandType kShorthandTypes[] = {
    {"optane", "optane-p4800x"}, {"nvme", "nvme-pm1725"}, {"ssd", "ssd-hk4e"},
    {"hdd10k", "hdd-10k"},       {"hdd", "hdd-7200"},     {"ram", "ram"},
};

// Per-device capacities of shorthand layouts: scaled down from the presets so
// that a simulated cell's metadata stays small (a 16 GiB cache of 4 KiB lines
// is 4 M lines); the ratios of a real S2D node are kept roughly (cache about
// 3% of capacity with HDDs).
constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint64_t kCacheDeviceBytes = 8 * kGiB;
constexpr std::uint64_t kFlashCapacityBytes = 64 * kGiB;
constexpr std::uint64_t kHddCapacityBytes = 128 * kGiB;

struct Part {
  std::string token;
  DevicePreset preset;
  std::uint32_t count;
};

}  // namespace

bool LooksLikeShorthand(std::string_view name) {
  return !name.empty() && name.find('.') == std::string_view::npos && name.find('/') != 0 &&
         std::isalpha(static_cast<unsigned char>(name[0]));
}

Expected<nlohmann::json> ExpandShorthand(std::string_view name) {
  const std::string full(name);
  const bool tiered = full.find('/') != std::string::npos;
  const char sep = tiered ? '/' : '+';
  if (tiered && full.find('+') != std::string::npos) {
    return MakeError("layout \"" + full + "\": mix of '+' (cache) and '/' (tiers); use one");
  }
  std::vector<Part> parts;
  std::stringstream ss(full);
  std::string tok;
  while (std::getline(ss, tok, sep)) {
    std::size_t digits = tok.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(tok[digits - 1]))) --digits;
    const std::string type = tok.substr(0, digits);
    const std::string count = tok.substr(digits);
    const ShorthandType* found = nullptr;
    for (const auto& t : kShorthandTypes) {
      if (type == t.token) found = &t;
    }
    if (found == nullptr || count.empty() || count.size() > 4 || std::stoul(count) == 0) {
      return MakeError("layout \"" + full + "\": bad part \"" + tok +
                       "\"; expected TYPE COUNT such as nvme2, with TYPE one of optane, nvme, ssd, "
                       "hdd, hdd10k, ram");
    }
    parts.push_back(
        {type, *FindPreset(found->preset), static_cast<std::uint32_t>(std::stoul(count))});
  }
  if (parts.empty()) return MakeError("layout \"" + full + "\": empty");
  // Fastest first, as S2D binds the fastest media as cache.
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return SpeedRank(a.preset.type) > SpeedRank(b.preset.type);
  });
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].preset.type == parts[i - 1].preset.type) {
      return MakeError("layout \"" + full + "\": device type " +
                       std::string(ToString(parts[i].preset.type)) + " appears twice");
    }
  }
  const bool has_cache = !tiered && parts.size() >= 2;
  nlohmann::json j;
  j["name"] = full;
  j["tiers"] = nlohmann::json::array();
  bool capacity_has_hdd = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    const bool is_cache = has_cache && i == 0;
    nlohmann::json t;
    t["name"] = is_cache ? "cache" : std::string(ToString(p.preset.type));
    t["preset"] = std::string(p.preset.name);
    t["count"] = p.count;
    t["combine"] = "stripe";
    t["chunk"] = "256k";
    const std::uint64_t cap = is_cache            ? kCacheDeviceBytes
                              : p.preset.is_hdd() ? kHddCapacityBytes
                                                  : kFlashCapacityBytes;
    t["capacity"] = FormatBytes(std::min(cap, p.preset.capacity_bytes));
    if (!is_cache && p.preset.is_hdd()) capacity_has_hdd = true;
    j["tiers"].push_back(t);
  }
  if (has_cache) {
    // S2D: with HDD capacity the cache serves reads and writes; with
    // all-flash capacity it caches writes only.
    nlohmann::json c;
    c["tier"] = "cache";
    c["read"] = capacity_has_hdd;
    c["write"] = capacity_has_hdd ? "writeback" : "writeonly";
    c["policy"] = "lru";
    c["promotion"] = "always";
    c["line_size"] = "4k";
    c["high_watermark"] = 50;
    c["low_watermark"] = 45;
    c["destage_order"] = "lba";
    j["cache"] = c;
  }
  return j;
}

Expected<LayoutSpec> LoadLayout(std::string_view name_or_path) {
  const std::string s(name_or_path);
  std::error_code ec;
  if (std::filesystem::is_directory(s, ec)) {
    return MakeError(s + ": is a directory, not a layout file (or a shorthand such as nvme2+hdd4)");
  }
  const bool is_file = std::filesystem::is_regular_file(s, ec);
  if (is_file || s.ends_with(".json")) {
    auto j = ReadJsonFile(s);
    if (!j.ok()) return j.error();
    return ParseLayoutJson(*j, std::filesystem::path(s).filename().string());
  }
  if (!LooksLikeShorthand(s)) {
    return MakeError("layout \"" + s +
                     "\": not a file and not a shorthand name such as nvme2+hdd4");
  }
  auto j = ExpandShorthand(s);
  if (!j.ok()) return j.error();
  return ParseLayoutJson(*j, s);
}

nlohmann::json DefaultLayoutJson() {
  return *ExpandShorthand("nvme2+hdd4");
}

}  // namespace tierlab
