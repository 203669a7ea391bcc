#include "layouts/MatrixSpec.h"

#include <cctype>
#include <filesystem>
#include <set>

#include "layouts/FieldTable.h"
#include "layouts/JsonFields.h"
#include "layouts/Layout.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

using json = nlohmann::json;

// The matrix's keys. The scalar ones are read here; the lists, overrides,
// axes and filters have their own checks below (read is empty).
const Field<MatrixSpec> kMatrixFields[] = {
    {"name", "string", "", "the matrix's name in reports",
     [](JsonFields& f, std::string_view k, MatrixSpec& m) { m.name = f.String(k, m.name); },
     [](const MatrixSpec& m) -> json { return m.name; }, false, "the file name without .json"},
    {"description", "string", "", "free text for the reader; not interpreted", nullptr, nullptr},
    {"mode", "sim | real", "", "simulated devices, or real files and devices",
     [](JsonFields& f, std::string_view k, MatrixSpec& m) {
       m.mode = f.Choice(k, m.mode, {"sim", "real"});
     },
     [](const MatrixSpec& m) -> json { return m.mode; }},
    {"repeats", "integer 1..1000", "runs", "runs of every cell; repeat r uses seed + r",
     [](JsonFields& f, std::string_view k, MatrixSpec& m) {
       m.repeats = static_cast<std::uint32_t>(f.Int(k, m.repeats, 1, 1000));
     },
     [](const MatrixSpec& m) -> json { return m.repeats; }},
    {"seed", "integer >= 0", "", "seed of the first repeat",
     [](JsonFields& f, std::string_view k, MatrixSpec& m) {
       m.seed =
           static_cast<std::uint64_t>(f.Int(k, static_cast<std::int64_t>(m.seed), 0, INT64_MAX));
     },
     [](const MatrixSpec& m) -> json { return m.seed; }},
    {"layouts", "non-empty array of shorthand names, files or layout objects", "",
     "the layouts; required", nullptr, nullptr},
    {"profiles", "non-empty array of builtin names, files (JSON, fio job, trace) or objects", "",
     "the workloads; required", nullptr, nullptr},
    {"layout_override", "object (a JSON merge patch)", "", "applied to every layout", nullptr,
     nullptr, false, "none"},
    {"profile_override", "object (a JSON merge patch)", "", "applied to every profile", nullptr,
     nullptr, false, "none"},
    {"axes", "object of path: [values]", "", "one dimension per path (Axis paths below)", nullptr,
     nullptr, false, "none"},
    {"include", "array of objects", "", "combinations added or extended (GitHub Actions rules)",
     nullptr, nullptr, false, "none"},
    {"exclude", "array of objects", "", "combinations removed (GitHub Actions rules)", nullptr,
     nullptr, false, "none"},
};

// Array entries of a matrix field: strings or objects.
Expected<std::vector<nlohmann::json>> RefList(const nlohmann::json& j, const std::string& source,
                                              const char* key, bool required) {
  std::vector<nlohmann::json> out;
  if (!j.contains(key) || j.at(key).is_null()) {
    if (required) {
      return MakeError(source + ": " + key +
                       ": missing; give a non-empty array of names, files or objects");
    }
    return out;
  }
  const auto& a = j.at(key);
  if (!a.is_array() || a.empty()) {
    return MakeError(source + ": " + key +
                     ": must be a non-empty array of names, files or objects");
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string() && !a[i].is_object()) {
      return MakeError(source + ": " + key + "[" + std::to_string(i) +
                       "]: must be a name, a file or an object, got " + DescribeJson(a[i]));
    }
    out.push_back(a[i]);
  }
  return out;
}

