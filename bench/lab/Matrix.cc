#include "bench/lab/Matrix.h"

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "bench/workload/ProfileLoader.h"
#include "layouts/CacheSpec.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/SimEngine.h"

namespace tierlab {
namespace {

struct NamedLayout {
  std::string name;
  nlohmann::json json;  // LayoutToJson of the parsed layout, override applied
};

struct NamedProfile {
  std::string name;
  Profile profile;  // override applied
  std::optional<TraceProfile> trace;
};

// A value of a combination and where it came from (for errors).
struct Coord {
  std::string path;
  nlohmann::json value;
  std::string where;
};

struct Combo {
  std::size_t layout = 0;
  std::size_t profile = 0;
  std::vector<Coord> coords;  // axes in axis order, then include extras
};

// A relative file is looked up next to the matrix first, then from the
// current directory.
std::string ResolveFile(const MatrixSpec& m, const std::string& ref) {
  std::error_code ec;
  if (!m.base_dir.empty() && std::filesystem::path(ref).is_relative()) {
    const std::filesystem::path p = std::filesystem::path(m.base_dir) / ref;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return ref;
}

// What a trace cell's `profile` holds: only what labels and reports need.
Profile TraceCellProfile(const TraceProfile& t) {
  Profile p;
  p.name = t.name;
  p.iodepth = t.replay.iodepth;
  return p;
}

// A trace profile given inline, or as a JSON file holding one; nullopt when
// `ref` is a synthetic profile.
Expected<std::optional<NamedProfile>> LoadTraceProfileRef(const MatrixSpec& m,
                                                          const nlohmann::json& ref,
                                                          const std::string& where) {
  nlohmann::json j;
  std::string base_dir = m.base_dir;
  if (IsTraceProfileJson(ref)) {
    j = ref;
  } else if (ref.is_string() && ref.get<std::string>().ends_with(".json")) {
    const std::string file = ResolveFile(m, ref.get<std::string>());
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return std::optional<NamedProfile>();
    auto loaded = ReadJsonFile(file);
    if (!loaded.ok() || !IsTraceProfileJson(*loaded)) return std::optional<NamedProfile>();
    j = std::move(loaded.value());
    base_dir = std::filesystem::path(file).parent_path().string();
  } else {
    return std::optional<NamedProfile>();
  }
  auto t = ParseTraceProfileJson(j, where, base_dir);
  if (!t.ok()) return t.error();
  if (m.profile_override.is_object()) {
    // Only the keys a trace profile has; "runtime" and the like are for the
    // synthetic profiles of the same matrix.
    nlohmann::json patch = nlohmann::json::object();
    for (const auto& [k, v] : m.profile_override.items()) {
      for (std::string_view key : TraceProfileKeys()) {
        if (k == key) patch[k] = v;
      }
    }
    if (!patch.empty()) {
      auto patched = ApplyTraceProfilePatch(*t, patch, t->name, m.base_dir);
      if (!patched.ok()) {
        return MakeError(m.source + ": profile_override: " + patched.error().message);
      }
      t = std::move(patched.value());
    }
  }
  auto check = CheckTraceProfile(*t);
  if (!check.ok()) return MakeError(where + ": " + check.error().message, check.error().exit_code);
  return std::optional<NamedProfile>(NamedProfile{t->name, TraceCellProfile(*t), std::move(*t)});
}

Expected<NamedLayout> LoadLayoutRef(const MatrixSpec& m, const nlohmann::json& ref,
                                    const std::string& where) {
  Expected<LayoutSpec> l = MakeError("");
  if (ref.is_string()) {
    l = LoadLayout(ResolveFile(m, ref.get<std::string>()));
  } else {
    l = ParseLayoutJson(ref, where);
  }
  if (!l.ok()) {
    const std::string msg = l.error().message;
    // Errors from a named file already start with the file name.
    return MakeError(ref.is_string() ? where + ": " + msg : msg, l.error().exit_code);
  }
  nlohmann::json j = LayoutToJson(*l);
  if (m.layout_override.is_object()) {
    j.merge_patch(m.layout_override);
    auto re = ParseLayoutJson(j, l->name);
    if (!re.ok()) return MakeError(m.source + ": layout_override: " + re.error().message);
    j = LayoutToJson(*re);
  }
  return NamedLayout{l->name, std::move(j)};
}

Expected<std::vector<NamedProfile>> LoadProfileRef(const MatrixSpec& m, const nlohmann::json& ref,
                                                   const std::string& where) {
  auto trace = LoadTraceProfileRef(m, ref, where);
  if (!trace.ok()) return trace.error();
  if (trace->has_value()) return std::vector<NamedProfile>{std::move(**trace)};
  std::vector<Profile> ps;
  if (ref.is_string()) {
    auto loaded = LoadProfiles(ResolveFile(m, ref.get<std::string>()));
    if (!loaded.ok()) return MakeError(where + ": " + loaded.error().message);
    ps = std::move(loaded.value());
  } else {
    auto p = ParseProfileJson(ref, where);
    if (!p.ok()) return p.error();
    ps.push_back(std::move(p.value()));
  }
  std::vector<NamedProfile> out;
  for (Profile& p : ps) {
    if (m.profile_override.is_object()) {
      auto patched = ApplyProfilePatch(p, m.profile_override, p.name);
      if (!patched.ok()) {
        return MakeError(m.source + ": profile_override: " + patched.error().message);
      }
      p = std::move(patched.value());
    }
    out.push_back({p.name, std::move(p), std::nullopt});
  }
  return out;
}

bool ValueMatches(const nlohmann::json& a, const nlohmann::json& b) {
  return a == b || AxisValueText(a) == AxisValueText(b);
}

const Coord* FindCoord(const Combo& c, const std::string& path) {
  for (const Coord& x : c.coords) {
    if (x.path == path) return &x;
  }
  return nullptr;
}

bool IsMatrixKey(const MatrixSpec& m, const std::string& key) {
  if (key == "layout" || key == "profile") return true;
  for (const auto& a : m.axes) {
    if (a.path == key) return true;
  }
  return false;
}

// Does `c` match every matrix key of `entry`?
bool Matches(const MatrixSpec& m, const Combo& c, const nlohmann::json& entry,
             const std::vector<NamedLayout>& layouts, const std::vector<NamedProfile>& profiles) {
  for (const auto& [k, v] : entry.items()) {
    if (k == "layout") {
      if (!v.is_string() || layouts[c.layout].name != v.get<std::string>()) return false;
    } else if (k == "profile") {
      if (!v.is_string() || profiles[c.profile].name != v.get<std::string>()) return false;
    } else if (IsMatrixKey(m, k)) {
      const Coord* x = FindCoord(c, k);
      if (x == nullptr || !ValueMatches(x->value, v)) return false;
    }
  }
  return true;
}

std::size_t FindByName(const auto& list, const std::string& name) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].name == name) return i;
  }
  return list.size();
}

