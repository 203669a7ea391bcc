#pragma once
// Configuration of the tier target (TierTarget.h): extent size, placement of
// new data, pinned ranges, heat decay, and the migration schedule and budget.
// Plain data; ValidateTierConfig() checks it against the tiers' geometry and
// returns a one-line error naming the field ("extent_size: ..."), to which
// layouts/ prefixes the file name and the CLI maps exit code 2.
//
// The defaults suit a simulated or real volume of a few GiB to many TiB; the
// default extent size was picked by a measurement (docs/TIERING.md).

#include <cstdint>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

inline constexpr std::uint64_t kTierMinExtentSize = 1ull << 20;    // 1 MiB
inline constexpr std::uint64_t kTierMaxExtentSize = 256ull << 20;  // 256 MiB
// Chosen by the extent-size sweep in docs/TIERING.md ("Default extent size").
inline constexpr std::uint64_t kTierDefaultExtentSize = 8ull << 20;  // 8 MiB
inline constexpr std::uint32_t kTierMaxTiers = 16;

// Where a never-written extent is allocated on its first write.
enum class TierPlacement : std::uint8_t {
  kFastFirst,  // fastest tier with room (ReFS real-time tiering); spills down when full
  kSlowFirst,  // slowest tier with room; heat promotes what deserves it
};

// When migration passes run (each plans promotions/demotions by heat).
enum class MigrationSchedule : std::uint8_t {
  kOff,         // nothing moves, not even fill rotation
  kContinuous,  // passes back to back, at most one per `interval`
  kPeriodic,    // one pass every `period` of engine time (the Storage Spaces
                // tier optimization task), plus fill rotation when needed
};

std::string_view ToString(TierPlacement p);      // "fast-first", "slow-first"
std::string_view ToString(MigrationSchedule s);  // "off", "continuous", "periodic"
Expected<TierPlacement> ParseTierPlacement(std::string_view s);
Expected<MigrationSchedule> ParseMigrationSchedule(std::string_view s);

// A byte range of the volume fixed to one tier. Every extent the range
// touches is pinned (pins are widened to whole extents); pinned extents are
// allocated on that tier and never migrate.
struct TierPin {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint32_t tier = 0;  // index into the tiers, 0 = fastest
};

struct TierConfig {
  // Volume size in bytes; 0 = the tiers' whole extents less
  // max_migration_ios spare extents (at least one extent is kept for the
  // volume): a move needs a free slot, so a volume as large as the tiers
  // stops migrating once every extent is written. Must be a multiple of the
  // block size and fit in the tiers' whole extents.
  std::uint64_t volume_size = 0;
  // Unit of placement and migration; a multiple of every tier's block size,
  // kTierMinExtentSize..kTierMaxExtentSize.
  std::uint64_t extent_size = kTierDefaultExtentSize;
  TierPlacement placement = TierPlacement::kFastFirst;
  std::vector<TierPin> pins;

  // Heat: each read/write adds its weight to every extent it touches; heat
  // halves every `heat_half_life` of engine time.
  Nanos heat_half_life = 60 * kSecond;
  float read_weight = 1.0f;
  float write_weight = 1.0f;

  MigrationSchedule schedule = MigrationSchedule::kContinuous;
  Nanos period = 60 * kSecond;    // kPeriodic
  Nanos interval = 100 * kMilli;  // kContinuous: minimum gap between passes
  // Budget. Copy I/Os (each a read then a write of migration_io_size) in
  // flight at once, and copy bandwidth in bytes/s (0 = unlimited).
  std::uint32_t max_migration_ios = 4;
  std::uint64_t migration_bandwidth = 0;
  // Copy chunk; a multiple of the block size that divides extent_size.
  std::uint64_t migration_io_size = 1ull << 20;
  // Extents one pass may plan to move (promotions + demotions).
  std::uint32_t max_moves_per_pass = 64;
  // A tier above this fill (0 < x <= 1) rotates its coldest extents down
  // (ReFS-style), which also keeps room for promotions and new writes.
  double fill_threshold = 0.9;
  // A slow extent displaces a fast one only if hotter by this factor
  // (heat_slow > heat_fast * (1 + hysteresis)): stops ping-pong.
  double promote_hysteresis = 0.25;
  // Extents colder than this are not promoted.
  double min_promote_heat = 1.0;
  // Writes during a copy make the written chunks copy again; after this many
  // extra rounds the move holds new writes to the extent until it has
  // switched (at most one more round of copying), so an extent that is
  // written all the time still moves. 0 = hold from the first re-copy.
  std::uint32_t max_recopy_rounds = 4;
};

// What validation needs to know about each tier (its child stack).
struct TierGeometry {
  std::uint64_t capacity = 0;  // bytes
  std::uint32_t block_size = 512;
};

// kOk, or an Error whose message names the field:
// "extent_size: must be a multiple of the block size 4096, got 1000000".
Expected<void> ValidateTierConfig(const TierConfig& config, const std::vector<TierGeometry>& tiers);

// The block size of the tiered volume: the largest of the tiers'.
std::uint32_t TierBlockSize(const std::vector<TierGeometry>& tiers);
// Whole extents that fit in a tier of `capacity` bytes.
inline std::uint64_t TierSlots(std::uint64_t capacity, std::uint64_t extent_size) {
  return extent_size == 0 ? 0 : capacity / extent_size;
}
// The effective volume size (resolves volume_size == 0). Assumes a valid config.
std::uint64_t TierVolumeSize(const TierConfig& config, const std::vector<TierGeometry>& tiers);

}  // namespace tierlab
