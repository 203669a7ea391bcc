#pragma once
// The "cpu" key of a one-node layout: the host's CPU as a queued resource
// in front of the stack, in simulation (HostCpuTarget.h). Either the
// figures:
//
//   "cpu": {"cores": 1, "per_io_ns": 580, "per_kib_ns": 50,
//           "per_write_io_ns": 750, "per_write_kib_ns": 110}
//
// or a file that `tierlab calibrate --cpu` wrote, named as a preset file is
// ("file:PATH", relative to the current directory):
//
//   "cpu": "file:cpu.json"
//
//   {
//     "cpu_file": 1,
//     "cpu": {"cores": 1, "per_io_ns": 780, ...},   // the keys above
//     "calibration": {...}                          // what was measured; not read
//   }
//
// A cluster's nodes have cluster.cpu instead. A real run ignores the key:
// its CPU is the real one. Every key, its default and unit:
// HostCpuFields() and docs/CONFIG.md.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

struct HostCpuSpec {
  NodeCpuSpec cpu{.cores = 1};
  std::string file;  // "file:PATH" as written, when the figures came from one
};

std::span<const Field<HostCpuSpec>> HostCpuFields();

// An object of HostCpuFields() or a "file:PATH" string; errors name
// `source` and "cpu" (exit code 2), or the file that cannot be read (3).
Expected<HostCpuSpec> ParseHostCpuJson(const nlohmann::json& j, std::string_view source);
// The file name as written, or the figures.
nlohmann::json HostCpuToJson(const HostCpuSpec& c);

// A cpu file's JSON for `cpu`, with `calibration` under "calibration".
nlohmann::json CpuFileJson(const NodeCpuSpec& cpu, const nlohmann::json& calibration);

}  // namespace tierlab
