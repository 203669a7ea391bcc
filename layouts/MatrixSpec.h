#pragma once
// The matrix schema: which layouts, which profiles, which axes, how often.
//
//   {
//     "name": "s2d",                        // optional, default: the file name
//     "mode": "sim",                        // "sim" (default) or "real"
//     "repeats": 3,                         // default 1
//     "seed": 1,                            // default 1; repeat r runs with seed + r
//     "layouts": ["nvme2+hdd4", "my-layout.json", {inline layout object}],
//     "profiles": ["4k-randread", "job.fio", {inline profile object}],
//     "profile_override": {"runtime": "10s"},   // merge patch on every profile
//     "layout_override": {"size": "64g"},       // merge patch on every layout
//     "axes": {"cache.read": [true, false], "bs": ["4k", "8k"]},
//     "include": [{"layout": "nvme2+hdd4", "cache.write": "writethrough"}],
//     "exclude": [{"profile": "4k-randread", "bs": "8k"}]
//   }
//
// Axis paths. A path addresses a field of the layout JSON or of the profile
// JSON, by prefix:
//   layout:  cache.*, tiers[i].*, tiering.*, block_cache.*, reduction.*, and layout.<path>
//            (the prefix is stripped: "layout.size" is the layout's size)
//   profile: everything else, a flat fio option name ("bs", "iodepth", "size")
// The value is written into the effective layout/profile JSON (null removes
// the field: no block cache, the profile default) and the result is re-parsed, so an override is
// validated exactly like a file would be (the expansion in bench/lab/Matrix.h does that and names
// the axis in errors).
//
// Axis order is the JSON object's key order as parsed (nlohmann::json sorts
// keys), so cell order depends only on the file's content.
//
// include/exclude follow GitHub Actions' matrix rules. A filter entry is an
// object whose keys are "layout" (a layout's name), "profile" (a profile's
// name), "repeat" is not allowed, and axis paths; any other key is an extra
// override path with the same prefix rule.
//   exclude: removes every combination matching all keys of some entry.
//   include: for each combination whose values match all of the entry's
//            matrix keys (layout, profile, axes), adds the entry's other keys
//            to it; if no combination matches, the entry is a new combination
//            (layout/profile missing from it: every listed layout/profile).
//
// Errors name the file and the field: `m.json: axes."bs": must be a
// non-empty array of values`. Exit code 2.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"

namespace tierlab {

enum class AxisTarget : std::uint8_t { kLayout, kProfile };

struct AxisPath {
  AxisTarget target = AxisTarget::kProfile;
  std::string field;  // the path inside the target ("size" for "layout.size")
};

// The prefix rule above. Never fails; unknown fields fail when re-parsed.
AxisPath ClassifyAxisPath(std::string_view path);

struct MatrixAxis {
  std::string path;  // as written in the file ("cache.read")
  AxisPath where;
  std::vector<nlohmann::json> values;  // non-empty; null = remove the field
};

struct MatrixSpec {
  std::string name;
  std::string mode = "sim";  // "sim" | "real"
  std::uint32_t repeats = 1;
  std::uint64_t seed = 1;
  std::vector<nlohmann::json> layouts;   // strings or objects, non-empty
  std::vector<nlohmann::json> profiles;  // strings or objects, non-empty
  nlohmann::json layout_override;        // null or an object (merge patch)
  nlohmann::json profile_override;       // null or an object (merge patch)
  std::vector<MatrixAxis> axes;
  std::vector<nlohmann::json> include;  // objects
  std::vector<nlohmann::json> exclude;  // objects
  std::string source;                   // file name, prefixes every error
  std::string base_dir;                 // directory of the file ("" = cwd), for relative paths
  nlohmann::json raw;                   // the document as given
};

// The matrix's top-level keys (FieldTable.h; docs/CONFIG.md).
std::span<const Field<MatrixSpec>> MatrixFields();

// `source` names the document in errors ("m.json"); `base_dir` is where
// relative layout/profile files are looked up first.
Expected<MatrixSpec> ParseMatrixJson(const nlohmann::json& j, std::string_view source,
                                     std::string_view base_dir = "");
// Reads and parses a matrix file.
Expected<MatrixSpec> LoadMatrixFile(std::string_view path);

// Writes `value` at `field` inside `doc` ("cache.read", "tiers[0].count").
// Missing objects on the way are created; an array index must exist. Errors
// are "field: reason" (no file prefix).
Expected<void> SetJsonPath(nlohmann::json& doc, std::string_view field,
                           const nlohmann::json& value);

// Reads the value at `field`, or null when absent.
nlohmann::json GetJsonPath(const nlohmann::json& doc, std::string_view field);

// `m.json: axes."cache.foo"` — how errors name an axis.
std::string AxisWhere(const MatrixSpec& m, std::string_view path);

// A value as a short label: "4k", "true", "32".
std::string AxisValueText(const nlohmann::json& v);

}  // namespace tierlab
