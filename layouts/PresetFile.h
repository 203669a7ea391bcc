#pragma once
// A device preset in a file of its own, which a layout's tier names as
// "preset": "file:PATH" (PATH relative to the current directory, as a tier's
// paths are). `tierlab calibrate` writes one:
//
//   {
//     "preset_file": 1,
//     "name": "calibrated-vda",
//     "product": "measured by tierlab calibrate on ...",
//     "capacity": "64g",
//     "model": {"type": "ssd", "read_iops_4k": 61000, ...},   // tiers[].model's fields
//     "calibration": {...}                                    // what was measured; not read
//   }
//
// "model" takes the fields of a tier's "model" overrides (docs/CONFIG.md);
// its "type" is required, the figures it leaves out are zero (an HDD needs
// its mechanics, a flash device its IOPS, bandwidth and latency: a zero one
// is an error naming it). The preset's name is "file:PATH" as written, so a
// layout written back names the file again.

#include <nlohmann/json.hpp>
#include <string_view>

#include "tiering/core/Expected.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab {

inline constexpr std::string_view kPresetFilePrefix = "file:";

// Reads the preset file at `path`; `name` becomes the preset's name.
// Errors name the file and field (exit code 2), or the file that cannot be
// read (3).
Expected<DevicePreset> ReadPresetFile(std::string_view path, std::string name);
// The same over a document already read; `source` names it in errors.
Expected<DevicePreset> ParsePresetFileJson(const nlohmann::json& doc, std::string_view source,
                                           std::string name);

// The preset file's JSON for `p`, with `calibration` under "calibration"
// (null: none). Writes the flash figures, or the HDD's mechanics.
nlohmann::json PresetFileJson(const DevicePreset& p, const nlohmann::json& calibration);

}  // namespace tierlab
