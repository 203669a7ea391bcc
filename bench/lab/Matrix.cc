#include "bench/lab/Matrix.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "bench/workload/ProfileLoader.h"
#include "layouts/CacheSpec.h"
#include "layouts/StackBuilder.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

struct NamedLayout {
  std::string name;
  nlohmann::json json;  // LayoutAsWrittenJson of the parsed layout, override applied
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
  if (!check.ok()) return MakeError(where + ": " + check.error().message, check.error().kind);
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
    return MakeError(ref.is_string() ? where + ": " + msg : msg, l.error().kind);
  }
  nlohmann::json j = LayoutAsWrittenJson(*l);
  if (m.layout_override.is_object()) {
    j.merge_patch(m.layout_override);
    auto re = ParseLayoutJson(j, l->name);
    if (!re.ok()) return MakeError(m.source + ": layout_override: " + re.error().message);
    j = LayoutAsWrittenJson(*re);
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

// Applies one override to the layout JSON and re-validates the whole layout,
// sections included.
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
  return {};
}

// 64-bit FNV-1a, fed piece by piece: the hash of the concatenation.
class Fnv1a {
 public:
  void Add(std::string_view data) {
    for (unsigned char c : data) {
      h_ ^= c;
      h_ *= 0x100000001b3ull;
    }
  }
  std::string Hex(int digits) const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return std::string(buf, static_cast<std::size_t>(std::clamp(digits, 0, 16)));
  }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

std::uint64_t SatMul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return UINT64_MAX;
  return a * b;
}

std::uint64_t SatAdd(std::uint64_t a, std::uint64_t b) {
  return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

}  // namespace

std::string HashHex(std::string_view data, int digits) {
  Fnv1a h;
  h.Add(data);
  return h.Hex(digits);
}

Expected<Shard> ParseShard(std::string_view text) {
  const auto bad = [&] {
    return MakeError("--shard: expected i/N with 1 <= i <= N, got " + QuotedText(text, '"'));
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

namespace {

// An original combination's coordinates: digits[0] the layout, digits[1]
// the profile, digits[2 + i] the value of axis i.
using Digits = std::vector<std::size_t>;

// One combination expanded: what its cells share.
struct CellConfig {
  std::string id;
  std::string label;
  std::string layout_name;
  std::vector<std::pair<std::string, nlohmann::json>> axes;
  LayoutSpec layout;
  Profile profile;
  std::optional<TraceProfile> trace;
  bool randseed_set = false;
  std::string origin;
};

}  // namespace

struct MatrixPlan::Data {
  MatrixSpec spec;
  std::vector<NamedLayout> layouts;    // listed, then added by include
  std::vector<NamedProfile> profiles;  // listed, then added by include
  Digits radix;                        // layouts, profiles, each axis: the product's digits
  std::vector<std::vector<Coord>> include_extras;  // per include entry: its non-matrix keys
  std::vector<Combo> added;                        // combinations include adds
  std::uint64_t originals = 0;                     // product combinations exclude keeps
  std::uint64_t cells = 0;
  double mean_sim_s = 0;

  Combo MakeCombo(const Digits& digits) const {
    Combo c{digits[0], digits[1], {}};
    c.coords.reserve(spec.axes.size());
    for (std::size_t i = 0; i < spec.axes.size(); ++i) {
      const MatrixAxis& a = spec.axes[i];
      c.coords.push_back({a.path, a.values[digits[2 + i]], AxisWhere(spec, a.path)});
    }
    return c;
  }

  bool Excluded(const Combo& c) const {
    for (const auto& e : spec.exclude) {
      if (Matches(spec, c, e, layouts, profiles)) return true;
    }
    return false;
  }

  // include: an original combination matching an entry's matrix keys gets
  // the entry's other keys.
  void ApplyIncludes(Combo& c) const {
    for (std::size_t e = 0; e < spec.include.size(); ++e) {
      if (!Matches(spec, c, spec.include[e], layouts, profiles)) continue;
      for (const Coord& x : include_extras[e]) SetCoord(c, x);
    }
  }

  Expected<CellConfig> Expand(const Combo& c) const;
};

namespace {

// Mixed-radix increment, last digit fastest, over the digits `use` marks;
// false when it wraps around.
bool Advance(Digits& digits, const Digits& radix, const std::vector<bool>& use) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (!use[i]) continue;
    if (++digits[i] < radix[i]) return true;
    digits[i] = 0;
  }
  return false;
}

bool Advance(Digits& digits, const Digits& radix) {
  for (std::size_t i = digits.size(); i-- > 0;) {
    if (++digits[i] < radix[i]) return true;
    digits[i] = 0;
  }
  return false;
}

// Dimension of a matrix key: 0 layout, 1 profile, 2 + i axis i.
std::optional<std::size_t> KeyDimension(const MatrixSpec& m, const std::string& key) {
  if (key == "layout") return 0;
  if (key == "profile") return 1;
  for (std::size_t i = 0; i < m.axes.size(); ++i) {
    if (m.axes[i].path == key) return 2 + i;
  }
  return std::nullopt;
}

}  // namespace

