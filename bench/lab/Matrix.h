#pragma once
// Expands a matrix (layouts/MatrixSpec.h) into cells: layouts x profiles x
// axis values (minus exclude, plus include) x repeats, each with its
// effective, validated layout and profile.
//
// Order (the cell index): layouts in the file's order, then profiles (a
// group name such as hcibench-4k-50rand contributes its members in order),
// then axes (the first axis varies slowest), then repeats; combinations
// added by `include` come last. The order depends only on the matrix file.
//
// Identity:
//   id    12 hex digits of a 64-bit FNV-1a hash of {mode, effective layout,
//         effective profile} before the repeat's seed is applied, so every
//         repeat of a configuration shares the id and the same configuration
//         has the same id in every results file (diff matches on it).
//   seed  matrix seed + repeat index; it becomes the profile's randseed
//         (unless randseed is an axis) and the device models' seed, so one
//         cell re-runs exactly with `tierlab run --seed`.
//   label "nvme2+hdd4 | 4k-randread | cache.read=false bs=8k" (+ " #2" for
//         the third repeat when repeats > 1).
//
// Traces as profiles: a profiles entry that is an object with a "trace" key,
// or a string naming a JSON file holding such an object, is a trace replay
// (bench/workload/TraceProfile.h) instead of a synthetic profile. Profile axes and
// include/exclude keys patch its JSON the same way ("iodepth",
// "replay_time_scale"); profile_override keys it does not know are left to
// the synthetic profiles. Its cell carries `trace`, and `profile` only
// names it (name, iodepth). The trace is opened at expansion, so a missing
// file or a bad header fails before any cell runs.
//
// Errors (exit code 2) name the matrix file and where the bad value came
// from: `m.json: axes."cache.foo": nvme2+hdd4: cache.foo: unknown key ...`;
// a layout that does not fit its volume size reports BuildVolume's error
// with the same prefix (CheckCellsBuild).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/workload/Profile.h"
#include "bench/workload/TraceProfile.h"
#include "layouts/Layout.h"
#include "layouts/MatrixSpec.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct MatrixCell {
  std::size_t index = 0;  // position in the whole matrix (0-based)
  std::string id;
  std::string label;
  std::string layout_name;
  std::string profile_name;
  // Coordinates beyond layout/profile: axis values in axis order, then keys
  // added by include entries. Values as written in the matrix.
  std::vector<std::pair<std::string, nlohmann::json>> axes;
  std::uint32_t repeat = 0;
  std::uint64_t seed = 1;
  LayoutSpec layout;  // effective
  Profile profile;    // effective, randseed applied; for a trace: name and iodepth only
  std::optional<TraceProfile> trace;  // set: the cell replays this trace
  std::string origin;  // where the last override came from, for errors ("m.json: axes.\"bs\"")
};

struct ExpandedMatrix {
  MatrixSpec spec;
  std::vector<MatrixCell> cells;
  std::string hash;  // 16 hex digits over every cell's (id, repeat, seed), in order
};

Expected<ExpandedMatrix> ExpandMatrix(const MatrixSpec& spec);

// Builds the volume of every distinct effective layout once on a simulated
// engine and throws it away, so a layout that cannot be built (size larger
// than its tiers, an invalid cache section) fails before any cell runs.
// Simulation mode only; a no-op for "real".
Expected<void> CheckCellsBuild(const ExpandedMatrix& m);

// Shards: "i/N", 1 <= i <= N. Cell k belongs to shard (k mod N) + 1
// (round robin: neighbouring cells, which share a layout and so a run time,
// spread over the shards).
struct Shard {
  std::uint32_t index = 1;
  std::uint32_t count = 1;
  bool Contains(std::size_t cell_index) const { return cell_index % count + 1 == index; }
  std::string ToString() const { return std::to_string(index) + "/" + std::to_string(count); }
};
Expected<Shard> ParseShard(std::string_view text);

// 64-bit FNV-1a as hex with `digits` digits.
std::string HashHex(std::string_view data, int digits);

}  // namespace tierlab