Expected<std::vector<nlohmann::json>> FilterList(const nlohmann::json& j, const std::string& source,
                                                 const char* key) {
  std::vector<nlohmann::json> out;
  if (!j.contains(key) || j.at(key).is_null()) return out;
  const auto& a = j.at(key);
  if (!a.is_array()) return MakeError(source + ": " + key + ": must be an array of objects");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string where = source + ": " + key + "[" + std::to_string(i) + "]";
    if (!a[i].is_object() || a[i].empty()) {
      return MakeError(where + ": must be a non-empty object of axis values");
    }
    for (const auto& [k, v] : a[i].items()) {
      if (k == "repeat") return MakeError(where + ".repeat: filters cannot select repeats");
      if ((k == "layout" || k == "profile") && !v.is_string() &&
          !(std::string_view(key) == "include" && v.is_object())) {
        return MakeError(where + "." + k + ": must be a name, got " + DescribeJson(v));
      }
    }
    out.push_back(a[i]);
  }
  return out;
}

}  // namespace

std::span<const Field<MatrixSpec>> MatrixFields() {
  return kMatrixFields;
}

AxisPath ClassifyAxisPath(std::string_view path) {
  if (path.starts_with("layout.")) return {AxisTarget::kLayout, std::string(path.substr(7))};
  for (std::string_view p : {"cache.", "tiers[", "tiering.", "block_cache.", "reduction."}) {
    if (path.starts_with(p)) return {AxisTarget::kLayout, std::string(path)};
  }
  return {AxisTarget::kProfile, std::string(path)};
}

std::string AxisWhere(const MatrixSpec& m, std::string_view path) {
  return m.source + ": axes." + QuotedText(path, '"');
}

std::string AxisValueText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

Expected<MatrixSpec> ParseMatrixJson(const nlohmann::json& j, std::string_view source,
                                     std::string_view base_dir) {
  MatrixSpec m;
  m.source = std::string(source);
  m.base_dir = std::string(base_dir);
  m.raw = j;
  JsonFields f(j, m.source, "");
  std::string stem = std::filesystem::path(m.source).stem().string();
  m.name = stem.empty() ? m.source : stem;
  ReadFields(MatrixFields(), f, m);
  if (!f.ok()) return f.error();

  auto layouts = RefList(j, m.source, "layouts", true);
  if (!layouts.ok()) return layouts.error();
  m.layouts = std::move(layouts.value());
  auto profiles = RefList(j, m.source, "profiles", true);
  if (!profiles.ok()) return profiles.error();
  m.profiles = std::move(profiles.value());

  for (const char* key : {"layout_override", "profile_override"}) {
    if (!j.contains(key) || j.at(key).is_null()) continue;
    if (!j.at(key).is_object()) {
      return MakeError(m.source + ": " + key + ": must be an object (a JSON merge patch)");
    }
    (std::string_view(key) == "layout_override" ? m.layout_override : m.profile_override) =
        j.at(key);
  }

  if (j.contains("axes") && !j.at("axes").is_null()) {
    const auto& axes = j.at("axes");
    if (!axes.is_object()) {
      return MakeError(m.source + ": axes: must be an object of path: [values]");
    }
    for (const auto& [path, values] : axes.items()) {
      const std::string where = AxisWhere(m, path);
      if (path.empty()) return MakeError(m.source + ": axes: an axis path is empty");
      if (path == "layout" || path == "profile" || path == "repeat") {
        return MakeError(where + ": reserved; list layouts/profiles in \"layouts\"/\"profiles\"" +
                         std::string(" and use \"repeats\""));
      }
      if (!values.is_array() || values.empty()) {
        return MakeError(where + ": must be a non-empty array of values, got " +
                         DescribeJson(values));
      }
      MatrixAxis a;
      a.path = path;
      a.where = ClassifyAxisPath(path);
      if (a.where.field.empty()) return MakeError(where + ": empty field after \"layout.\"");
      std::set<nlohmann::json> seen;  // json's order: equal values (1 and 1.0) collide
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (values[i].is_array()) {
          return MakeError(where + "[" + std::to_string(i) +
                           "]: must be a string, number, boolean, object or null, got " +
                           DescribeJson(values[i]));
        }
        if (!seen.insert(values[i]).second) {
          return MakeError(where + "[" + std::to_string(i) + "]: duplicate value " +
                           DescribeJson(values[i]));
        }
        a.values.push_back(values[i]);
      }
      m.axes.push_back(std::move(a));
    }
  }
  auto inc = FilterList(j, m.source, "include");
  if (!inc.ok()) return inc.error();
  m.include = std::move(inc.value());
  auto exc = FilterList(j, m.source, "exclude");
  if (!exc.ok()) return exc.error();
  m.exclude = std::move(exc.value());
  return m;
}