Expected<CellConfig> MatrixPlan::Data::Expand(const Combo& c) const {
  const MatrixSpec& m = spec;
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

  nlohmann::json config = {{"mode", m.mode}, {"layout", LayoutAsWrittenJson(*layout)}};
  if (trace) {
    config["trace"] = ToJson(*trace);
  } else {
    config["profile"] = ToJson(profile);
  }
  CellConfig out;
  out.id = HashHex(config.dump(), 12);
  out.label = nl.name + " | " + profile.name;
  for (std::size_t i = 0; i < c.coords.size(); ++i) {
    out.label += (i == 0 ? " | " : " ") + c.coords[i].path + "=" + AxisValueText(c.coords[i].value);
  }
  out.layout_name = nl.name;
  for (const Coord& x : c.coords) out.axes.emplace_back(x.path, x.value);
  out.layout = std::move(*layout);
  out.profile = std::move(profile);
  out.trace = std::move(trace);
  out.randseed_set = randseed_set;
  out.origin = c.coords.empty() ? m.source + ": layouts (" + nl.name + ")" : c.coords.back().where;
  return out;
}

Expected<MatrixPlan> MatrixPlan::Make(const MatrixSpec& spec) {
  auto d = std::make_shared<Data>();
  d->spec = spec;
  const MatrixSpec& m = d->spec;
  for (std::size_t i = 0; i < m.layouts.size(); ++i) {
    auto l = LoadLayoutRef(m, m.layouts[i], m.source + ": layouts[" + std::to_string(i) + "]");
    if (!l.ok()) return l.error();
    d->layouts.push_back(std::move(l.value()));
  }
  for (std::size_t i = 0; i < m.profiles.size(); ++i) {
    auto ps = LoadProfileRef(m, m.profiles[i], m.source + ": profiles[" + std::to_string(i) + "]");
    if (!ps.ok()) return ps.error();
    for (auto& p : *ps) d->profiles.push_back(std::move(p));
  }
  d->radix = {d->layouts.size(), d->profiles.size()};
  for (const MatrixAxis& a : m.axes) d->radix.push_back(a.values.size());

  // exclude: every key must be a matrix key.
  for (std::size_t e = 0; e < m.exclude.size(); ++e) {
    for (const auto& [k, v] : m.exclude[e].items()) {
      if (!IsMatrixKey(m, k)) {
        return MakeError(m.source + ": exclude[" + std::to_string(e) + "]." + QuotedText(k, '"') +
                         ": not a matrix key (layout, profile or an axis path)");
      }
    }
  }
  for (const nlohmann::json& entry : m.include) {
    const std::string where =
        m.source + ": include[" + std::to_string(d->include_extras.size()) + "]";
    std::vector<Coord> extras;
    for (const auto& [k, v] : entry.items()) {
      if (!IsMatrixKey(m, k)) extras.push_back({k, v, where + "." + QuotedText(k, '"')});
    }
    d->include_extras.push_back(std::move(extras));
  }

  // Which combinations exclude keeps, and which include entries match one,
  // depend only on the dimensions the entries name: scan those, and count
  // each kept one for every value of the other dimensions.
  std::vector<bool> named(d->radix.size(), false);
  for (const auto* list : {&m.exclude, &m.include}) {
    for (const auto& entry : *list) {
      for (const auto& [k, v] : entry.items()) {
        if (auto dim = KeyDimension(m, k)) named[*dim] = true;
      }
    }
  }
  std::uint64_t scan = 1, rest = 1;
  for (std::size_t i = 0; i < d->radix.size(); ++i) {
    (named[i] ? scan : rest) = SatMul(named[i] ? scan : rest, d->radix[i]);
  }
  if (scan > kMaxFilterCombinations) {
    return MakeError(m.source + ": include/exclude name layouts, profiles and axes with " +
                     (scan == UINT64_MAX ? std::string("more than 2^64") : std::to_string(scan)) +
                     " combinations; at most " + std::to_string(kMaxFilterCombinations) +
                     " can be checked (name fewer axes in the entries)");
  }
  std::vector<bool> matched(m.include.size(), false);
  std::uint64_t kept = 0;
  Digits digits(d->radix.size(), 0);
  do {
    const Combo c = d->MakeCombo(digits);
    if (d->Excluded(c)) continue;
    ++kept;
    for (std::size_t e = 0; e < m.include.size(); ++e) {
      if (!matched[e] && Matches(m, c, m.include[e], d->layouts, d->profiles)) matched[e] = true;
    }
  } while (Advance(digits, d->radix, named));
  d->originals = SatMul(kept, rest);

  // include entries that match nothing are new combinations. A layout or
  // profile not in the lists is loaded (and later entries see it).
  for (std::size_t e = 0; e < m.include.size(); ++e) {
    if (matched[e]) continue;
    const nlohmann::json& entry = m.include[e];
    const std::string where = m.source + ": include[" + std::to_string(e) + "]";
    std::vector<std::size_t> ls, ps;
    if (entry.contains("layout")) {
      const auto& ref = entry.at("layout");
      std::size_t i =
          ref.is_string() ? FindByName(d->layouts, ref.get<std::string>()) : d->layouts.size();
      if (i == d->layouts.size()) {
        auto l = LoadLayoutRef(m, ref, where + ".layout");
        if (!l.ok()) return l.error();
        d->layouts.push_back(std::move(l.value()));
      }
      ls.push_back(i);
    } else {
      for (std::size_t i = 0; i < d->layouts.size(); ++i) ls.push_back(i);
    }
    if (entry.contains("profile")) {
      const auto& ref = entry.at("profile");
      std::size_t i =
          ref.is_string() ? FindByName(d->profiles, ref.get<std::string>()) : d->profiles.size();
      if (i == d->profiles.size()) {
        auto loaded = LoadProfileRef(m, ref, where + ".profile");
        if (!loaded.ok()) return loaded.error();
        if (loaded->size() != 1) {
          return MakeError(where + ".profile: names a group; include one profile");
        }
        d->profiles.push_back(std::move(loaded->front()));
      }
      ps.push_back(i);
    } else {
      for (std::size_t i = 0; i < d->profiles.size(); ++i) ps.push_back(i);
    }
    for (std::size_t li : ls) {
      for (std::size_t pi : ps) {
        Combo c{li, pi, {}};
        for (const auto& [k, v] : entry.items()) {
          if (k != "layout" && k != "profile")
            c.coords.push_back({k, v, where + "." + QuotedText(k, '"')});
        }
        d->added.push_back(std::move(c));
      }
    }
  }
  const std::uint64_t combos = SatAdd(d->originals, d->added.size());
  if (combos == 0) return MakeError(m.source + ": exclude removes every cell");
  d->cells = SatMul(combos, m.repeats);

  double sum = 0;
  std::size_t timed = 0;
  for (const NamedProfile& p : d->profiles) {
    if (p.trace || p.profile.runtime <= 0) continue;
    sum += static_cast<double>(p.profile.ramp_time + p.profile.runtime) / 1e9;
    ++timed;
  }
  d->mean_sim_s = timed == 0 ? 0 : sum / static_cast<double>(timed);

  MatrixPlan plan;
  plan.d_ = std::move(d);
  return plan;
}

