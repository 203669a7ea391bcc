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
//     "reference": {"region": "128m", "dir": "/dev/shm",
//                   "read_ns_per_io": 842.1, "write_ns_per_io": 977.5},
//     "calibration": {...}                          // what was measured; not read
//   }
//
// "reference" (optional) is the host's speed when the file was written:
// the wall time per I/O of the probe's 4k random reads and writes at QD32
// over `region` on RAM files in `dir`. `tierlab validate` measures the
// same beside each real cell and scales the costs by the ratios, so a host
// that runs faster or slower than when it was calibrated is modelled as it
// ran (bench/lab/HostReference.h).
//
// A cluster's nodes have cluster.cpu instead. A real run ignores the key:
// its CPU is the real one. Every key, its default and unit:
// HostCpuFields() and docs/CONFIG.md.

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

// The points the reference measures: 4 KiB random reads and writes at
// QD32 (HostCpuPlan's).
struct HostCpuReference {
  std::uint64_t region = 0;    // bytes the probe's I/O covers
  std::string dir;             // where its RAM files go (tmpfs)
  double read_ns_per_io = 0;   // wall time per I/O, the host's stalls included
  double write_ns_per_io = 0;  // the same for the writes
};

struct HostCpuSpec {
  NodeCpuSpec cpu{.cores = 1};
  std::string file;  // "file:PATH" as written, when the figures came from one
  std::optional<HostCpuReference> reference;  // a file's, when it has one
};

std::span<const Field<HostCpuSpec>> HostCpuFields();

// An object of HostCpuFields() or a "file:PATH" string; errors name
// `source` and "cpu" (exit code 2), or the file that cannot be read (3).
Expected<HostCpuSpec> ParseHostCpuJson(const nlohmann::json& j, std::string_view source);
// The file name as written, or the figures.
nlohmann::json HostCpuToJson(const HostCpuSpec& c);

// A cpu file's JSON for `cpu`, with `calibration` under "calibration" and
// the reference, if any.
nlohmann::json CpuFileJson(const NodeCpuSpec& cpu, const nlohmann::json& calibration,
                           const std::optional<HostCpuReference>& reference = std::nullopt);

}  // namespace tierlab
