#pragma once
// The on-disk format of a volume's persistent cache metadata: which slot
// holds which dirty line, kept in the metadata area reserved at the start of
// cache device 0 (CacheConfig::metadata_reserve). Pure encoding and decoding
// of buffers, no I/O: MetadataFile.h reads and writes them on a path,
// MetadataRecovery.h rebuilds the state, CacheJournal.h appends to it while
// the volume runs. The format and the contract are in docs/DURABILITY.md.
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
// Threading: none (pure functions). Failure: decoders report what does not
// make sense; they never trust a field before checking it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tiering/core/Expected.h"

namespace tierlab {

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

// One journal record, as it lies in a block (16 bytes).
struct JournalRecord {
  std::uint32_t slot;
  std::uint32_t line;    // kNotDirty: the slot holds no dirty line (forgets its crcs)
  std::uint32_t sector;  // kNoSector: a mapping only
  std::uint32_t crc;     // of the sector's data, or kNoCrc
};
static_assert(sizeof(JournalRecord) == MetadataGeometry::kRecordBytes);

// Generations and sequence numbers above this are not trusted: far beyond
// what any volume reaches (one generation per open or full ring), far from
// wrapping around.
inline constexpr std::uint64_t kMaxCounter = 1ull << 62;

// One journal record applied to a line map and its checksums (replay,
// commit, final state): "not dirty" forgets the slot's checksums. `spl`:
// sectors per line.
void ApplyRecord(std::uint32_t slot, std::uint32_t line, std::uint32_t sector, std::uint32_t crc,
                 std::uint64_t spl, std::vector<std::uint32_t>& dirty,
                 std::vector<std::uint32_t>& crcs);

// Superblock: into a buffer of MetadataGeometry::kSuperblockBytes (fails if
// the layout JSON does not fit), and back. DecodeSuperblock checks the
// magic, checksum, version and every field against the bounds above;
// errors start with `source` (the path).
Expected<void> EncodeSuperblock(const Superblock& sb, std::byte* p);
Expected<Superblock> DecodeSuperblock(const std::byte* p, const std::string& source);

// Checkpoint copy of generation `generation` into a buffer of
// g.checkpoint_bytes: `dirty` per slot, `crc` per slot and sector (empty:
// none known), journal from `next_seq`. `clean`: written by a clean close.
void EncodeCheckpoint(std::byte* p, const MetadataGeometry& g, const VolumeUuid& uuid,
                      std::uint64_t generation, std::uint64_t next_seq,
                      const std::vector<std::uint32_t>& dirty,
                      const std::vector<std::uint32_t>& crc, bool clean = false);

struct CheckpointView {
  bool clean = false;
  bool valid = false;
  bool present = false;  // the magic is there (a torn or corrupt copy, not an unused one)
  bool crc_ok = false;
  std::uint64_t generation = 0;
  std::uint64_t next_seq = 0;
  // Why a copy whose checksum matches is not trusted (empty: it is).
  std::string defect;
};

// "A" or "B".
const char* CopyName(int copy);
// Copy `copy` (0: A, 1: B) of a checkpoint. A checksum that matches is not
// enough: every header field must be one this volume could have written.
CheckpointView DecodeCheckpoint(const std::byte* p, const MetadataGeometry& g,
                                const VolumeUuid& uuid, int copy);
// The volume line slot `slot` holds dirty in checkpoint `p`, or kNotDirty
// (as it reads: the caller decides whether the copy is trusted).
std::uint32_t CheckpointLine(const std::byte* p, std::uint64_t slot);
// The line map and data checksums of checkpoint `p`.
void DecodeCheckpointMaps(const std::byte* p, const MetadataGeometry& g,
                          std::vector<std::uint32_t>& dirty, std::vector<std::uint32_t>& crc);

// Journal block `seq` of `generation`, written by the commit that starts at
// `commit_first` and spans `commit_blocks`, holding `n` records (at most
// kRecordsPerBlock), into a buffer of kBlock bytes.
void EncodeBlock(std::byte* p, const VolumeUuid& uuid, std::uint64_t seq, std::uint64_t generation,
                 std::uint64_t commit_first, std::uint64_t commit_blocks, const JournalRecord* recs,
                 std::size_t n);

struct BlockView {
  bool magic = false;
  bool crc_ok = false;
  bool ours = false;  // magic, checksum, this volume's uuid, a record count that fits
  std::uint32_t count = 0;
  std::uint64_t seq = 0;
  std::uint64_t generation = 0;
  std::uint64_t commit_first = 0;  // 0: not recorded
  std::uint64_t commit_blocks = 0;
};

BlockView DecodeBlock(const std::byte* p, const VolumeUuid& uuid);
// Record `i` (< kRecordsPerBlock) of block `p`, as it reads.
JournalRecord BlockRecord(const std::byte* p, std::uint32_t i);

}  // namespace tierlab
