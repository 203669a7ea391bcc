// The metadata format (MetadataFormat.h): encoding and decoding of the
// superblock, checkpoints and journal blocks.

#include "cachedev/MetadataFormat.h"

#include <sys/random.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "cachedev/CacheConfig.h"
#include "cachedev/LineTable.h"
#include "cachedev/SlotPlacement.h"
#include "tiering/core/Crc32c.h"

namespace tierlab {
namespace {

constexpr char kSbMagic[8] = {'T', 'L', 'V', 'O', 'L', 'S', 'B', '1'};
constexpr char kCpMagic[8] = {'T', 'L', 'V', 'O', 'L', 'C', 'P', '1'};
constexpr char kJbMagic[8] = {'T', 'L', 'V', 'O', 'L', 'J', 'B', '1'};
// 2: per-sector data checksums (16-byte journal records, a crc array in the
// checkpoint).
// Checkpoints and journal blocks.
constexpr std::uint32_t kVersion = 2;
// The superblock: version 3 records the slot placement run; version 2
// superblocks (before it was recorded: run 1) are still read.
constexpr std::uint32_t kSbVersion = 3;
constexpr std::uint32_t kSbVersionRunOne = 2;
constexpr std::uint64_t kMiB = 1 << 20;

std::uint64_t RoundUp(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

template <typename T>
void Put(std::byte* base, std::size_t off, T v) {
  std::memcpy(base + off, &v, sizeof v);  // little-endian hosts
}
template <typename T>
T Get(const std::byte* base, std::size_t off) {
  T v;
  std::memcpy(&v, base + off, sizeof v);
  return v;
}

// crc32c of `len` bytes with the 4 bytes at `crc_off` taken as zero.
std::uint32_t CrcSkipping(const std::byte* p, std::size_t len, std::size_t crc_off) {
  const std::uint32_t zero = 0;
  std::uint32_t c = Crc32c(0, p, crc_off);
  c = Crc32c(c, &zero, 4);
  return Crc32c(c, p + crc_off + 4, len - crc_off - 4);
}

// Common header of checkpoints and journal blocks:
//   0 magic[8]  8 u32 crc  12 u32 count  16 uuid[16]  32 u64 a  40 u64 b  48 u64 c
constexpr std::size_t kCrcOff = 8;

// Checkpoint flags (header offset 64): written by a clean close.
constexpr std::uint64_t kCheckpointClean = 1;

// Checkpoint body: u32 line per slot, then u32 crc per slot and sector.
std::uint64_t CrcArrayOffset(const MetadataGeometry& g) {
  return MetadataGeometry::kBlock + g.slots * 4;
}

}  // namespace

void ApplyRecord(std::uint32_t slot, std::uint32_t line, std::uint32_t sector, std::uint32_t crc,
                 std::uint64_t spl, std::vector<std::uint32_t>& dirty,
                 std::vector<std::uint32_t>& crcs) {
  dirty[slot] = line;
  if (line == kNotDirty) {
    std::fill_n(crcs.begin() + static_cast<std::ptrdiff_t>(slot * spl), spl, kNoCrc);
  } else if (sector != kNoSector && sector < spl) {
    crcs[slot * spl + sector] = crc;
  }
}

// ---- Uuid --------------------------------------------------------------------

std::string FormatUuid(const VolumeUuid& u) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[u[i] >> 4];
    s += kHex[u[i] & 15];
  }
  return s;
}

Expected<VolumeUuid> ParseUuid(const std::string& s) {
  VolumeUuid u{};
  std::size_t k = 0;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '-') continue;
    const int h = hex(s[i]);
    if (h < 0 || k >= 32) return MakeError("bad uuid \"" + s + "\"");
    u[k / 2] = static_cast<std::uint8_t>(u[k / 2] | (k % 2 == 0 ? h << 4 : h));
    ++k;
  }
  if (k != 32) return MakeError("bad uuid \"" + s + "\"");
  return u;
}

