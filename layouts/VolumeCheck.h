#pragma once
// `tierlab check [--repair]` as a library call: every device of a volume
// against volume.json, the metadata (superblock, checkpoints, journal
// replay, the line map against the devices), and the dirty data against its
// checksums; with `repair`, what is certain is kept and a fresh checkpoint
// written (MetadataRecovery.h). The result is a report for the caller to
// print, in the order things were found.
//
// Locking: a plain check only reads (the last committed state, even of a
// volume in use); a repair holds the volume lock and shared device locks for
// its whole run, so nothing opens the volume or a device meanwhile.
// Threading: blocking file I/O on the caller's thread.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cachedev/MetadataRecovery.h"
#include "layouts/VolumeStore.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// A dirty line a repair gave up: the origin's older copy is served from now on.
struct LostLine {
  enum class Why {
    kChecksumFailed,  // its dirty data fails its checksum
    kUnverifiable,    // its slot needs a checksum the journal damage took away
    kDamagedJournal,  // a damaged journal block named it; its newest write may be lost
  };
  std::uint32_t line = 0;
  std::uint64_t first_byte = 0;  // volume bytes [first_byte, last_byte]
  std::uint64_t last_byte = 0;
  Why why = Why::kChecksumFailed;
};

struct VolumeCheckReport {
  // A plain check of a volume in use (`in_use.locked`), or of a copy (then
  // `copy_of` is the recorded place): it checks the last committed state,
  // or the copy's own files.
  VolumeUser in_use;
  std::string copy_of;
  // Repair: device 0's superblock was restored from this device's copy.
  std::string superblock_restored_from;
  // The metadata as recovered, when the superblock could be read.
  std::optional<RecoveredMetadata> metadata;
  // The data check, when the devices could be read.
  std::optional<DataCheckReport> data;
  // Mismatches after a crash: a write after the last flush (allowed) or a
  // lost or torn one; nothing tells which, so not a problem.
  std::vector<std::string> warnings;
  // Everything found wrong, in the order found.
  std::vector<std::string> problems;

  // Repair (only with problems and readable metadata).
  bool repaired = false;                // a fresh checkpoint was written
  std::vector<LostLine> lost;           // reported line by line
  std::uint64_t lost_lines = 0;         // dirty lines lost (not all may be listed twice)
  std::uint64_t repair_generation = 0;  // of the checkpoint written
  std::uint64_t dropped = 0;            // inconsistent entries dropped
  bool repair_verified = false;         // the metadata reads back without problems
  bool salvaged = false;                // ... but past damage or with lines lost

  // The check stopped here (after what is above): the volume could not be
  // locked, its layout read, or a checkpoint written.
  std::optional<Error> failure;

  // No problem found (or all repaired without loss).
  bool ok() const {
    return !failure && (repaired ? repair_verified && !salvaged : problems.empty());
  }
};

VolumeCheckReport CheckVolume(VolumeInfo info, bool repair);

}  // namespace tierlab