void SetCoord(Combo& c, Coord x) {
  for (Coord& y : c.coords) {
    if (y.path == x.path) {
      y = std::move(x);
      return;
    }
  }
  c.coords.push_back(std::move(x));
}

// Applies one override to the layout JSON and re-validates the whole layout
// (the parser and the cache section's parser).
Expected<void> PatchLayout(nlohmann::json& layout, const std::string& name, const Coord& x,
                           const std::string& field) {
  // Switching a cache field must not silently turn a cache-less layout into
  // a cached one (the first tier would become the cache).
  if (field.starts_with("cache.") && (!layout.contains("cache") || layout.at("cache").is_null())) {
    return MakeError(x.where + ": " + name +
                     ": layout has no cache section to change; add \"cache\" to the layout or "
                     "exclude it");
  }
  auto set = SetJsonPath(layout, field, x.value);
  if (!set.ok()) return MakeError(x.where + ": " + name + ": " + set.error().message);
  auto parsed = ParseLayoutJson(layout, name);
  if (!parsed.ok()) return MakeError(x.where + ": " + parsed.error().message);
  if (!parsed->cache.is_null()) {
    auto c = ParseCacheJson(parsed->cache, name, parsed->tiers[0].name);
    if (!c.ok()) return MakeError(x.where + ": " + c.error().message);
  }
  return {};
}

}  // namespace

std::string HashHex(std::string_view data, int digits) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, static_cast<std::size_t>(std::min(digits, 16)));
}

Expected<Shard> ParseShard(std::string_view text) {
  const auto bad = [&] {
    return MakeError("--shard: expected i/N with 1 <= i <= N, got \"" + std::string(text) + "\"");
  };
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad();
  Shard s;
  auto a = std::from_chars(text.data(), text.data() + slash, s.index);
  auto b = std::from_chars(text.data() + slash + 1, text.data() + text.size(), s.count);
  if (a.ec != std::errc() || a.ptr != text.data() + slash || b.ec != std::errc() ||
      b.ptr != text.data() + text.size() || s.count == 0 || s.index == 0 || s.index > s.count) {
    return bad();
  }
  return s;
}

