#include "cachedev/CacheJournal.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "cachedev/CacheConfig.h"
#include "cachedev/CacheTarget.h"
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
// Generations and sequence numbers above this are not trusted: far beyond
// what any volume reaches (one generation per open or full ring), far from
// wrapping around.
constexpr std::uint64_t kMaxCounter = 1ull << 62;

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

std::string Errno(const std::string& path, const char* what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// Metadata goes through O_DIRECT like the devices' own I/O (FileDevice), so
// no stale page-cache copy of a region written with O_DIRECT is ever read
// back; buffered only where the filesystem refuses O_DIRECT (FileDevice
// falls back the same way). Buffers are 4 KiB aligned, sizes and offsets
// multiples of 4 KiB.
int OpenMeta(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC);
  if (fd < 0 && errno == EINVAL) fd = ::open(path.c_str(), flags | O_CLOEXEC);
  return fd;
}

// pwrite until `len` bytes have moved; false on an error.
bool WriteAt(int fd, const std::byte* p, std::size_t len, std::uint64_t off) {
  while (len > 0) {
    const ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
    off += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Size of a file or block device (st_size is 0 for block devices).
std::uint64_t FileBytes(int fd) {
  const off_t end = ::lseek(fd, 0, SEEK_END);
  return end < 0 ? 0 : static_cast<std::uint64_t>(end);
}

std::uint64_t PathBytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const std::uint64_t n = FileBytes(fd);
  ::close(fd);
  return n;
}

// Checked before a region's buffer is allocated: the sizes come from the
// superblock, and a device too small for them is damage (exit 1).
Expected<void> NeedBytes(int fd, const std::string& path, const char* what, std::uint64_t end) {
  const std::uint64_t have = FileBytes(fd);
  if (have >= end) return {};
  return MakeError(path + ": " + what + ": file is " + std::to_string(have) + " bytes, needs " +
                       std::to_string(end),
                   1);
}

// pread of [off, off + len). At the end of the file pread returns 0 and
// leaves errno alone, so a short file is reported by its size.
Expected<void> ReadRegion(int fd, const std::string& path, const char* what, std::byte* p,
                          std::size_t len, std::uint64_t off) {
  if (auto r = NeedBytes(fd, path, what, off + len); !r.ok()) return r;
  const std::uint64_t end = off + len;
  while (len > 0) {
    const ssize_t n = ::pread(fd, p, len, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(Errno(path, what), kExitIo);
    if (n == 0) {  // shrunk meanwhile
      if (auto r = NeedBytes(fd, path, what, end); !r.ok()) return r;
      return MakeError(path + ": " + what + ": end of file before byte " + std::to_string(end), 1);
    }
    p += n;
    len -= static_cast<std::size_t>(n);
    off += static_cast<std::uint64_t>(n);
  }
  return {};
}

// One journal record applied to a line map and its checksums (replay,
// commit, final state): "not dirty" forgets the slot's checksums.
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

// Checkpoint flags (header offset 64): written by a clean close.
constexpr std::uint64_t kCheckpointClean = 1;

// Checkpoint body: u32 line per slot, then u32 crc per slot and sector.
std::uint64_t CrcArrayOffset(const MetadataGeometry& g) {
  return MetadataGeometry::kBlock + g.slots * 4;
}

void EncodeCheckpoint(std::byte* p, const MetadataGeometry& g, const VolumeUuid& uuid,
                      std::uint64_t generation, std::uint64_t next_seq,
                      const std::vector<std::uint32_t>& dirty,
                      const std::vector<std::uint32_t>& crc, bool clean = false) {
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

// Journal block: header as above with count = records, a = seq,
// b = generation, c = the first seq of the commit that wrote it, and at 56
// the commit's block count (both 0 in blocks written before they existed).
void EncodeBlock(std::byte* p, const VolumeUuid& uuid, std::uint64_t seq, std::uint64_t generation,
                 std::uint64_t commit_first, std::uint64_t commit_blocks, const void* recs,
                 std::size_t n) {
  std::memset(p, 0, MetadataGeometry::kBlock);
  std::memcpy(p, kJbMagic, 8);
  Put<std::uint32_t>(p, 12, static_cast<std::uint32_t>(n));
  std::memcpy(p + 16, uuid.data(), 16);
  Put<std::uint64_t>(p, 32, seq);
  Put<std::uint64_t>(p, 40, generation);
  Put<std::uint64_t>(p, 48, commit_first);
  Put<std::uint64_t>(p, 56, commit_blocks);
  std::memcpy(p + 64, recs, n * MetadataGeometry::kRecordBytes);
  Put<std::uint32_t>(p, kCrcOff, CrcSkipping(p, MetadataGeometry::kBlock, kCrcOff));
}

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

// "12, 40-47, 90" for sorted, distinct values; at most `max_runs` runs.
std::string FormatRuns(const std::vector<std::uint32_t>& v, std::size_t max_runs = 12) {
  std::string s;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (runs++ == max_runs) {
      s += ", ...";
      break;
    }
    if (!s.empty()) s += ", ";
    s += std::to_string(v[i]);
    if (j > i) {
      s += '-';
      s += std::to_string(v[j]);
    }
    i = j + 1;
  }
  return s;
}

}  // namespace

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

Expected<void> WriteSuperblock(const std::string& path, const Superblock& sb) {
  if (sb.layout_json.size() > MetadataGeometry::kSuperblockBytes - MetadataGeometry::kBlock) {
    return MakeError("superblock: layout JSON too large (" + std::to_string(sb.layout_json.size()) +
                     " bytes)");
  }
  AlignedBuffer b(MetadataGeometry::kSuperblockBytes);
  std::byte* p = b.data();
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
  Fd fd(OpenMeta(path, O_WRONLY));
  if (fd.get() < 0) return MakeError(Errno(path, "open"), kExitIo);
  if (!WriteAt(fd.get(), p, MetadataGeometry::kSuperblockBytes, 0) || ::fdatasync(fd.get()) != 0) {
    return MakeError(Errno(path, "writing the superblock"), kExitIo);
  }
  return {};
}

Expected<Superblock> ReadSuperblock(const std::string& path) {
  Fd fd(OpenMeta(path, O_RDONLY));
  if (fd.get() < 0) return MakeError(Errno(path, "open"), kExitIo);
  AlignedBuffer b(MetadataGeometry::kSuperblockBytes);
  const std::byte* p = b.data();
  if (auto r = ReadRegion(fd.get(), path, "reading the superblock", b.data(), b.size(), 0);
      !r.ok()) {
    return r.error();
  }
  if (std::memcmp(p, kSbMagic, 8) != 0) {
    return MakeError(path + ": no tierlab superblock (bad magic)", 1);
  }
  if (Get<std::uint32_t>(p, 12) != CrcSkipping(p, MetadataGeometry::kSuperblockBytes, 12)) {
    return MakeError(path + ": superblock checksum mismatch", 1);
  }
  const std::uint32_t version = Get<std::uint32_t>(p, 8);
  if (version != kSbVersion && version != kSbVersionRunOne) {
    return MakeError(path + ": superblock version " + std::to_string(version) +
                         " not supported (this tierlab reads " + std::to_string(kSbVersionRunOne) +
                         " and " + std::to_string(kSbVersion) + ")",
                     1);
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
    return MakeError(path + ": superblock " + field + ": " + what, 1);
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

Expected<void> CheckSuperblockAgainstDevices(const Superblock& sb,
                                             const std::vector<std::string>& cache_paths,
                                             const std::vector<std::string>& origin_paths) {
  if (cache_paths.empty()) return MakeError("no cache device to check", 2);
  auto bad = [&](const char* field, const std::string& what) {
    return MakeError(cache_paths[0] + ": superblock " + field + ": " + what, 1);
  };
  if (sb.device_count != cache_paths.size()) {
    return bad("device_count", std::to_string(sb.device_count) + ", but the volume has " +
                                   std::to_string(cache_paths.size()) + " cache device(s)");
  }
  if (sb.device_index != 0) {
    return bad("device_index",
               std::to_string(sb.device_index) + " on the first cache device (a copy of another?)");
  }
  const MetadataGeometry& g = sb.geo;
  std::uint64_t lines = 0;
  std::uint64_t total = 0;
  bool known = true;
  for (std::size_t i = 0; i < cache_paths.size(); ++i) {
    const std::uint64_t n = PathBytes(cache_paths[i]);
    known = known && n != 0;
    lines += n / g.line_size;
    total += n;
    if (i == 0 && n != 0 && n < g.reserve) {
      return MakeError(cache_paths[0] + ": the metadata area: file is " + std::to_string(n) +
                           " bytes, needs " + std::to_string(g.reserve) +
                           " (superblock reserve for " + std::to_string(g.slots) + " slots of " +
                           std::to_string(g.line_size) + " bytes)",
                       1);
    }
  }
  if (known && g.slots > lines) {
    return bad("slots", std::to_string(g.slots) + " lines of " + std::to_string(g.line_size) +
                            " bytes need " + std::to_string(g.slots * g.line_size) +
                            " bytes, the cache devices hold " + std::to_string(total) +
                            " (a truncated device or a damaged superblock)");
  }
  std::uint64_t origin = 0;
  known = !origin_paths.empty();
  for (const auto& p : origin_paths) {
    const std::uint64_t n = PathBytes(p);
    known = known && n != 0;
    origin += n;
  }
  if (known && sb.origin_bytes > origin) {
    return bad("origin_bytes", std::to_string(sb.origin_bytes) + " exceeds the " +
                                   std::to_string(origin) + " bytes of the capacity devices");
  }
  return {};
}

Expected<void> WriteCheckpoint(const std::string& path, const Superblock& sb,
                               std::uint64_t generation, std::uint64_t next_seq,
                               const std::vector<std::uint32_t>& dirty,
                               const std::vector<std::uint32_t>& crc, bool clean) {
  const MetadataGeometry& g = sb.geo;
  AlignedBuffer b(g.checkpoint_bytes);
  EncodeCheckpoint(b.data(), g, sb.uuid, generation, next_seq, dirty, crc, clean);
  Fd fd(OpenMeta(path, O_WRONLY));
  if (fd.get() < 0) return MakeError(Errno(path, "open"), kExitIo);
  // The data the checkpoint names must be durable before the checkpoint.
  if (::fdatasync(fd.get()) != 0) return MakeError(Errno(path, "fdatasync"), kExitIo);
  const std::uint64_t off = g.checkpoint_offset + (generation % 2) * g.checkpoint_bytes;
  if (!WriteAt(fd.get(), b.data(), g.checkpoint_bytes, off) || ::fdatasync(fd.get()) != 0) {
    return MakeError(Errno(path, "writing a checkpoint"), kExitIo);
  }
  return {};
}

namespace {

// What is wrong with the block found where journal block `seq` should be.
std::string DescribeDamage(const BlockView& b, std::uint64_t seq, std::uint64_t generation) {
  if (!b.magic) return "no journal block there (bad magic)";
  if (!b.crc_ok) return "checksum mismatch";
  if (!b.ours) return "not a block of this volume (uuid or record count)";
  if (b.seq != seq || b.generation != generation) {
    return "it holds block " + std::to_string(b.seq) + " of generation " +
           std::to_string(b.generation) + " instead (a lost write)";
  }
  return "unreadable";
}

// Replays the journal ring over the checkpoint state in `m`, and tells a
// torn tail from damage (CacheJournal.h):
//   * replay: blocks seq = m.next_seq, +1, ... of m.generation while each
//     is there;
//   * blocks of the same generation after the end, from a *later* commit:
//     the blocks before them are damaged; they are reported and the later
//     blocks applied;
//   * blocks of the same commit only: the last commit, torn or damaged (a
//     note; not replayed, as a torn commit);
//   * blocks of a newer generation: the newer checkpoint is unusable; its
//     journal is applied on top;
// and, where it had to salvage past damage, marks the slots no later record
// names as unproven.
class JournalReplay {
 public:
  // `ring`: the journal area; `lost_map`: the line map of the other
  // checkpoint copy (as it reads), whose lines are at risk if it turns out
  // to have been the newest; `volume_lines`: 0 unchecked.
  JournalReplay(RecoveredMetadata& m, const std::byte* ring, const std::byte* lost_map,
                std::uint64_t volume_lines)
      : m_(m),
        g_(m.sb.geo),
        ring_(ring),
        lost_map_(lost_map),
        volume_lines_(volume_lines),
        nblocks_(g_.journal_blocks()),
        start_(m.next_seq),
        views_(nblocks_) {
    for (std::uint64_t pos = 0; pos < nblocks_; ++pos) {
      views_[pos] = DecodeBlock(ring_ + pos * MetadataGeometry::kBlock, m.sb.uuid);
    }
  }

  // Returns the number of blocks of a newer generation than the checkpoint's.
  std::uint64_t Run() {
    std::uint64_t end = start_;
    while (end - start_ < nblocks_ && InJournal(end)) Apply(end++, false);

    std::vector<std::uint64_t> later;  // this generation's blocks after `end`
    std::uint64_t newer = 0, newest = 0;
    for (std::uint64_t pos = 0; pos < nblocks_; ++pos) {
      const BlockView& b = views_[pos];
      if (!b.ours) continue;
      m_.highest_generation = std::max(m_.highest_generation, b.generation);
      if (b.generation > m_.generation) {
        ++newer;
        newest = std::max(newest, b.generation);
      } else if (b.generation == m_.generation && b.seq > end && b.seq - start_ < nblocks_ &&
                 b.seq % nblocks_ == pos) {
        later.push_back(b.seq);
      }
    }
    std::sort(later.begin(), later.end());
    // Commits run one at a time, each writing its blocks at once: a block of
    // a later commit on the device means every commit before it completed
    // (and was acknowledged). A block without its commit's first seq (older
    // format) counts as a commit of its own.
    std::uint64_t last_start = end;
    for (std::uint64_t s : later) {
      const BlockView& b = views_[s % nblocks_];
      last_start = std::max(last_start,
                            b.commit_first >= start_ && b.commit_first <= s ? b.commit_first : s);
    }
    if (last_start > end) {
      SalvageDamage(end, later, last_start);
    } else if (!later.empty()) {
      m_.report.notes.push_back(
          "journal block " + std::to_string(end) + ": " +
          DescribeDamage(views_[end % nblocks_], end, m_.generation) + ", and blocks up to " +
          std::to_string(later.back()) +
          " of the same commit are valid: the last commit, torn by a crash (never acknowledged) "
          "or damaged; it is not replayed");
    } else if (const BlockView& tail = views_[end % nblocks_]; tail.magic && !tail.crc_ok) {
      m_.report.notes.push_back(
          "journal block " + std::to_string(end) + " (ring position " +
          std::to_string(end % nblocks_) +
          "): checksum mismatch where the journal ends: the last commit, torn by a crash (never "
          "acknowledged) or damaged; nothing after it tells which, so it is not replayed");
    }
    if (newer > 0) {
      // Blocks of generation G are written only once checkpoint G is durable.
      m_.report.problems.push_back(
          "journal: " + std::to_string(newer) + " block(s) of generation " +
          std::to_string(newest) + ", newer than the checkpoint used (generation " +
          std::to_string(m_.generation) +
          "): the newer checkpoint was complete and is now unusable; its journal is applied "
          "on top, and lines at risk are those of the other copy as it reads");
      SalvageNewerGenerations();
    }
    m_.clean = m_.clean && m_.report.journal_blocks == 0 && later.empty() && newer == 0;
    if (salvaged_) MarkUnproven();
    return newer;
  }

 private:
  const std::byte* Block(std::uint64_t seq) const {
    return ring_ + (seq % nblocks_) * MetadataGeometry::kBlock;
  }
  bool InJournal(std::uint64_t seq) const {
    const BlockView& b = views_[seq % nblocks_];
    return b.ours && b.generation == m_.generation && b.seq == seq;
  }

  void Apply(std::uint64_t seq, bool after_gap) {
    const std::byte* p = Block(seq);
    const std::uint32_t n = views_[seq % nblocks_].count;
    const std::uint64_t spl = g_.sectors_per_line();
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::size_t at = 64 + r * MetadataGeometry::kRecordBytes;
      const std::uint32_t slot = Get<std::uint32_t>(p, at);
      const std::uint32_t line = Get<std::uint32_t>(p, at + 4);
      const std::uint32_t sector = Get<std::uint32_t>(p, at + 8);
      const std::uint32_t crc = Get<std::uint32_t>(p, at + 12);
      if (slot >= g_.slots || (sector != kNoSector && sector >= spl)) {
        m_.report.problems.push_back("journal block " + std::to_string(seq) + ": slot " +
                                     std::to_string(slot) + " or sector " + std::to_string(sector) +
                                     " out of range");
        continue;
      }
      ApplyRecord(slot, line, sector, crc, spl, m_.dirty, m_.crc);
      if (after_gap) touched_[slot] = 1;
    }
    ++m_.report.journal_blocks;
    m_.report.journal_records += n;
    m_.next_seq = std::max(m_.next_seq, seq + 1);
  }

  // The dirty lines a block names, as far as its records can be read.
  std::vector<std::uint32_t> LinesNamed(const std::byte* p, std::uint32_t count) const {
    std::vector<std::uint32_t> lines;
    const std::uint32_t n = std::min<std::uint32_t>(
        count, static_cast<std::uint32_t>(MetadataGeometry::kRecordsPerBlock));
    for (std::uint32_t r = 0; r < n; ++r) {
      const std::size_t at = 64 + r * MetadataGeometry::kRecordBytes;
      const std::uint32_t slot = Get<std::uint32_t>(p, at);
      const std::uint32_t line = Get<std::uint32_t>(p, at + 4);
      if (slot < g_.slots && line != kNotDirty && (volume_lines_ == 0 || line < volume_lines_)) {
        lines.push_back(line);
      }
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    return lines;
  }

  void AtRisk(const std::vector<std::uint32_t>& lines) {
    std::vector<std::uint32_t>& r = m_.lines_at_risk;
    r.insert(r.end(), lines.begin(), lines.end());
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }

  // Blocks in [end, last_start) that are not there are damaged: report them
  // with the lines they name (where the block is there but fails its
  // checksum), then apply the later commits' blocks in order and the last
  // commit as far as it is there (a prefix, as in a plain replay).
  void SalvageDamage(std::uint64_t end, const std::vector<std::uint64_t>& later,
                     std::uint64_t last_start) {
    std::vector<std::uint64_t> damaged;
    for (std::uint64_t s = end, k = 0; s < last_start; ++s) {
      while (k < later.size() && later[k] < s) ++k;
      if (k == later.size() || later[k] != s) damaged.push_back(s);
    }
    constexpr std::size_t kShown = 8;
    for (std::size_t i = 0; i < damaged.size() && i < kShown; ++i) {
      const std::uint64_t s = damaged[i];
      const BlockView& b = views_[s % nblocks_];
      std::vector<std::uint32_t> lines;
      if (b.magic && !b.crc_ok) lines = LinesNamed(Block(s), b.count);
      AtRisk(lines);
      m_.report.problems.push_back(
          "journal block " + std::to_string(s) + " (ring position " + std::to_string(s % nblocks_) +
          "): " + DescribeDamage(b, s, m_.generation) + ", but blocks of later commits (up to " +
          std::to_string(later.back()) +
          ") are valid: a committed block is damaged, not a torn tail; lines at risk" +
          (lines.empty() ? std::string(": not readable from the damaged block")
                         : " (as the damaged block reads): " + FormatRuns(lines)));
    }
    for (std::size_t i = kShown; i < damaged.size(); ++i) {
      const BlockView& b = views_[damaged[i] % nblocks_];
      if (b.magic && !b.crc_ok) AtRisk(LinesNamed(Block(damaged[i]), b.count));
    }
    if (damaged.size() > kShown) {
      m_.report.problems.push_back("journal: " + std::to_string(damaged.size() - kShown) +
                                   " more damaged block(s) up to " +
                                   std::to_string(damaged.back()));
    }
    m_.report.journal_damaged_blocks = damaged.size();
    salvaged_ = true;
    touched_.assign(g_.slots, 0);
    for (std::uint64_t s : later) {
      if (s < last_start) Apply(s, s > damaged.back());
    }
    for (std::uint64_t s = last_start; s - start_ < nblocks_ && InJournal(s); ++s) {
      Apply(s, s > damaged.back());
    }
  }

  // The unusable checkpoint is a gap after everything replayed so far; the
  // journal of its generation holds facts from after it.
  void SalvageNewerGenerations() {
    std::vector<std::uint32_t> lines;
    for (std::uint64_t s = 0; s < g_.slots; ++s) {
      const std::uint32_t line = Get<std::uint32_t>(lost_map_, s * 4);
      if (line != kNotDirty && (volume_lines_ == 0 || line < volume_lines_)) lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    AtRisk(lines);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> newer;  // generation, seq
    for (std::uint64_t pos = 0; pos < nblocks_; ++pos) {
      const BlockView& b = views_[pos];
      if (b.ours && b.generation > m_.generation && b.seq % nblocks_ == pos) {
        newer.emplace_back(b.generation, b.seq);
      }
    }
    std::sort(newer.begin(), newer.end());
    salvaged_ = true;
    touched_.assign(g_.slots, 0);
    for (std::size_t i = 0; i < newer.size(); ++i) {
      // Only what follows the last gap proves a slot's state.
      if (i > 0 &&
          (newer[i].first != newer[i - 1].first || newer[i].second != newer[i - 1].second + 1)) {
        touched_.assign(g_.slots, 0);
      }
      Apply(newer[i].second, true);
    }
  }

  // A dirty slot no record after the last gap names may have been changed
  // by what is missing: its state is unproven. A line dirty both in such a
  // slot and in one named after the gap lives in the latter (a line is never
  // in two slots at once): the older entry goes.
  void MarkUnproven() {
    m_.unproven.assign(g_.slots, 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> proven;  // line, slot
    for (std::uint64_t s = 0; s < g_.slots; ++s) {
      if (m_.dirty[s] == kNotDirty) continue;
      if (touched_[s] == 0) {
        m_.unproven[s] = 1;
      } else {
        proven.emplace_back(m_.dirty[s], static_cast<std::uint32_t>(s));
      }
    }
    std::sort(proven.begin(), proven.end());
    for (std::uint64_t s = 0; s < g_.slots; ++s) {
      if (m_.unproven[s] == 0) continue;
      auto it = std::lower_bound(proven.begin(), proven.end(),
                                 std::make_pair(m_.dirty[s], std::uint32_t{0}));
      if (it == proven.end() || it->first != m_.dirty[s]) continue;
      m_.report.notes.push_back("slot " + std::to_string(s) + ": line " +
                                std::to_string(m_.dirty[s]) + " moved to slot " +
                                std::to_string(it->second) +
                                " after the damaged metadata; the older entry is dropped");
      ApplyRecord(static_cast<std::uint32_t>(s), kNotDirty, kNoSector, kNoCrc,
                  g_.sectors_per_line(), m_.dirty, m_.crc);
      m_.unproven[s] = 0;
    }
  }

  RecoveredMetadata& m_;
  const MetadataGeometry& g_;
  const std::byte* ring_;
  const std::byte* lost_map_;
  const std::uint64_t volume_lines_;
  const std::uint64_t nblocks_;
  const std::uint64_t start_;  // the checkpoint's first seq
  std::vector<BlockView> views_;
  bool salvaged_ = false;
  std::vector<std::uint8_t> touched_;  // slots named by records after the last gap
};

// Lines inside the volume, none in two slots; counts the dirty lines.
void CheckLineMap(RecoveredMetadata& m, std::uint64_t volume_lines) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_line;
  for (std::uint64_t s = 0; s < m.sb.geo.slots; ++s) {
    const std::uint32_t line = m.dirty[s];
    if (line == kNotDirty) continue;
    if (volume_lines != 0 && line >= volume_lines) {
      m.report.problems.push_back("slot " + std::to_string(s) + ": line " + std::to_string(line) +
                                  " beyond the volume (" + std::to_string(volume_lines) +
                                  " lines)");
    }
    by_line.emplace_back(line, static_cast<std::uint32_t>(s));
  }
  std::sort(by_line.begin(), by_line.end());
  for (std::size_t i = 1; i < by_line.size(); ++i) {
    if (by_line[i].first == by_line[i - 1].first) {
      m.report.problems.push_back("line " + std::to_string(by_line[i].first) +
                                  " dirty in two slots (" + std::to_string(by_line[i - 1].second) +
                                  ", " + std::to_string(by_line[i].second) + ")");
    }
  }
  m.report.dirty_lines = by_line.size();
}

}  // namespace

Expected<RecoveredMetadata> RecoverMetadata(const std::string& path, std::uint64_t volume_lines) {
  const auto t0 = std::chrono::steady_clock::now();
  auto sb = ReadSuperblock(path);
  if (!sb.ok()) return sb.error();
  RecoveredMetadata m;
  m.sb = std::move(sb.value());
  m.report.superblock_ok = true;
  const MetadataGeometry& g = m.sb.geo;
  Fd fd(OpenMeta(path, O_RDONLY));
  if (fd.get() < 0) return MakeError(Errno(path, "open"), kExitIo);

  // Both checkpoint copies; the valid one with the highest generation wins.
  // Sizes are checked against the file before anything is allocated.
  const char* what = "reading the checkpoints";
  if (auto r = NeedBytes(fd.get(), path, what, g.checkpoint_offset + 2 * g.checkpoint_bytes);
      !r.ok()) {
    return r.error();
  }
  AlignedBuffer cps(2 * g.checkpoint_bytes);
  if (auto r = ReadRegion(fd.get(), path, what, cps.data(), cps.size(), g.checkpoint_offset);
      !r.ok()) {
    return r.error();
  }
  CheckpointView v[2];
  int use = -1;
  for (int c = 0; c < 2; ++c) {
    v[c] = DecodeCheckpoint(cps.data() + c * g.checkpoint_bytes, g, m.sb.uuid, c);
    m.report.checkpoint_ok[c] = v[c].valid;
    if (v[c].valid && (use < 0 || v[c].generation > v[use].generation)) use = c;
    if (!v[c].defect.empty()) {
      // Not a torn write (its checksum matches): not trusted, and reported.
      m.report.problems.push_back("checkpoint " + std::string(CopyName(c)) +
                                  ": its checksum matches but " + v[c].defect +
                                  "; the copy is not used");
    }
  }
  if (use < 0) {
    auto why = [&](int c) {
      return !v[c].present  ? std::string("no checkpoint (bad magic)")
             : !v[c].crc_ok ? std::string("checksum mismatch")
                            : v[c].defect;
    };
    return MakeError(path + ": no valid checkpoint (A: " + why(0) + "; B: " + why(1) + ")", 1);
  }
  const int other = 1 - use;
  m.generation = v[use].generation;
  m.next_seq = v[use].next_seq;
  m.clean = v[use].clean;
  m.highest_generation = std::max(m.generation, v[other].valid ? v[other].generation : 0);
  m.report.checkpoint_generation = m.generation;
  const std::byte* body = cps.data() + use * g.checkpoint_bytes + MetadataGeometry::kBlock;
  const std::uint64_t spl = g.sectors_per_line();
  m.dirty.resize(g.slots);
  std::memcpy(m.dirty.data(), body, g.slots * 4);
  m.crc.resize(g.slots * spl);
  std::memcpy(m.crc.data(), body + g.slots * 4, g.slots * spl * 4);

  what = "reading the journal";
  if (auto r = NeedBytes(fd.get(), path, what, g.journal_offset + g.journal_bytes); !r.ok()) {
    return r.error();
  }
  AlignedBuffer ring(g.journal_bytes);
  if (auto r = ReadRegion(fd.get(), path, what, ring.data(), ring.size(), g.journal_offset);
      !r.ok()) {
    return r.error();
  }
  const std::byte* other_map = cps.data() + other * g.checkpoint_bytes + MetadataGeometry::kBlock;
  const std::uint64_t newer = JournalReplay(m, ring.data(), other_map, volume_lines).Run();
  if (newer == 0 && v[other].present && !v[other].crc_ok) {
    m.report.notes.push_back("checkpoint " + std::string(CopyName(other)) +
                             ": checksum mismatch (a checkpoint write interrupted by a crash); "
                             "the other copy is used");
  }
  CheckLineMap(m, volume_lines);
  m.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

bool DataMustMatch(const RecoveredMetadata& m, std::uint64_t slot) {
  return m.clean || (slot < m.unproven.size() && m.unproven[slot] != 0);
}

// ---- Data checksums ------------------------------------------------------------

Expected<DataCheckReport> VerifyDirtyData(RecoveredMetadata& m,
                                          const std::vector<std::string>& cache_paths, bool adopt) {
  const auto t0 = std::chrono::steady_clock::now();
  DataCheckReport rep;
  const MetadataGeometry& g = m.sb.geo;
  const std::uint64_t n = cache_paths.size();
  if (n == 0) return MakeError("no cache device to check", 2);
  const std::uint64_t spl = g.sectors_per_line();
  const std::uint64_t slots = std::min<std::uint64_t>(m.dirty.size(), m.crc.size() / spl);
  // Per device, runs of device-local slots read in chunks of about 1 MiB,
  // from the first dirty slot of a chunk to its last.
  const std::uint64_t chunk = std::max<std::uint64_t>(1, kMiB / g.line_size);
  AlignedBuffer buf(chunk * g.line_size);
  const SlotPlacement place(static_cast<std::uint32_t>(n), m.sb.placement_run);
  for (std::uint64_t dev = 0; dev < n; ++dev) {
    const std::string& path = cache_paths[dev];
    Fd fd(OpenMeta(path, O_RDONLY));
    if (fd.get() < 0) return MakeError(Errno(path, "open"), kExitIo);
    const auto d32 = static_cast<std::uint32_t>(dev);
    const std::uint64_t local_slots = place.SlotsOn(d32, slots);
    for (std::uint64_t k0 = 0; k0 < local_slots; k0 += chunk) {
      const std::uint64_t k1 = std::min(local_slots, k0 + chunk);
      std::uint64_t first = k1, last = k0;
      for (std::uint64_t k = k0; k < k1; ++k) {
        if (m.dirty[place.SlotAt(d32, k)] == kNotDirty) continue;
        first = std::min(first, k);
        last = k;
      }
      if (first == k1) continue;
      const std::uint64_t len = (last - first + 1) * g.line_size;
      if (auto r = ReadRegion(fd.get(), path, "reading cached data", buf.data(), len,
                              g.reserve + first * g.line_size);
          !r.ok()) {
        return r.error();
      }
      for (std::uint64_t k = first; k <= last; ++k) {
        const std::uint64_t slot = place.SlotAt(d32, k);
        if (m.dirty[slot] == kNotDirty) continue;
        ++rep.lines;
        const std::byte* line = buf.data() + (k - first) * g.line_size;
        const bool must_match = DataMustMatch(m, slot);
        const bool unproven = slot < m.unproven.size() && m.unproven[slot] != 0;
        BadLine bad{slot, m.dirty[slot], 0, 0, 0};
        for (std::uint64_t sec = 0; sec < spl; ++sec) {
          const std::uint32_t want = m.crc[slot * spl + sec];
          if (want == kNoCrc) {
            ++rep.sectors_unknown;
            if (unproven && bad.unverifiable++ == 0 && bad.bad_sectors == 0) {
              bad.sector = static_cast<std::uint32_t>(sec);
            }
            continue;
          }
          ++rep.sectors_checked;
          const std::uint32_t got = Crc32c(0, line + sec * g.sector_bytes, g.sector_bytes);
          if (got != want) {
            if (bad.bad_sectors++ == 0 && bad.unverifiable == 0) {
              bad.sector = static_cast<std::uint32_t>(sec);
            }
            ++rep.bad_sectors;
            if (adopt && !must_match) {
              m.crc[slot * spl + sec] = got;
              ++rep.adopted;
            }
          }
        }
        if (bad.bad_sectors != 0 || bad.unverifiable != 0) rep.bad.push_back(bad);
      }
    }
  }
  std::sort(rep.bad.begin(), rep.bad.end(),
            [](const BadLine& a, const BadLine& b) { return a.slot < b.slot; });
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

void DropDirtyLine(RecoveredMetadata& m, std::uint64_t slot) {
  const std::uint64_t spl = m.sb.geo.sectors_per_line();
  if (slot >= m.dirty.size() || m.crc.size() < (slot + 1) * spl) return;
  ApplyRecord(static_cast<std::uint32_t>(slot), kNotDirty, kNoSector, kNoCrc, spl, m.dirty, m.crc);
}

// ---- CacheJournal --------------------------------------------------------------

Expected<std::unique_ptr<CacheJournal>> CacheJournal::Attach(CacheTarget& target,
                                                             RecoveredMetadata m) {
  const MetadataGeometry& g = m.sb.geo;
  if (target.line_size() != g.line_size) {
    return MakeError("cache line size " + std::to_string(target.line_size()) +
                     " differs from the metadata's " + std::to_string(g.line_size));
  }
  if (target.capacity_lines() > g.slots) {
    return MakeError("cache capacity " + std::to_string(target.capacity_lines()) +
                     " lines exceeds the metadata's " + std::to_string(g.slots));
  }
  if (target.config().metadata_reserve != g.reserve) {
    return MakeError("cache metadata_reserve differs from the superblock's");
  }
  std::vector<std::pair<Slot, std::uint64_t>> lines;
  for (std::uint64_t s = 0; s < m.dirty.size(); ++s) {
    if (m.dirty[s] != kNotDirty) lines.emplace_back(static_cast<Slot>(s), m.dirty[s]);
  }
  std::unique_ptr<CacheJournal> j(new CacheJournal(target, std::move(m)));
  target.SetMetadataSink(j.get());
  if (target.RestoreDirtyLines(lines) != Status::kOk) {
    target.SetMetadataSink(nullptr);
    return MakeError("the recovered line map does not fit the cache (run tierlab check --repair)",
                     1);
  }
  return j;
}

CacheJournal::CacheJournal(CacheTarget& target, RecoveredMetadata m)
    : target_(target),
      meta_dev_(target.cache_device(0)),
      sb_(std::move(m.sb)),
      generation_(m.generation),
      next_seq_(m.next_seq),
      checkpoint_seq_(m.next_seq),
      durable_(std::move(m.dirty)),
      durable_crc_(std::move(m.crc)),
      touched_(durable_.size(), 0) {
  durable_.resize(sb_.geo.slots, kNotDirty);
  touched_.resize(sb_.geo.slots, 0);
  durable_crc_.resize(sb_.geo.slots * sb_.geo.sectors_per_line(), kNoCrc);
  live_crc_ = durable_crc_;
  for (std::uint32_t v : durable_) durable_dirty_ += v != kNotDirty;
}

CacheJournal::~CacheJournal() {
  target_.SetMetadataSink(nullptr);
}

void CacheJournal::Append(Slot slot, std::uint32_t line, std::uint32_t sector, std::uint32_t crc) {
  pending_.push_back(Record{slot, line, sector, crc});
  touched_[slot] = pending_base_ + pending_.size();
  const std::uint64_t spl = sb_.geo.sectors_per_line();
  if (line == kNotDirty) {
    std::fill_n(live_crc_.begin() + static_cast<std::ptrdiff_t>(slot * spl), spl, kNoCrc);
  } else if (sector != kNoSector) {
    live_crc_[slot * spl + sector] = crc;
  }
}

bool CacheJournal::VerifyLineData(Slot slot, std::uint64_t offset, const std::byte* data,
                                  std::uint64_t length) {
  const std::uint64_t sec = sb_.geo.sector_bytes;
  const std::uint64_t spl = sb_.geo.sectors_per_line();
  const std::uint64_t end = offset + length;
  bool ok = true;
  for (std::uint64_t k = (offset + sec - 1) / sec; (k + 1) * sec <= end && k < spl; ++k) {
    const std::uint32_t want = live_crc_[slot * spl + k];
    if (want == kNoCrc) continue;
    if (Crc32c(0, data + (k * sec - offset), sec) != want) {
      ++data_errors_;
      ok = false;
    }
  }
  return ok;
}

void CacheJournal::OnLineData(Slot slot, std::uint64_t line, std::uint64_t offset,
                              const std::byte* data, std::uint64_t length) {
  const std::uint64_t sec = sb_.geo.sector_bytes;
  const std::uint64_t end = offset + length;
  for (std::uint64_t k = offset / sec; k * sec < end; ++k) {
    const std::uint64_t b = k * sec;
    // A sector covered in part: its other bytes are not at hand, so its
    // checksum is no longer known.
    std::uint32_t crc = kNoCrc;
    if (b >= offset && b + sec <= end) crc = Crc32c(0, data + (b - offset), sec);
    Append(slot, static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(k), crc);
  }
}

void CacheJournal::OnLineDirty(Slot slot, std::uint64_t line) {
  // A record of OnLineData for this write maps the slot already.
  const std::uint64_t t = touched_[slot];
  if (t > pending_base_ && pending_[t - pending_base_ - 1].line == line) return;
  Append(slot, static_cast<std::uint32_t>(line));
}

void CacheJournal::OnLineClean(Slot slot, std::uint64_t /*line*/) {
  Append(slot, kNotDirty);
  want_reuse_ = true;
  ScheduleBackgroundCommit();
}

void CacheJournal::OnLineInvalidated(Slot slot, std::uint64_t /*line*/) {
  Append(slot, kNotDirty);
  want_reuse_ = true;
  ScheduleBackgroundCommit();
}

bool CacheJournal::SlotReusable(Slot slot) const {
  return durable_[slot] == kNotDirty && touched_[slot] <= pending_base_;
}

void CacheJournal::ScheduleBackgroundCommit() {
  if (committing_ || bg_scheduled_) return;
  bg_scheduled_ = true;
  target_.engine().Post([this] {
    bg_scheduled_ = false;
    if (!committing_) StartCommit();
  });
}

void CacheJournal::Commit(IoCallback done) {
  if (done) waiting_.push_back(std::move(done));
  if (!committing_) StartCommit();
}

void CacheJournal::StartCommit() {
  committing_ = true;
  want_reuse_ = false;  // the records that set it are in this batch
  in_batch_.swap(waiting_);
  waiting_.clear();
  batch_n_ = pending_.size();
  batch_status_ = Status::kOk;
  batch_is_checkpoint_ = false;
  batch_blocks_ = 0;
  // Data first: every write whose record is in the batch completed before
  // this flush is submitted, so the flush covers it.
  batch_pending_ = 1;
  for (std::size_t i = 0; i < target_.cache_device_count(); ++i) {
    ++batch_pending_;
    IoRequest r;
    r.op = IoOp::kFlush;
    target_.cache_device(i).Submit(r, [this](Status st) { OnDevicesFlushed(st); });
  }
  OnDevicesFlushed(Status::kOk);
}

void CacheJournal::OnDevicesFlushed(Status st) {
  if (st != Status::kOk && batch_status_ == Status::kOk) batch_status_ = st;
  if (--batch_pending_ != 0) return;
  if (batch_status_ != Status::kOk || batch_n_ == 0) {
    // Nothing to record (the flush alone made the data durable), or failed.
    // Defer to a later turn: this may run inside the flush's SubmitImpl path.
    target_.engine().Post([this] { FinishCommit(batch_status_); });
    return;
  }
  WriteJournal();
}

void CacheJournal::WriteJournal() {
  const std::uint64_t per = MetadataGeometry::kRecordsPerBlock;
  const std::uint64_t blocks = (batch_n_ + per - 1) / per;
  const std::uint64_t nblocks = sb_.geo.journal_blocks();
  if (next_seq_ + blocks - checkpoint_seq_ > nblocks) {
    WriteCheckpointAsync();
    return;
  }
  batch_blocks_ = blocks;
  if (buf_.size() < blocks * MetadataGeometry::kBlock) {
    buf_ = AlignedBuffer(std::max<std::uint64_t>(blocks, 16) * MetadataGeometry::kBlock);
  }
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::size_t first = b * per;
    const std::size_t n = std::min<std::size_t>(per, batch_n_ - first);
    static_assert(sizeof(Record) == MetadataGeometry::kRecordBytes);
    EncodeBlock(buf_.data() + b * MetadataGeometry::kBlock, sb_.uuid, next_seq_ + b, generation_,
                next_seq_, blocks, pending_.data() + first, n);
  }
  // Blocks sit at seq % nblocks: one write, or two where the ring wraps.
  const std::uint64_t pos = next_seq_ % nblocks;
  const std::uint64_t first_run = std::min(blocks, nblocks - pos);
  batch_pending_ = 1;
  auto submit = [this](std::uint64_t ring_pos, std::byte* data, std::uint64_t n_blocks) {
    ++batch_pending_;
    IoRequest r;
    r.op = IoOp::kWrite;
    r.flags = kIoFua;
    r.offset = sb_.geo.journal_offset + ring_pos * MetadataGeometry::kBlock;
    r.length = n_blocks * MetadataGeometry::kBlock;
    r.data = data;
    journal_bytes_written_ += r.length;
    meta_dev_.Submit(r, [this](Status st) { OnWritten(st); });
  };
  submit(pos, buf_.data(), first_run);
  if (first_run < blocks) {
    submit(0, buf_.data() + first_run * MetadataGeometry::kBlock, blocks - first_run);
  }
  OnWritten(Status::kOk);
}

void CacheJournal::WriteCheckpointAsync() {
  batch_is_checkpoint_ = true;
  std::vector<std::uint32_t> image = durable_;
  std::vector<std::uint32_t> crcs = durable_crc_;
  const MetadataGeometry& g = sb_.geo;
  for (std::size_t i = 0; i < batch_n_; ++i) {
    const Record& r = pending_[i];
    ApplyRecord(r.slot, r.line, r.sector, r.crc, g.sectors_per_line(), image, crcs);
  }
  if (buf_.size() < g.checkpoint_bytes) buf_ = AlignedBuffer(g.checkpoint_bytes);
  EncodeCheckpoint(buf_.data(), g, sb_.uuid, generation_ + 1, next_seq_, image, crcs);
  batch_pending_ = 2;
  IoRequest r;
  r.op = IoOp::kWrite;
  r.flags = kIoFua;
  r.offset = g.checkpoint_offset + ((generation_ + 1) % 2) * g.checkpoint_bytes;
  r.length = g.checkpoint_bytes;
  r.data = buf_.data();
  journal_bytes_written_ += r.length;
  meta_dev_.Submit(r, [this](Status st) { OnWritten(st); });
  OnWritten(Status::kOk);
}

void CacheJournal::OnWritten(Status st) {
  if (st != Status::kOk && batch_status_ == Status::kOk) batch_status_ = st;
  if (--batch_pending_ != 0) return;
  FinishCommit(batch_status_);
}

void CacheJournal::FinishCommit(Status st) {
  bool freed = false;
  if (st == Status::kOk && batch_n_ > 0) {
    for (std::size_t i = 0; i < batch_n_; ++i) {
      const Record& r = pending_[i];
      const std::uint32_t d = durable_[r.slot];
      if (d != kNotDirty) --durable_dirty_;
      if (r.line != kNotDirty) ++durable_dirty_;
      ApplyRecord(r.slot, r.line, r.sector, r.crc, sb_.geo.sectors_per_line(), durable_,
                  durable_crc_);
      freed = freed || r.line == kNotDirty;
    }
    if (batch_is_checkpoint_) {
      ++generation_;
      checkpoint_seq_ = next_seq_;
      ++checkpoints_;
    } else {
      next_seq_ += batch_blocks_;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(batch_n_));
    pending_base_ += batch_n_;
  }
  if (st == Status::kOk) ++commits_;
  committing_ = false;
  std::vector<IoCallback> done;
  done.swap(in_batch_);
  for (IoCallback& d : done) d(st);
  if (freed) target_.OnMetadataCommitted();
  if (!waiting_.empty()) {
    StartCommit();
  } else if (st == Status::kOk && want_reuse_) {
    ScheduleBackgroundCommit();  // slots were cleaned while this commit ran
  }
}

std::vector<std::uint32_t> CacheJournal::FinalState() const {
  std::vector<std::uint32_t> s = durable_;
  for (const Record& r : pending_) s[r.slot] = r.line;
  return s;
}

std::vector<std::uint32_t> CacheJournal::FinalCrcs() const {
  std::vector<std::uint32_t> s = durable_;
  std::vector<std::uint32_t> c = durable_crc_;
  for (const Record& r : pending_) {
    ApplyRecord(r.slot, r.line, r.sector, r.crc, sb_.geo.sectors_per_line(), s, c);
  }
  return c;
}

}  // namespace tierlab