const MatrixSpec& MatrixPlan::spec() const {
  static const MatrixSpec kEmpty;
  return d_ ? d_->spec : kEmpty;
}

std::uint64_t MatrixPlan::size() const {
  return d_ ? d_->cells : 0;
}

std::uint64_t MatrixPlan::ShardSize(const Shard& shard) const {
  const std::uint64_t n = size();
  const std::uint64_t first = shard.index - 1;
  if (n <= first) return 0;
  return (n - first - 1) / shard.count + 1;
}

double MatrixPlan::MeanSimulatedSeconds() const {
  return d_ ? d_->mean_sim_s : 0;
}

struct MatrixPlan::Cursor::State {
  std::shared_ptr<const Data> d;
  std::function<bool(std::uint64_t)> want;
  Digits digits;  // the next original combination
  bool originals_done = false;
  std::size_t next_added = 0;
  std::uint64_t next_index = 0;  // of the next cell
  std::optional<CellConfig> config;
  std::uint32_t repeat = 0;  // the next repeat of `config`

  // Passes over the next original combination without building it when
  // none of its cells is wanted and nothing can exclude it (then it is
  // certainly kept): a shard of a huge matrix skips the rest cheaply.
  bool SkipUnwanted() {
    if (!want || originals_done || !d->spec.exclude.empty()) return false;
    const std::uint32_t repeats = d->spec.repeats;
    for (std::uint32_t r = 0; r < repeats; ++r) {
      if (want(next_index + r)) return false;
    }
    next_index += repeats;
    originals_done = !Advance(digits, d->radix);
    return true;
  }