VolumeUuid NewUuid() {
  VolumeUuid u{};
  std::size_t got = 0;
  while (got < u.size()) {
    const ssize_t n = getrandom(u.data() + got, u.size() - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  u[6] = static_cast<std::uint8_t>((u[6] & 0x0F) | 0x40);  // version 4
  u[8] = static_cast<std::uint8_t>((u[8] & 0x3F) | 0x80);
  return u;
}

// ---- Geometry and superblock ---------------------------------------------------

MetadataGeometry MetadataGeometry::For(std::uint64_t line_size, std::uint64_t slots) {
  MetadataGeometry g;
  g.line_size = line_size;
  g.sector_bytes = std::clamp<std::uint64_t>(line_size, 1, kBlock);
  g.slots = std::max<std::uint64_t>(slots, 1);
  g.checkpoint_offset = kSuperblockBytes;
  const std::uint64_t body = g.slots * 4 * (1 + g.sectors_per_line());
  g.checkpoint_bytes = kBlock + RoundUp(body, kBlock);
  // Room for several checkpoints' worth of records between checkpoints.
  g.journal_bytes = std::clamp<std::uint64_t>(RoundUp(4 * body, kBlock), kMiB, 64 * kMiB);
  g.journal_offset = g.checkpoint_offset + 2 * g.checkpoint_bytes;
  g.reserve = RoundUp(g.journal_offset + g.journal_bytes, kMiB);
  return g;
}

Expected<void> EncodeSuperblock(const Superblock& sb, std::byte* p) {
  if (sb.layout_json.size() > MetadataGeometry::kSuperblockBytes - MetadataGeometry::kBlock) {
    return MakeError("superblock: layout JSON too large (" + std::to_string(sb.layout_json.size()) +
                     " bytes)");
  }
  std::fill(p, p + MetadataGeometry::kSuperblockBytes, std::byte{0});
  std::memcpy(p, kSbMagic, 8);
  Put<std::uint32_t>(p, 8, kSbVersion);
  std::memcpy(p + 16, sb.uuid.data(), 16);
  const MetadataGeometry& g = sb.geo;
  Put<std::uint64_t>(p, 32, g.line_size);
  Put<std::uint64_t>(p, 40, g.slots);
  Put<std::uint64_t>(p, 48, g.reserve);
  Put<std::uint64_t>(p, 56, g.checkpoint_offset);
  Put<std::uint64_t>(p, 64, g.checkpoint_bytes);
  Put<std::uint64_t>(p, 72, g.journal_offset);
  Put<std::uint64_t>(p, 80, g.journal_bytes);
  Put<std::uint32_t>(p, 88, sb.device_index);
  Put<std::uint32_t>(p, 92, sb.device_count);
  Put<std::uint64_t>(p, 96, sb.origin_bytes);
  Put<std::uint64_t>(p, 104, sb.created_unix);
  Put<std::uint32_t>(p, 112, static_cast<std::uint32_t>(sb.layout_json.size()));
  Put<std::uint32_t>(p, 116, static_cast<std::uint32_t>(g.sector_bytes));
  Put<std::uint32_t>(p, 120, sb.placement_run);
  std::memcpy(p + MetadataGeometry::kBlock, sb.layout_json.data(), sb.layout_json.size());
  Put<std::uint32_t>(p, 12, CrcSkipping(p, MetadataGeometry::kSuperblockBytes, 12));
  return {};
}

Expected<Superblock> DecodeSuperblock(const std::byte* p, const std::string& source) {
  const std::string& path = source;
  if (std::memcmp(p, kSbMagic, 8) != 0) {
    return MakeError(path + ": no tierlab superblock (bad magic)", ErrorKind::kInconsistent);
  }
  if (Get<std::uint32_t>(p, 12) != CrcSkipping(p, MetadataGeometry::kSuperblockBytes, 12)) {
    return MakeError(path + ": superblock checksum mismatch", ErrorKind::kInconsistent);
  }
  const std::uint32_t version = Get<std::uint32_t>(p, 8);
  if (version != kSbVersion && version != kSbVersionRunOne) {
    return MakeError(path + ": superblock version " + std::to_string(version) +
                         " not supported (this tierlab reads " + std::to_string(kSbVersionRunOne) +
                         " and " + std::to_string(kSbVersion) + ")",
                     ErrorKind::kInconsistent);
  }
  Superblock sb;
  std::memcpy(sb.uuid.data(), p + 16, 16);
  MetadataGeometry& g = sb.geo;
  g.line_size = Get<std::uint64_t>(p, 32);
  g.slots = Get<std::uint64_t>(p, 40);
  g.reserve = Get<std::uint64_t>(p, 48);
  g.checkpoint_offset = Get<std::uint64_t>(p, 56);
  g.checkpoint_bytes = Get<std::uint64_t>(p, 64);
  g.journal_offset = Get<std::uint64_t>(p, 72);
  g.journal_bytes = Get<std::uint64_t>(p, 80);
  sb.device_index = Get<std::uint32_t>(p, 88);
  sb.device_count = Get<std::uint32_t>(p, 92);
  sb.origin_bytes = Get<std::uint64_t>(p, 96);
  sb.created_unix = Get<std::uint64_t>(p, 104);
  const std::uint32_t len = Get<std::uint32_t>(p, 112);
  g.sector_bytes = Get<std::uint32_t>(p, 116);
  sb.placement_run = version == kSbVersionRunOne ? 1 : Get<std::uint32_t>(p, 120);
  // The checksum matches; now every field must be one tierlab writes, before
  // anything is sized by it.
  auto bad = [&](const char* field, const std::string& what) {
    return MakeError(path + ": superblock " + field + ": " + what, ErrorKind::kInconsistent);
  };
  if (!std::has_single_bit(g.line_size) || g.line_size < CacheConfig::kMinLineSize ||
      g.line_size > CacheConfig::kMaxLineSize) {
    return bad("line_size", std::to_string(g.line_size) + " is not a power of two in [" +
                                std::to_string(CacheConfig::kMinLineSize) + ", " +
                                std::to_string(CacheConfig::kMaxLineSize) + "]");
  }
  if (g.slots == 0 || g.slots > LineTable::kMaxSlots) {
    return bad("slots", std::to_string(g.slots) + " is not in [1, " +
                            std::to_string(LineTable::kMaxSlots) + "]");
  }
  if (sb.device_count == 0) return bad("device_count", "0 (a volume has at least one)");
  if (sb.device_index >= sb.device_count) {
    return bad("device_index", std::to_string(sb.device_index) + " is not below device_count " +
                                   std::to_string(sb.device_count));
  }
  if (!SlotPlacement::Valid(sb.placement_run)) {
    return bad("placement_run", std::to_string(sb.placement_run) +
                                    " is not a power of two in [1, " +
                                    std::to_string(SlotPlacement::kMaxRun) + "]");
  }
  const std::uint64_t origin_lines =
      sb.origin_bytes / g.line_size + (sb.origin_bytes % g.line_size != 0 ? 1 : 0);
  if (sb.origin_bytes == 0 || origin_lines > LineTable::kMaxKey) {
    return bad("origin_bytes", std::to_string(sb.origin_bytes) + " is not in [1, " +
                                   std::to_string(LineTable::kMaxKey) + " lines of " +
                                   std::to_string(g.line_size) + " bytes]");
  }
  const MetadataGeometry want = MetadataGeometry::For(g.line_size, g.slots);
  const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> geometry[] = {
      {"sector_bytes", {g.sector_bytes, want.sector_bytes}},
      {"reserve", {g.reserve, want.reserve}},
      {"checkpoint_offset", {g.checkpoint_offset, want.checkpoint_offset}},
      {"checkpoint_bytes", {g.checkpoint_bytes, want.checkpoint_bytes}},
      {"journal_offset", {g.journal_offset, want.journal_offset}},
      {"journal_bytes", {g.journal_bytes, want.journal_bytes}},
  };
  for (const auto& [field, v] : geometry) {
    if (v.first != v.second) {
      return bad(field, std::to_string(v.first) + ", but " + std::to_string(g.slots) +
                            " slots of " + std::to_string(g.line_size) + " bytes need " +
                            std::to_string(v.second));
    }
  }
  if (len > MetadataGeometry::kSuperblockBytes - MetadataGeometry::kBlock) {
    return bad("layout length",
               std::to_string(len) + " bytes exceed " +
                   std::to_string(MetadataGeometry::kSuperblockBytes - MetadataGeometry::kBlock));
  }
  sb.layout_json.assign(reinterpret_cast<const char*>(p + MetadataGeometry::kBlock), len);
  return sb;
}

void EncodeCheckpoint(std::byte* p, const MetadataGeometry& g, const VolumeUuid& uuid,
                      std::uint64_t generation, std::uint64_t next_seq,
                      const std::vector<std::uint32_t>& dirty,
                      const std::vector<std::uint32_t>& crc, bool clean) {
  std::fill(p, p + g.checkpoint_bytes, std::byte{0});
  std::memcpy(p, kCpMagic, 8);
  std::uint64_t n_dirty = 0;
  const std::uint64_t spl = g.sectors_per_line();
  const std::uint64_t crc_off = CrcArrayOffset(g);
  for (std::uint64_t s = 0; s < g.slots; ++s) {
    const std::uint32_t v = s < dirty.size() ? dirty[s] : kNotDirty;
    n_dirty += v != kNotDirty;
    Put<std::uint32_t>(p, MetadataGeometry::kBlock + s * 4, v);
    for (std::uint64_t k = 0; k < spl; ++k) {
      const std::uint64_t i = s * spl + k;
      const std::uint32_t c = v != kNotDirty && i < crc.size() ? crc[i] : kNoCrc;
      Put<std::uint32_t>(p, crc_off + i * 4, c);
    }
  }
  Put<std::uint32_t>(p, 12, kVersion);
  std::memcpy(p + 16, uuid.data(), 16);
  Put<std::uint64_t>(p, 32, generation);
  Put<std::uint64_t>(p, 40, next_seq);
  Put<std::uint64_t>(p, 48, g.slots);
  Put<std::uint64_t>(p, 56, n_dirty);
  Put<std::uint64_t>(p, 64, clean ? kCheckpointClean : 0);  // flags
  Put<std::uint32_t>(p, kCrcOff, CrcSkipping(p, g.checkpoint_bytes, kCrcOff));
}

const char* CopyName(int copy) {
  return copy == 0 ? "A" : "B";
}

// Copy `copy` (0: A, 1: B) of a checkpoint. A checksum that matches is not
// enough: every header field must be one this volume could have written.
CheckpointView DecodeCheckpoint(const std::byte* p, const MetadataGeometry& g,
                                const VolumeUuid& uuid, int copy) {
  CheckpointView v;
  if (std::memcmp(p, kCpMagic, 8) != 0) return v;
  v.present = true;
  if (Get<std::uint32_t>(p, kCrcOff) != CrcSkipping(p, g.checkpoint_bytes, kCrcOff)) return v;
  v.crc_ok = true;
  const std::uint64_t generation = Get<std::uint64_t>(p, 32);
  const std::uint64_t next_seq = Get<std::uint64_t>(p, 40);
  const std::uint64_t slots = Get<std::uint64_t>(p, 48);
  const std::uint64_t dirty_count = Get<std::uint64_t>(p, 56);
  const std::uint64_t flags = Get<std::uint64_t>(p, 64);
  VolumeUuid other{};
  std::memcpy(other.data(), p + 16, 16);
  if (Get<std::uint32_t>(p, 12) != kVersion) {
    v.defect = "version " + std::to_string(Get<std::uint32_t>(p, 12));
  } else if (other != uuid) {
    v.defect = "uuid " + FormatUuid(other) + " is not the superblock's";
  } else if (slots != g.slots) {
    v.defect = "slots " + std::to_string(slots) + ", the superblock has " + std::to_string(g.slots);
  } else if (generation > kMaxCounter || generation % 2 != static_cast<std::uint64_t>(copy)) {
    v.defect = "generation " + std::to_string(generation) + " cannot be in copy " + CopyName(copy) +
               " (A holds even generations, B odd ones)";
  } else if (next_seq == 0 || next_seq > kMaxCounter) {
    v.defect = "next_seq " + std::to_string(next_seq) + " out of range";
  } else if ((flags & ~kCheckpointClean) != 0) {
    v.defect = "flags " + std::to_string(flags) + " has unknown bits";
  } else {
    std::uint64_t n = 0;
    for (std::uint64_t s = 0; s < g.slots; ++s) {
      n += Get<std::uint32_t>(p, MetadataGeometry::kBlock + s * 4) != kNotDirty;
    }
    if (n != dirty_count) {
      v.defect = "dirty_count " + std::to_string(dirty_count) + ", but its line map holds " +
                 std::to_string(n) + " dirty lines";
    }
  }
  if (!v.defect.empty()) return v;
  v.valid = true;
  v.generation = generation;
  v.next_seq = next_seq;
  v.clean = (flags & kCheckpointClean) != 0;
  return v;
}

std::uint32_t CheckpointLine(const std::byte* p, std::uint64_t slot) {
  return Get<std::uint32_t>(p, MetadataGeometry::kBlock + slot * 4);
}

void DecodeCheckpointMaps(const std::byte* p, const MetadataGeometry& g,
                          std::vector<std::uint32_t>& dirty, std::vector<std::uint32_t>& crc) {
  const std::byte* body = p + MetadataGeometry::kBlock;
  const std::uint64_t spl = g.sectors_per_line();
  dirty.resize(g.slots);
  std::memcpy(dirty.data(), body, g.slots * 4);
  crc.resize(g.slots * spl);
  std::memcpy(crc.data(), body + g.slots * 4, g.slots * spl * 4);
}

// Journal block: header as above with count = records, a = seq,
// b = generation, c = the first seq of the commit that wrote it, and at 56
// the commit's block count (both 0 in blocks written before they existed).
void EncodeBlock(std::byte* p, const VolumeUuid& uuid, std::uint64_t seq, std::uint64_t generation,
                 std::uint64_t commit_first, std::uint64_t commit_blocks, const JournalRecord* recs,
                 std::size_t n) {
  std::memset(p, 0, MetadataGeometry::kBlock);
  std::memcpy(p, kJbMagic, 8);
  Put<std::uint32_t>(p, 12, static_cast<std::uint32_t>(n));
  std::memcpy(p + 16, uuid.data(), 16);
  Put<std::uint64_t>(p, 32, seq);
  Put<std::uint64_t>(p, 40, generation);
  Put<std::uint64_t>(p, 48, commit_first);
  Put<std::uint64_t>(p, 56, commit_blocks);
  std::memcpy(p + 64, recs, n * sizeof(JournalRecord));
  Put<std::uint32_t>(p, kCrcOff, CrcSkipping(p, MetadataGeometry::kBlock, kCrcOff));
}

BlockView DecodeBlock(const std::byte* p, const VolumeUuid& uuid) {
  BlockView b;
  b.magic = std::memcmp(p, kJbMagic, 8) == 0;
  if (!b.magic) return b;
  b.crc_ok = Get<std::uint32_t>(p, kCrcOff) == CrcSkipping(p, MetadataGeometry::kBlock, kCrcOff);
  b.count = Get<std::uint32_t>(p, 12);
  b.seq = Get<std::uint64_t>(p, 32);
  b.generation = Get<std::uint64_t>(p, 40);
  b.commit_first = Get<std::uint64_t>(p, 48);
  b.commit_blocks = Get<std::uint64_t>(p, 56);
  b.ours = b.crc_ok && std::memcmp(p + 16, uuid.data(), 16) == 0 &&
           b.count <= MetadataGeometry::kRecordsPerBlock && b.generation <= kMaxCounter;
  return b;
}

JournalRecord BlockRecord(const std::byte* p, std::uint32_t i) {
  const std::size_t at = 64 + i * MetadataGeometry::kRecordBytes;
  return JournalRecord{Get<std::uint32_t>(p, at), Get<std::uint32_t>(p, at + 4),
                       Get<std::uint32_t>(p, at + 8), Get<std::uint32_t>(p, at + 12)};
}

}  // namespace tierlab
