#pragma once
// Offline recovery of a volume's cache metadata: the state rebuilt from the
// superblock, the checkpoints and the journal (RecoverMetadata), the data of
// the dirty lines checked against their checksums (VerifyDirtyData), and the
// repairs `tierlab check --repair` makes (DropDirtyLine). Used when a volume
// opens and by `tierlab check`; the result is what CacheJournal::Attach
// continues from. The format is in MetadataFormat.h.
//
// Data checksums: every write-back write that completes records the crc32c
// of each 4 KiB sector of the line it covers whole (OnLineData), in the same
// commit as the line turning dirty. Recovery and `tierlab check` re-read the
// dirty lines and compare (VerifyDirtyData), so a write lost or torn below
// the cache is reported, never served as the line's data. The checksums live
// in the journal's own arrays and on disk, not in the cache's line table.
//
// Recovery: the valid checkpoint with the highest generation, then journal
// blocks seq = its first seq, +1, ... while each is valid (crc, uuid, seq,
// generation). Any prefix of the journal is a consistent state (the slot
// reuse rule of CacheMetadataSink.h), so a torn commit loses only that
// commit, which was never acknowledged. Opening writes a new checkpoint
// (generation + 1), so blocks left over from a torn commit are never
// replayed after later ones.
//
// Damage: commits run one at a time, so a valid block of a *later* commit
// after the block where replay stopped proves that block was written and
// acknowledged: it is damaged, not a torn tail. Recovery then reports it
// (a problem: `check` fails, `serve` refuses), applies the later valid
// blocks, and marks the slots whose state the damaged block may have
// changed as unproven: their data must match a known checksum to be kept.
// Every superblock and checkpoint field is checked against the format's
// limits and every region against the file's size before anything is
// allocated: a checksum that matches does not make content sensible.
//
// Threading: any thread; reads its paths synchronously (MetadataFile.h).

#include <cstdint>
#include <string>
#include <vector>

#include "cachedev/MetadataFormat.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// What recovery found, for `serve`, `status` and `check`.
struct RecoveryReport {
  bool superblock_ok = false;
  bool checkpoint_ok[2] = {false, false};
  std::uint64_t checkpoint_generation = 0;  // the one used
  std::uint64_t journal_blocks = 0;         // replayed
  std::uint64_t journal_records = 0;
  std::uint64_t journal_damaged_blocks = 0;  // of completed commits (a problem each)
  std::uint64_t dirty_lines = 0;
  double seconds = 0;
  double data_check_seconds = 0;      // re-reading dirty lines against their checksums
  std::vector<std::string> problems;  // inconsistencies found (empty: clean)
  std::vector<std::string> notes;     // crash leftovers recovery handled (torn copy)
};

// The durable state as recovered from a cache device.
struct RecoveredMetadata {
  Superblock sb;
  // Written by a clean close (flushed, nothing in flight) and no journal
  // since: every dirty sector must match its checksum. After a crash a
  // sector may hold a write acknowledged after the last flush, which the
  // journal never saw (see VerifyDirtyData).
  bool clean = false;
  std::uint64_t generation = 0;      // of the checkpoint replay started from
  std::uint64_t next_seq = 0;        // first journal seq not replayed
  std::vector<std::uint32_t> dirty;  // per slot: volume line, or kNotDirty
  // Per slot and sector (slot * sectors_per_line + sector): the crc32c of the
  // data a dirty line's sector must hold, or kNoCrc.
  std::vector<std::uint32_t> crc;
  RecoveryReport report;
  // The highest generation on the device (checkpoints and journal blocks that
  // pass their checks): a repair writes above it, so no journal block left
  // on the device can ever match the generation it starts.
  std::uint64_t highest_generation = 0;
  // Only where recovery salvaged past damage (a damaged journal block of a
  // completed commit, or journal blocks newer than every usable checkpoint;
  // empty otherwise): per slot, 1 where the state comes from before the
  // damage, which may have changed it.
  std::vector<std::uint8_t> unproven;
  // The lines the damaged blocks (or the unusable checkpoint) name as dirty,
  // as far as they can be read: their newest acknowledged data may be lost.
  std::vector<std::uint32_t> lines_at_risk;
};

// Whether every sector of the dirty line in `slot` must match a known
// checksum: after a clean close, or where journal damage leaves the slot's
// state unproven. Elsewhere (after a crash) a mismatch may be a write
// acknowledged after the last flush.
bool DataMustMatch(const RecoveredMetadata& m, std::uint64_t slot);

// A dirty line whose data on the cache device does not match its checksum.
struct BadLine {
  std::uint64_t slot = 0;
  std::uint32_t line = 0;
  std::uint32_t sector = 0;  // the first bad (or unverifiable) sector
  std::uint32_t bad_sectors = 0;
  // Sectors without a checksum in a slot whose data must match
  // (DataMustMatch after journal damage): nothing proves their content.
  std::uint32_t unverifiable = 0;
};

struct DataCheckReport {
  std::uint64_t lines = 0;            // dirty lines read
  std::uint64_t sectors_checked = 0;  // with a known checksum
  std::uint64_t sectors_unknown = 0;  // without one (partial writes)
  std::uint64_t bad_sectors = 0;
  std::uint64_t adopted = 0;  // bad sectors given their current data's checksum
  std::vector<BadLine> bad;
  double seconds = 0;
};

// Superblock, checkpoints, journal replay. `volume_lines` bounds the line
// numbers (0: unchecked). Problems (a checkpoint whose checksum matches but
// whose content does not make sense, journal blocks of a newer generation
// than the checkpoint used, a damaged journal block, out-of-range or
// duplicate lines) go to report.problems; notes to report.notes (a copy torn
// by a crash, a last commit torn or damaged: nothing on the device tells
// which). Only an unreadable or absurd superblock, a short file or no valid
// checkpoint is an error.
Expected<RecoveredMetadata> RecoverMetadata(const std::string& path, std::uint64_t volume_lines);
// Reads the data of every dirty line in `m` from the cache devices
// (`cache_paths`, in device order: slot s lives where
// SlotPlacement(n, m.sb.placement_run) puts it, at reserve + index *
// line_size) and compares each sector that has a
// checksum. Errors only for unreadable devices.
//
// What a mismatch means depends on m.clean. After a clean close it is a
// write lost or torn on the cache device. After a crash it may also be a
// write acknowledged after the last flush, which overwrote the sector in
// place and whose checksum was never committed: the contract allows it, and
// without a write-ahead record per write the two cannot be told apart. With
// `adopt`, mismatching sectors take their current data's checksum in `m`
// (recovery after a crash does this, so the running volume keeps checking).
Expected<DataCheckReport> VerifyDirtyData(RecoveredMetadata& m,
                                          const std::vector<std::string>& cache_paths,
                                          bool adopt = false);
// Forgets the dirty line in `slot` of `m` (its checksums too).
void DropDirtyLine(RecoveredMetadata& m, std::uint64_t slot);

}  // namespace tierlab