  // The next combination that exclude keeps, with include applied.
  bool NextCombo(Combo* out) {
    while (SkipUnwanted()) {
    }
    while (!originals_done) {
      Combo c = d->MakeCombo(digits);
      originals_done = !Advance(digits, d->radix);
      if (d->Excluded(c)) continue;
      d->ApplyIncludes(c);
      *out = std::move(c);
      return true;
    }
    if (next_added < d->added.size()) {
      *out = d->added[next_added++];
      return true;
    }
    return false;
  }
};

MatrixPlan::Cursor MatrixPlan::Cells(std::function<bool(std::uint64_t)> want) const {
  Cursor c;
  c.s_ = std::make_shared<Cursor::State>();
  c.s_->d = d_;
  c.s_->want = std::move(want);
  c.s_->digits.assign(d_ ? d_->radix.size() : 0, 0);
  c.s_->originals_done = !d_ || d_->originals == 0;
  return c;
}

Expected<bool> MatrixPlan::Cursor::Next(MatrixCell* cell) {
  State& s = *s_;
  if (!s.d) return false;
  const MatrixSpec& m = s.d->spec;
  while (true) {
    if (s.config && s.repeat < m.repeats) {
      const std::uint64_t index = s.next_index++;
      const std::uint32_t r = s.repeat++;
      if (s.want && !s.want(index)) continue;
      const CellConfig& c = *s.config;
      cell->index = index;
      cell->id = c.id;
      cell->repeat = r;
      cell->seed = m.seed + r;
      cell->label = m.repeats > 1 ? c.label + " #" + std::to_string(r) : c.label;
      cell->layout_name = c.layout_name;
      cell->profile_name = c.profile.name;
      cell->axes = c.axes;
      cell->layout = c.layout;
      cell->profile = c.profile;
      cell->trace = c.trace;
      if (!c.randseed_set) cell->profile.randseed = cell->seed;
      cell->origin = c.origin;
      return true;
    }
    s.config.reset();
    Combo combo;
    if (!s.NextCombo(&combo)) return false;
    if (s.want) {
      bool any = false;
      for (std::uint32_t r = 0; r < m.repeats && !any; ++r) any = s.want(s.next_index + r);
      if (!any) {
        s.next_index += m.repeats;
        continue;
      }
    }
    auto config = s.d->Expand(combo);
    if (!config.ok()) return config.error();
    s.config = std::move(config.value());
    s.repeat = 0;
  }
}

