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
#include <functional>
#include <map>
#include <memory>
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

// Shards: "i/N", 1 <= i <= N. Cell k belongs to shard (k mod N) + 1
// (round robin: neighbouring cells, which share a layout and so a run time,
// spread over the shards).
struct Shard {
  std::uint32_t index = 1;
  std::uint32_t count = 1;
  bool Contains(std::uint64_t cell_index) const { return cell_index % count + 1 == index; }
  std::string ToString() const { return std::to_string(index) + "/" + std::to_string(count); }
};
Expected<Shard> ParseShard(std::string_view text);

// The cells of a matrix without the cells: MatrixPlan::Make loads the
// listed layouts and profiles and works out which combinations exclude
// removes and include adds, and how many cells there are, in time and
// memory that do not grow with the number of cells (a scan over the axes
// that include/exclude entries name, at most kMaxFilterCombinations of
// them). Cells are then expanded one at a time, in index order, by a
// Cursor: `tierlab matrix --list` and the runner stream them, so a matrix
// of 10^8 cells costs its listing time, not 10^8 configurations in memory.
//
// The plan is immutable: copies and cursors share its state. A cursor is
// used by one thread at a time.
class MatrixPlan {
 public:
  MatrixPlan() = default;
  static Expected<MatrixPlan> Make(const MatrixSpec& spec);

  const MatrixSpec& spec() const;
  // Cells (combinations x repeats), saturating at UINT64_MAX.
  std::uint64_t size() const;
  // Cells of one shard.
  std::uint64_t ShardSize(const Shard& shard) const;
  // Simulated seconds (ramp_time + runtime) of the listed profiles,
  // averaged; 0 when none is time based (size- or count-based runs and
  // traces have no fixed duration).
  double MeanSimulatedSeconds() const;

  class Cursor {
   public:
    // The next cell whose index `want` accepts (every cell when `want` is
    // empty) into *cell; false after the last. Combinations none of whose
    // cells are wanted are not expanded. Errors name the matrix file and
    // the override at fault (exit code 2).
    Expected<bool> Next(MatrixCell* cell);

   private:
    friend class MatrixPlan;
    struct State;
    std::shared_ptr<State> s_;
  };
  Cursor Cells(std::function<bool(std::uint64_t)> want = {}) const;

 private:
  struct Data;
  std::shared_ptr<const Data> d_;
};

// Cells `tierlab matrix` runs or lists without --force (the shard's cells
// when sharded). A simulated cell takes 0.1 to 10 s of wall time on one
// core, so this many are a day to months of one machine, and their results
// (about 5 KB of JSON each) a results file of about 0.5 GB.
inline constexpr std::uint64_t kMaxCellsWithoutForce = 100000;

// Combinations of the axes that include/exclude entries name that
// MatrixPlan::Make checks at most (2^24; each check is a few map lookups).
inline constexpr std::uint64_t kMaxFilterCombinations = std::uint64_t{1} << 24;

// What ScanMatrix compares a resumed results file's cells with.
struct ExpectedCell {
  std::string id;
  std::uint64_t seed = 0;
};

struct ScanOptions {
  // Build every distinct effective layout once on a simulated engine (sim
  // mode only), so that a layout that cannot be built (size larger than its
  // tiers, an invalid cache section) fails before any cell runs. Build
  // errors are reported after expansion errors, whatever the cell order.
  bool build = true;
  // Cells of a resumed results file by index: each must have the id and
  // seed of the matrix's cell at that index.
  const std::map<std::uint64_t, ExpectedCell>* expect = nullptr;
  std::string expect_source;  // the results file, for errors
};

// Expands every cell once: validates them all and returns the matrix hash,
// 16 hex digits of FNV-1a over every cell's (id, repeat, seed) in order.
Expected<std::string> ScanMatrix(const MatrixPlan& plan, const ScanOptions& options = {});

// Every cell at once, for small matrices and tests (the CLI streams).
struct ExpandedMatrix {
  MatrixPlan plan;
  MatrixSpec spec;
  std::vector<MatrixCell> cells;
  std::string hash;
};

Expected<ExpandedMatrix> ExpandMatrix(const MatrixSpec& spec);

// ScanMatrix's build check on an expanded matrix.
Expected<void> CheckCellsBuild(const ExpandedMatrix& m);

// 64-bit FNV-1a as hex with `digits` digits.
std::string HashHex(std::string_view data, int digits);

}  // namespace tierlab
