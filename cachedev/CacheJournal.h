#pragma once
// Persistent cache metadata: which slot holds which dirty line, kept in the
// metadata area reserved at the start of cache device 0
// (CacheConfig::metadata_reserve), updated through a write-ahead journal with
// crc32c checksums and committed on every flush (dm-cache commits on
// FLUSH/FUA too). Unlike dm-cache, recovery knows exactly which lines are
// dirty: nothing is assumed dirty, nothing acknowledged-and-flushed is lost.
// The format and the contract are in docs/DURABILITY.md.
//
// Layout of the metadata area (all integers little-endian):
//
//   [0, 64 KiB)             superblock: magic "TLVOLSB1", version, crc32c,
//                           uuid, geometry, slot placement run (version 3;
//                           version 2 superblocks read as run 1, the
//                           placement they were written with), layout JSON
//   checkpoint A, B         two copies (copy-on-write, alternating): header
//                           (magic "TLVOLCP1", crc, uuid, generation, first
//                           journal seq) + one u32 per slot: the volume line
//                           it holds dirty, or 0xFFFFFFFF; then one u32 per
//                           slot and 4 KiB sector: the crc32c of the data the
//                           sector must hold, or 0xFFFFFFFF (not known)
//   journal ring            4 KiB blocks (magic "TLVOLJB1", crc, uuid, seq,
//                           generation, the first seq and the block count
//                           of the commit that wrote it, up to 252 records
//                           of {u32 slot, u32 line or 0xFFFFFFFF for "not
//                           dirty", u32 sector or 0xFFFFFFFF, u32 data
//                           crc32c})
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
// Commit (a flush, or in the background when destaged slots wait to be
// reused): snapshot the records, flush every cache device (the data of the
// dirty lines becomes durable before any record naming them), then write the
// journal blocks with FUA — or, when the ring is full, a whole checkpoint to
// the inactive copy with FUA. One commit runs at a time; flushes arriving
// meanwhile share the next one (group commit).
//
// Threading: engine thread only. Ownership: borrows the target and its cache
// devices; destroy it after the target has no request in flight.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cachedev/CacheMetadataSink.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/Expected.h"

namespace tierlab {

class CacheTarget;
class BlockDevice;

using VolumeUuid = std::array<std::uint8_t, 16>;
std::string FormatUuid(const VolumeUuid& u);
Expected<VolumeUuid> ParseUuid(const std::string& s);
VolumeUuid NewUuid();  // random (getrandom)

inline constexpr std::uint32_t kNotDirty = 0xFFFFFFFFu;
// A sector whose checksum is not known (written partially, or never since the
// line turned dirty). A real crc equal to it is recorded as not known: that
// sector is then not verified (a 2^-32 chance per sector write).
inline constexpr std::uint32_t kNoCrc = 0xFFFFFFFFu;
inline constexpr std::uint32_t kNoSector = 0xFFFFFFFFu;

// Where things live in the metadata area.
struct MetadataGeometry {
  static constexpr std::uint64_t kBlock = 4096;
  static constexpr std::uint64_t kSuperblockBytes = 64 * 1024;
  static constexpr std::uint64_t kRecordBytes = 16;
  static constexpr std::uint64_t kRecordsPerBlock = (kBlock - 64) / kRecordBytes;

  std::uint64_t line_size = 0;
  std::uint64_t sector_bytes = 0;       // checksum granularity: min(line, 4 KiB)
  std::uint64_t slots = 0;              // checkpoint entries (>= the cache's capacity)
  std::uint64_t checkpoint_offset = 0;  // copy A; copy B follows
  std::uint64_t checkpoint_bytes = 0;   // per copy
  std::uint64_t journal_offset = 0;
  std::uint64_t journal_bytes = 0;
  std::uint64_t reserve = 0;  // total, a multiple of 1 MiB