Expected<ExpandedMatrix> ExpandMatrix(const MatrixSpec& spec) {
  ExpandedMatrix out;
  out.spec = spec;
  const MatrixSpec& m = spec;

  std::vector<NamedLayout> layouts;
  for (std::size_t i = 0; i < m.layouts.size(); ++i) {
    auto l = LoadLayoutRef(m, m.layouts[i], m.source + ": layouts[" + std::to_string(i) + "]");
    if (!l.ok()) return l.error();
    layouts.push_back(std::move(l.value()));
  }
  std::vector<NamedProfile> profiles;
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    auto ps = LoadProfileRef(m, m.profiles[i], m.source + ": profiles[" + std::to_string(i) + "]");
    if (!ps.ok()) return ps.error();
    for (auto& p : *ps) profiles.push_back(std::move(p));
  }

  // The cartesian product; the last axis varies fastest.
  std::vector<Combo> combos;
  for (std::size_t li = 0; li < layouts.size(); ++li) {
    for (std::size_t pi = 0; pi < profiles.size(); ++pi) {
      std::vector<Combo> partial = {Combo{li, pi, {}}};
      for (const MatrixAxis& a : m.axes) {
        std::vector<Combo> next;
        for (const Combo& c : partial) {
          for (const auto& v : a.values) {
            Combo d = c;
            d.coords.push_back({a.path, v, AxisWhere(m, a.path)});
            next.push_back(std::move(d));
          }
        }
        partial = std::move(next);
      }
      for (auto& c : partial) combos.push_back(std::move(c));
    }
  }

  // exclude: every key must be a matrix key.
  for (std::size_t e = 0; e < m.exclude.size(); ++e) {
    for (const auto& [k, v] : m.exclude[e].items()) {
      if (!IsMatrixKey(m, k)) {
        return MakeError(m.source + ": exclude[" + std::to_string(e) + "].\"" + k +
                         "\": not a matrix key (layout, profile or an axis path)");
      }
    }
  }
  std::erase_if(combos, [&](const Combo& c) {
    for (const auto& e : m.exclude) {
      if (Matches(m, c, e, layouts, profiles)) return true;
    }
    return false;
  });

  // include: extend the matching original combinations, or add new ones.
  const std::size_t originals = combos.size();
  for (std::size_t e = 0; e < m.include.size(); ++e) {
    const nlohmann::json& entry = m.include[e];
    const std::string where = m.source + ": include[" + std::to_string(e) + "]";
    std::vector<Coord> extras;
    for (const auto& [k, v] : entry.items()) {
      if (!IsMatrixKey(m, k)) extras.push_back({k, v, where + ".\"" + k + "\""});
    }
    bool matched = false;
    for (std::size_t c = 0; c < originals; ++c) {
      if (!Matches(m, combos[c], entry, layouts, profiles)) continue;
      matched = true;
      for (const Coord& x : extras) SetCoord(combos[c], x);
    }
    if (matched) continue;
    // A new combination. A layout/profile not in the lists is loaded.
    std::vector<std::size_t> ls, ps;
    if (entry.contains("layout")) {
      const auto& ref = entry.at("layout");
      std::size_t i =
          ref.is_string() ? FindByName(layouts, ref.get<std::string>()) : layouts.size();
      if (i == layouts.size()) {
        auto l = LoadLayoutRef(m, ref, where + ".layout");
        if (!l.ok()) return l.error();
        layouts.push_back(std::move(l.value()));
      }
      ls.push_back(i);
    } else {
      for (std::size_t i = 0; i < layouts.size(); ++i) ls.push_back(i);
    }
    if (entry.contains("profile")) {
      const auto& ref = entry.at("profile");
      std::size_t i =
          ref.is_string() ? FindByName(profiles, ref.get<std::string>()) : profiles.size();
      if (i == profiles.size()) {
        auto loaded = LoadProfileRef(m, ref, where + ".profile");
        if (!loaded.ok()) return loaded.error();
        if (loaded->size() != 1) {
          return MakeError(where + ".profile: names a group; include one profile");
        }
        profiles.push_back(std::move(loaded->front()));
      }
      ps.push_back(i);
    } else {
      for (std::size_t i = 0; i < profiles.size(); ++i) ps.push_back(i);
    }
    for (std::size_t li : ls) {
      for (std::size_t pi : ps) {
        Combo c{li, pi, {}};
        for (const auto& [k, v] : entry.items()) {
          if (k != "layout" && k != "profile") c.coords.push_back({k, v, where + ".\"" + k + "\""});
        }
        combos.push_back(std::move(c));
      }
    }
  }
  if (combos.empty()) return MakeError(m.source + ": exclude removes every cell");

  // Cells: effective layout and profile per combination, then repeats.
  std::string hash_input;
  for (const Combo& c : combos) {
    const NamedLayout& nl = layouts[c.layout];
    nlohmann::json lj = nl.json;
    Profile profile = profiles[c.profile].profile;
    std::optional<TraceProfile> trace = profiles[c.profile].trace;
    bool randseed_set = false;
    for (const Coord& x : c.coords) {
      const AxisPath ap = ClassifyAxisPath(x.path);
      if (ap.target == AxisTarget::kLayout) {
        auto r = PatchLayout(lj, nl.name, x, ap.field);
        if (!r.ok()) return r.error();
        continue;
      }
      if (trace) {
        nlohmann::json patch = nlohmann::json::object();
        patch[ap.field] = x.value;
        auto t = ApplyTraceProfilePatch(*trace, patch, trace->name, m.base_dir);
        if (!t.ok()) return MakeError(x.where + ": " + t.error().message);
        if (t->path != trace->path) {
          auto check = CheckTraceProfile(*t);
          if (!check.ok()) return MakeError(x.where + ": " + check.error().message);
        }
        trace = std::move(t.value());
        profile = TraceCellProfile(*trace);
        continue;
      }
      if (ap.field == "randseed") randseed_set = true;
      nlohmann::json patch = nlohmann::json::object();
      patch[ap.field] = x.value;
      auto p = ApplyProfilePatch(profile, patch, profile.name);
      if (!p.ok()) return MakeError(x.where + ": " + p.error().message);
      profile = std::move(p.value());
    }
    auto layout = ParseLayoutJson(lj, nl.name);
    if (!layout.ok()) return layout.error();  // PatchLayout validated it; defensive
    layout->source = nl.name;

    nlohmann::json config = {{"mode", m.mode}, {"layout", LayoutToJson(*layout)}};
    if (trace) {
      config["trace"] = ToJson(*trace);
    } else {
      config["profile"] = ToJson(profile);
    }
    const std::string id = HashHex(config.dump(), 12);
    std::string label = nl.name + " | " + profile.name;
    for (std::size_t i = 0; i < c.coords.size(); ++i) {
      label += (i == 0 ? " | " : " ") + c.coords[i].path + "=" + AxisValueText(c.coords[i].value);
    }
    for (std::uint32_t r = 0; r < m.repeats; ++r) {
      MatrixCell cell;
      cell.index = out.cells.size();
      cell.id = id;
      cell.repeat = r;
      cell.seed = m.seed + r;
      cell.label = m.repeats > 1 ? label + " #" + std::to_string(r) : label;
      cell.layout_name = nl.name;
      cell.profile_name = profile.name;
      for (const Coord& x : c.coords) cell.axes.emplace_back(x.path, x.value);
      cell.layout = *layout;
      cell.profile = profile;
      cell.trace = trace;
      if (!randseed_set) cell.profile.randseed = cell.seed;
      cell.origin =
          c.coords.empty() ? m.source + ": layouts (" + nl.name + ")" : c.coords.back().where;
      hash_input += id + ":" + std::to_string(r) + ":" + std::to_string(cell.seed) + ";";
      out.cells.push_back(std::move(cell));
    }
  }
  out.hash = HashHex(hash_input, 16);
  return out;
}

Expected<void> CheckCellsBuild(const ExpandedMatrix& m) {
  if (m.spec.mode != "sim") return {};
  std::set<std::string> seen;
  for (const MatrixCell& c : m.cells) {
    const std::string key = LayoutToJson(c.layout).dump();
    if (!seen.insert(key).second) continue;
    SimEngine engine;
    LayoutSpec l = c.layout;
    l.source = l.name;
    auto v = BuildVolume(engine, l, BuildOptions{});
    if (!v.ok()) {
      return MakeError(m.spec.source + ": cell \"" + c.label + "\": " + v.error().message,
                       v.error().exit_code);
    }
  }
  return {};
}

}  // namespace tierlab