namespace {

// Builds each distinct effective layout once (sim mode); the first failure
// in cell order is kept.
class BuildCheck {
 public:
  explicit BuildCheck(const MatrixSpec& m) : m_(m) {}
  void Add(const MatrixCell& c) {
    if (m_.mode != "sim" || error_) return;
    if (!seen_.insert(LayoutToJson(c.layout).dump()).second) return;
    LayoutSpec l = c.layout;
    l.source = l.name;
    auto v = CheckLayoutBuilds(l);
    if (!v.ok()) {
      error_ = MakeError(
          m_.source + ": cell " + QuotedText(c.label, '"', 256) + ": " + v.error().message,
          v.error().kind);
    }
  }
  const std::optional<Error>& error() const { return error_; }

 private:
  const MatrixSpec& m_;
  std::set<std::string> seen_;
  std::optional<Error> error_;
};

Expected<std::string> Scan(const MatrixPlan& plan, const ScanOptions& o,
                           std::vector<MatrixCell>* collect) {
  const MatrixSpec& m = plan.spec();
  Fnv1a hash;
  BuildCheck build(m);
  std::uint64_t expected_seen = 0;
  auto cursor = plan.Cells();
  MatrixCell cell;
  while (true) {
    auto more = cursor.Next(&cell);
    if (!more.ok()) return more.error();
    if (!*more) break;
    hash.Add(cell.id + ":" + std::to_string(cell.repeat) + ":" + std::to_string(cell.seed) + ";");
    if (o.build && cell.repeat == 0) build.Add(cell);
    if (o.expect != nullptr) {
      auto it = o.expect->find(cell.index);
      if (it != o.expect->end()) {
        ++expected_seen;
        if (it->second.id != cell.id || it->second.seed != cell.seed) {
          return MakeError(o.expect_source + ": cell " + std::to_string(cell.index) + " has id " +
                           it->second.id + " seed " + std::to_string(it->second.seed) +
                           ", but this matrix's cell " + std::to_string(cell.index) + " (" +
                           cell.label + ") has id " + cell.id + " seed " +
                           std::to_string(cell.seed) + ": from another matrix");
        }
      }
    }
    if (collect != nullptr) collect->push_back(cell);
  }
  if (o.expect != nullptr && expected_seen != o.expect->size()) {
    return MakeError(o.expect_source + ": holds cells this matrix does not have (index " +
                     std::to_string(o.expect->rbegin()->first) + ", the matrix has " +
                     std::to_string(plan.size()) + " cells): from another matrix");
  }
  if (build.error()) return *build.error();
  return hash.Hex(16);
}

}  // namespace

Expected<std::string> ScanMatrix(const MatrixPlan& plan, const ScanOptions& options) {
  return Scan(plan, options, nullptr);
}

Expected<ExpandedMatrix> ExpandMatrix(const MatrixSpec& spec) {
  auto plan = MatrixPlan::Make(spec);
  if (!plan.ok()) return plan.error();
  ExpandedMatrix out;
  out.plan = *plan;
  out.spec = plan->spec();
  ScanOptions o;
  o.build = false;
  auto hash = Scan(*plan, o, &out.cells);
  if (!hash.ok()) return hash.error();
  out.hash = std::move(hash.value());
  return out;
}

Expected<void> CheckCellsBuild(const ExpandedMatrix& m) {
  BuildCheck build(m.spec);
  for (const MatrixCell& c : m.cells) build.Add(c);
  if (build.error()) return *build.error();
  return {};
}

}  // namespace tierlab