Expected<MatrixSpec> LoadMatrixFile(std::string_view path) {
  auto j = ReadJsonFile(path);
  if (!j.ok()) return j.error();
  const std::filesystem::path p{std::string(path)};
  return ParseMatrixJson(*j, p.filename().string(), p.parent_path().string());
}

namespace {

struct Segment {
  std::string key;
  bool has_index = false;
  std::size_t index = 0;
};

Expected<std::vector<Segment>> SplitPath(std::string_view field) {
  std::vector<Segment> out;
  std::size_t i = 0;
  while (i <= field.size()) {
    std::size_t dot = field.find('.', i);
    if (dot == std::string_view::npos) dot = field.size();
    std::string_view part = field.substr(i, dot - i);
    Segment s;
    const std::size_t br = part.find('[');
    s.key = std::string(part.substr(0, br));
    if (br != std::string_view::npos) {
      if (!part.ends_with("]") || part.size() - br < 3) {
        return MakeError(std::string(field) + ": bad index in " + QuotedText(part, '"'));
      }
      const std::string_view digits = part.substr(br + 1, part.size() - br - 2);
      std::size_t idx = 0;
      for (char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
          return MakeError(std::string(field) + ": bad index in " + QuotedText(part, '"'));
        }
        idx = idx * 10 + static_cast<std::size_t>(c - '0');
      }
      s.has_index = true;
      s.index = idx;
    }
    if (s.key.empty()) {
      return MakeError(std::string(field) + ": empty path component");
    }
    out.push_back(std::move(s));
    i = dot + 1;
  }
  return out;
}

}  // namespace

Expected<void> SetJsonPath(nlohmann::json& doc, std::string_view field,
                           const nlohmann::json& value) {
  auto segs = SplitPath(field);
  if (!segs.ok()) return segs.error();
  nlohmann::json* cur = &doc;
  std::string walked;
  for (std::size_t n = 0; n < segs->size(); ++n) {
    const Segment& s = (*segs)[n];
    walked += (walked.empty() ? "" : ".") + s.key;
    if (cur->is_null()) *cur = nlohmann::json::object();
    if (!cur->is_object()) {
      return MakeError(std::string(field) + ": " + walked + " is inside a " + cur->type_name() +
                       ", not an object");
    }
    const bool last = n + 1 == segs->size();
    if (!s.has_index) {
      if (last) {
        (*cur)[s.key] = value;
        return {};
      }
      cur = &(*cur)[s.key];
      continue;
    }
    auto it = cur->find(s.key);
    if (it == cur->end() || !it->is_array()) {
      return MakeError(std::string(field) + ": " + walked + " is not an array");
    }
    if (s.index >= it->size()) {
      return MakeError(std::string(field) + ": index " + std::to_string(s.index) +
                       " out of range (" + walked + " has " + std::to_string(it->size()) +
                       " entries)");
    }
    walked += '[';
    walked += std::to_string(s.index);
    walked += ']';
    if (last) {
      (*it)[s.index] = value;
      return {};
    }
    cur = &(*it)[s.index];
  }
  return {};
}

nlohmann::json GetJsonPath(const nlohmann::json& doc, std::string_view field) {
  auto segs = SplitPath(field);
  if (!segs.ok()) return nullptr;
  const nlohmann::json* cur = &doc;
  for (const Segment& s : *segs) {
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(s.key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (s.has_index) {
      if (!cur->is_array() || s.index >= cur->size()) return nullptr;
      cur = &(*cur)[s.index];
    }
  }
  return *cur;
}

}  // namespace tierlab
