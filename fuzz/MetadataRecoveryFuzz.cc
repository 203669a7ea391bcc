// libFuzzer target for the cache metadata reader (superblock, checkpoints,
// journal replay, dirty-data check): what `serve`, `status` and `check` read
// from a cache device that may be damaged or hostile. See fuzz/README.md.
//
// Random bytes would almost never carry a valid superblock checksum, so the
// target builds a small valid image and lets the input steer it:
//   - the first bytes choose superblock fields (slots, line size, device
//     index/count, origin size, placement run), encoded with a valid checksum
//     whether sensible or not (the "CRC-valid but absurd" case);
//   - the next ones become journal blocks (seq, generation, commit span and
//     records, all as given), encoded with valid checksums;
//   - the rest is XORed over the image at input-chosen offsets (damage), and
//     one byte may cut the file short.
// Recovery must answer with a value (never crash, hang or allocate beyond the
// geometry it checked), and what it accepts must be self-consistent.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cachedev/MetadataFormat.h"
#include "cachedev/MetadataRecovery.h"
#include "fuzz/FuzzInput.h"

namespace {

using tierlab::JournalRecord;
using tierlab::MetadataGeometry;

using tierlab::fuzz::Input;

// One scratch file, reused (recovery reads a path) and removed at exit.
class ScratchFile {
 public:
  ScratchFile() {
    // tmpfs where there is one: every input rewrites the file.
    for (const char* dir : {"/dev/shm", "/tmp"}) {
      std::string tmpl = std::string(dir) + "/tierlab-metafuzz-XXXXXX";
      const int fd = mkstemp(tmpl.data());
      if (fd < 0) continue;
      close(fd);
      path_ = tmpl;
      return;
    }
    std::abort();
  }
  ~ScratchFile() { unlink(path_.c_str()); }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  const std::uint8_t shape = in.Take<std::uint8_t>();

  // A small geometry by default; absurd fields where the input asks.
  std::uint64_t slots = 1 + in.Take<std::uint8_t>() % 64;
  std::uint64_t line_size = 4096ull << (in.Take<std::uint8_t>() % 3);
  tierlab::Superblock sb;
  sb.uuid[0] = 0x5a;
  sb.geo = MetadataGeometry::For(line_size, slots);
  sb.origin_bytes = slots * line_size * 4;
  sb.placement_run = 1;
  if (shape & 1) sb.geo.slots = in.Take<std::uint64_t>();
  if (shape & 2) sb.geo.line_size = in.Take<std::uint64_t>();
  if (shape & 4) sb.origin_bytes = in.Take<std::uint64_t>();
  if (shape & 8) {
    sb.device_index = in.Take<std::uint32_t>();
    sb.device_count = in.Take<std::uint32_t>();
  }
  if (shape & 16) sb.placement_run = in.Take<std::uint32_t>();
  if (shape & 32) sb.geo.journal_bytes = in.Take<std::uint32_t>();

  // The image holds what the sensible geometry needs (metadata and data);
  // whatever the fields claim is the reader's to check against the size.
  const MetadataGeometry real = MetadataGeometry::For(line_size, slots);
  std::vector<std::byte> image(real.reserve + slots * line_size);
  if (!tierlab::EncodeSuperblock(sb, image.data()).ok()) return 0;
  const std::vector<std::uint32_t> dirty(slots, tierlab::kNotDirty);
  tierlab::EncodeCheckpoint(image.data() + real.checkpoint_offset, real, sb.uuid, 1, 1, dirty, {});

  // Journal blocks from the input, with valid checksums.
  const std::uint64_t blocks = in.Take<std::uint8_t>() % 8;
  for (std::uint64_t b = 0; b < blocks && b < real.journal_blocks(); ++b) {
    const auto seq = in.Take<std::uint8_t>();
    const auto generation = in.Take<std::uint8_t>();
    const auto first = in.Take<std::uint8_t>();
    const auto span = in.Take<std::uint8_t>();
    JournalRecord recs[4];
    const std::size_t n = in.Take<std::uint8_t>() % 5;
    for (std::size_t r = 0; r < n; ++r) {
      recs[r] = {in.Take<std::uint32_t>() % (2 * static_cast<std::uint32_t>(slots)),
                 in.Take<std::uint32_t>(), in.Take<std::uint8_t>(), in.Take<std::uint32_t>()};
      if (recs[r].sector == 0xff) recs[r].sector = tierlab::kNoSector;
    }
    tierlab::EncodeBlock(image.data() + real.journal_offset + b * MetadataGeometry::kBlock, sb.uuid,
                         seq, generation, first, span, recs, n);
  }

  // Damage: XOR runs of the remaining input over the image.
  while (!in.empty()) {
    const std::uint64_t at = in.Take<std::uint32_t>() % image.size();
    const std::size_t len = 1 + in.Take<std::uint8_t>() % 16;
    for (std::size_t k = 0; k < len && at + k < image.size(); ++k) {
      image[at + k] ^= static_cast<std::byte>(in.Take<std::uint8_t>());
    }
  }
  std::size_t file_bytes = image.size();
  if (shape & 64) file_bytes = file_bytes * (shape & 15) / 16;  // a short file

  static const ScratchFile scratch;
  const std::string& path = scratch.path();
  const int fd = open(path.c_str(), O_WRONLY | O_TRUNC);
  if (fd < 0) std::abort();
  const ssize_t w = write(fd, image.data(), file_bytes);
  close(fd);
  if (w != static_cast<ssize_t>(file_bytes)) std::abort();

  const std::uint64_t volume_lines = slots * 4;
  auto m = tierlab::RecoverMetadata(path, volume_lines);
  if (!m.ok()) {
    if (m.error().message.empty()) std::abort();  // errors must say something
    return 0;
  }
  // What recovery accepted is consistent with the superblock it checked.
  const std::uint64_t spl = m->sb.geo.sectors_per_line();
  if (m->dirty.size() != m->sb.geo.slots) std::abort();
  if (!m->crc.empty() && m->crc.size() != m->sb.geo.slots * spl) std::abort();
  std::uint64_t dirty_lines = 0;
  for (const std::uint32_t line : m->dirty) {
    if (line == tierlab::kNotDirty) continue;
    // A line beyond the volume may stand in the map only as a reported problem.
    if (line >= volume_lines && m->report.problems.empty()) std::abort();
    ++dirty_lines;
  }
  if (dirty_lines != m->report.dirty_lines) std::abort();
  auto check = tierlab::VerifyDirtyData(*m, {path});
  if (!check.ok() && check.error().message.empty()) std::abort();
  return 0;
}