  // A geometry for up to `slots` lines of `line_size` bytes.
  static MetadataGeometry For(std::uint64_t line_size, std::uint64_t slots);
  std::uint64_t journal_blocks() const { return journal_bytes / kBlock; }
  std::uint64_t sectors_per_line() const { return line_size / sector_bytes; }
};

// Read back, every field is within these bounds (ReadSuperblock): line_size a
// power of two in [CacheConfig::kMinLineSize, kMaxLineSize], slots in
// [1, LineTable::kMaxSlots], device_index < device_count, origin_bytes > 0
// with at most LineTable::kMaxKey lines, and the geometry MetadataGeometry::For
// derives from line_size and slots.
struct Superblock {
  VolumeUuid uuid{};
  MetadataGeometry geo;
  std::uint32_t device_index = 0;  // which cache device holds this copy
  std::uint32_t device_count = 1;
  // Slots per run on each cache device (SlotPlacement.h): where slot s's
  // data is. 1 for volumes whose superblock predates the field (version 2).
  std::uint32_t placement_run = 1;
  std::uint64_t origin_bytes = 0;
  std::uint64_t created_unix = 0;
  std::string layout_json;  // at most 60 KiB
};

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

// Synchronous I/O on a path (pread/pwrite + fdatasync), for create, open,
// close and the offline commands. Errors name the path and, for content,
// the field ("cache0.img: superblock slots: ..."); a file too short for a
// region says so ("reading the checkpoints: file is N bytes, needs M").
// Content errors exit 1, I/O errors 3.
Expected<Superblock> ReadSuperblock(const std::string& path);
// The superblock of cache device 0 against the volume's devices, before
// anything is sized by it: device_count and device_index, the metadata area
// inside device 0, slots of line_size inside the cache devices, origin_bytes
// inside the other devices (`origin_paths`). Devices whose size cannot be
// read (missing) skip the size checks; `tierlab check` reports them.
Expected<void> CheckSuperblockAgainstDevices(const Superblock& sb,
                                             const std::vector<std::string>& cache_paths,
                                             const std::vector<std::string>& origin_paths);
Expected<void> WriteSuperblock(const std::string& path, const Superblock& sb);
// Writes checkpoint `generation` (to copy generation % 2) with `dirty`, the
// data checksums `crc` (empty: none known) and first journal seq `next_seq`,
// after an fdatasync of the file (data first). `clean`: the data on the
// devices matches the checksums exactly (a clean close).
Expected<void> WriteCheckpoint(const std::string& path, const Superblock& sb,
                               std::uint64_t generation, std::uint64_t next_seq,
                               const std::vector<std::uint32_t>& dirty,
                               const std::vector<std::uint32_t>& crc, bool clean = false);
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

class CacheJournal final : public CacheMetadataSink {
 public:
  // Attaches to `target` (SetMetadataSink) with the state `m` recovered and
  // re-checkpointed by the caller (generation `m.generation`, journal from
  // `m.next_seq`), and restores its dirty lines into the target.
  static Expected<std::unique_ptr<CacheJournal>> Attach(CacheTarget& target, RecoveredMetadata m);
  ~CacheJournal() override;

  void OnLineData(Slot slot, std::uint64_t line, std::uint64_t offset, const std::byte* data,
                  std::uint64_t length) override;
  void OnLineDirty(Slot slot, std::uint64_t line) override;
  bool VerifyLineData(Slot slot, std::uint64_t offset, const std::byte* data,
                      std::uint64_t length) override;
  void OnLineClean(Slot slot, std::uint64_t line) override;
  void OnLineInvalidated(Slot slot, std::uint64_t line) override;
  bool SlotReusable(Slot slot) const override;
  void Commit(IoCallback done) override;

  // The durable state plus every record not committed yet: what a final
  // checkpoint may write once the cache devices are flushed and no request
  // is in flight (CloseVolume).
  std::vector<std::uint32_t> FinalState() const;
  // The data checksums that go with FinalState().
  std::vector<std::uint32_t> FinalCrcs() const;
  const Superblock& superblock() const { return sb_; }
  std::uint64_t generation() const { return generation_; }
  std::uint64_t next_seq() const { return next_seq_; }
  std::uint64_t durable_dirty() const { return durable_dirty_; }
  std::uint64_t commits() const { return commits_; }
  std::uint64_t checkpoints() const { return checkpoints_; }
  std::uint64_t journal_bytes_written() const { return journal_bytes_written_; }
  // Sectors that failed VerifyLineData (lost or torn writes seen live).
  std::uint64_t data_errors() const { return data_errors_; }

 private:
  struct Record {
    std::uint32_t slot;
    std::uint32_t line;    // kNotDirty: the slot holds no dirty line (forgets its crcs)
    std::uint32_t sector;  // kNoSector: a mapping only
    std::uint32_t crc;     // of the sector's data, or kNoCrc
  };

  CacheJournal(CacheTarget& target, RecoveredMetadata m);
  void Append(Slot slot, std::uint32_t line, std::uint32_t sector = kNoSector,
              std::uint32_t crc = kNoCrc);
  void ScheduleBackgroundCommit();
  void StartCommit();
  void OnDevicesFlushed(Status st);
  void WriteJournal();
  void WriteCheckpointAsync();
  void OnWritten(Status st);
  void FinishCommit(Status st);

  CacheTarget& target_;
  BlockDevice& meta_dev_;
  Superblock sb_;
  std::uint64_t generation_;
  std::uint64_t next_seq_;
  std::uint64_t checkpoint_seq_;            // first seq of the current generation
  std::vector<std::uint32_t> durable_;      // per slot
  std::vector<std::uint32_t> durable_crc_;  // per slot and sector
  std::vector<std::uint32_t> live_crc_;     // the same with every record applied
  std::vector<std::uint64_t> touched_;      // per slot: index+1 of its latest record
  std::vector<Record> pending_;
  std::uint64_t pending_base_ = 0;  // global index of pending_[0]
  std::uint64_t durable_dirty_ = 0;

  // Commit in flight.
  bool committing_ = false;
  bool bg_scheduled_ = false;
  bool want_reuse_ = false;  // a slot waits for a commit to be reusable
  std::size_t batch_n_ = 0;  // records in the commit
  std::uint32_t batch_pending_ = 0;
  Status batch_status_ = Status::kOk;
  bool batch_is_checkpoint_ = false;
  std::uint64_t batch_blocks_ = 0;
  std::vector<IoCallback> waiting_;   // flushes for the next commit
  std::vector<IoCallback> in_batch_;  // flushes the running commit answers
  AlignedBuffer buf_;

  std::uint64_t commits_ = 0;
  std::uint64_t checkpoints_ = 0;
  std::uint64_t journal_bytes_written_ = 0;
  std::uint64_t data_errors_ = 0;
};

}  // namespace tierlab
