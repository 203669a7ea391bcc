// `tierlab check [--repair]` (VolumeCheck.h).

#include "layouts/VolumeCheck.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cachedev/MetadataFile.h"
#include "cachedev/SlotPlacement.h"

namespace tierlab {
namespace fs = std::filesystem;
namespace {

// Every device: there, a file or block device, as long as it was made.
void CheckDevices(const VolumeInfo& info, const LayoutSpec& layout,
                  std::vector<std::string>& problems) {
  std::vector<std::uint64_t> expected = info.device_bytes;
  if (expected.size() != info.all_paths.size()) {
    expected.clear();  // an older volume.json: the tiers' capacities
    for (const auto& t : layout.tiers) {
      for (std::size_t i = 0; i < t.paths.size(); ++i) expected.push_back(t.capacity);
    }
  }
  for (std::size_t k = 0; k < info.all_paths.size(); ++k) {
    const std::string& p = info.all_paths[k];
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      problems.push_back(p + ": " +
                         (errno == ENOENT ? std::string("missing") : std::strerror(errno)));
      continue;
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
      problems.push_back(p + ": not a regular file or block device");
      continue;
    }
    const std::uint64_t bytes = PathBytes(p);
    if (k < expected.size() && bytes < expected[k]) {
      problems.push_back(p + ": " + std::to_string(bytes) + " bytes, expected " +
                         std::to_string(expected[k]) + " (truncated?)");
    }
  }
}

// The metadata and the dirty data; the lines whose data must match and
// does not go to `bad_data`.
void CheckMetadata(const VolumeInfo& info, bool repair, VolumeCheckReport& r,
                   std::vector<BadLine>& bad_data) {
  auto m = ReadVolumeMetadata(info);
  if (!m.ok()) {
    r.problems.push_back(m.error().message);
    // The superblock has a copy on every other cache device.
    if (repair && info.cache_paths.size() > 1) {
      auto copy = ReadSuperblock(info.cache_paths[1]);
      if (copy.ok() && FormatUuid(copy->uuid) == info.uuid) {
        copy->device_index = 0;
        if (WriteSuperblock(info.cache_paths[0], *copy).ok()) {
          r.superblock_restored_from = info.cache_paths[1];
          m = ReadVolumeMetadata(info);
          if (m.ok()) r.problems.pop_back();
        }
      }
    }
  }
  if (!m.ok()) return;
  for (const auto& p : m->report.problems) r.problems.push_back(p);
  // Line map against the devices: every dirty slot inside its device.
  const SlotPlacement place(static_cast<std::uint32_t>(info.cache_paths.size()),
                            m->sb.placement_run);
  for (std::uint64_t s = 0; s < m->dirty.size(); ++s) {
    if (m->dirty[s] == kNotDirty) continue;
    const auto slot = static_cast<std::uint32_t>(s);
    const std::string& dev = info.cache_paths[place.Device(slot)];
    const std::uint64_t end =
        m->sb.geo.reserve + (std::uint64_t{place.Index(slot)} + 1) * m->sb.geo.line_size;
    if (end > PathBytes(dev) && fs::is_regular_file(dev)) {
      r.problems.push_back("slot " + std::to_string(s) + " lies beyond the end of " + dev);
    }
  }
  // Dirty data against its checksums: a lost or torn write on a cache
  // device (the origin never saw that data: repair cannot bring it back).
  auto data = VerifyDirtyData(*m, info.cache_paths);
  if (!data.ok()) {
    r.problems.push_back(data.error().message);
  } else {
    const std::uint64_t ls = m->sb.geo.line_size;
    for (const BadLine& b : data->bad) {
      std::string what = "line " + std::to_string(b.line) + " (volume offset " +
                         std::to_string(std::uint64_t{b.line} * ls) + ", slot " +
                         std::to_string(b.slot) + "): ";
      if (b.bad_sectors != 0) {
        what += std::to_string(b.bad_sectors) + " sector(s) differ from their data checksum";
      }
      if (b.unverifiable != 0) {
        what += std::string(b.bad_sectors != 0 ? ", " : "") + std::to_string(b.unverifiable) +
                " sector(s) without a checksum";
      }
      what += ", first at line offset " +
              std::to_string(std::uint64_t{b.sector} * m->sb.geo.sector_bytes);
      if (DataMustMatch(*m, b.slot)) {
        r.problems.push_back(what + (m->clean ? " (a lost or torn write on the cache device)"
                                              : " (its slot's state comes from before a damaged "
                                                "journal block)"));
        bad_data.push_back(b);
      } else {
        // After a crash: possibly a write acknowledged after the last
        // flush (allowed), possibly a lost or torn one; no way to tell.
        r.warnings.push_back(what);
      }
    }
    r.data = std::move(data.value());
  }
  r.metadata = std::move(m.value());
}

// Keeps what is certain: drops slots beyond the devices or the volume, and
// for a line dirty in two slots keeps the lower slot; drops lines whose data
// fails its checksum. Then a fresh checkpoint (a new generation: the journal
// tail is not replayed again).
void Repair(const VolumeInfo& info, const std::vector<BadLine>& bad_data, VolumeCheckReport& r) {
  RecoveredMetadata& meta = *r.metadata;
  const std::uint64_t ls = meta.sb.geo.line_size;
  const std::uint64_t lines = (meta.sb.origin_bytes + ls - 1) / ls;
  std::vector<bool> seen(lines, false);
  const SlotPlacement place(static_cast<std::uint32_t>(info.cache_paths.size()),
                            meta.sb.placement_run);
  for (std::uint64_t s = 0; s < meta.dirty.size(); ++s) {
    std::uint32_t& l = meta.dirty[s];
    if (l == kNotDirty) continue;
    const auto slot = static_cast<std::uint32_t>(s);
    const std::uint64_t end = meta.sb.geo.reserve + (std::uint64_t{place.Index(slot)} + 1) * ls;
    if (l >= lines || seen[l] || end > PathBytes(info.cache_paths[place.Device(slot)])) {
      l = kNotDirty;
      ++r.dropped;
      continue;
    }
    seen[l] = true;
  }
  // Dirty lines whose data fails its checksum: the cache device does not
  // hold what was acknowledged, and the origin holds an older version.
  // Dropping them serves that older version from now on; the loss is
  // reported line by line and the check still fails.
  for (const BadLine& b : bad_data) {
    if (meta.dirty[b.slot] == kNotDirty) continue;
    r.lost.push_back(
        {b.line, std::uint64_t{b.line} * ls, (std::uint64_t{b.line} + 1) * ls - 1,
         b.bad_sectors != 0 ? LostLine::Why::kChecksumFailed : LostLine::Why::kUnverifiable});
    DropDirtyLine(meta, b.slot);
    ++r.dropped;
  }
  // Lines a damaged journal block named that are not dirty now: their
  // newest acknowledged data (if the block held it) is not in the map.
  r.lost_lines = bad_data.size();
  if (!meta.lines_at_risk.empty()) {
    std::vector<bool> dirty_now(lines, false);  // or reported lost above
    for (std::uint32_t l : meta.dirty) {
      if (l != kNotDirty && l < lines) dirty_now[l] = true;
    }
    for (const BadLine& b : bad_data) {
      if (b.line < lines) dirty_now[b.line] = true;
    }
    for (std::uint32_t l : meta.lines_at_risk) {
      if (l >= lines || dirty_now[l]) continue;
      const std::uint64_t first = std::uint64_t{l} * ls;
      r.lost.push_back({l, first, first + ls - 1, LostLine::Why::kDamagedJournal});
      ++r.lost_lines;
    }
  }
  // Above every generation on the device, into both copies: no journal
  // block left there matches it, and no copy keeps content not trusted.
  const std::uint64_t gen = meta.highest_generation + 1, last_gen = gen + 1;
  for (std::uint64_t g = gen; g <= last_gen; ++g) {
    auto w = WriteCheckpoint(info.cache_paths[0], meta.sb, g, meta.next_seq, meta.dirty, meta.crc,
                             meta.clean);
    if (!w.ok()) {
      r.failure = MakeError(w.error().message, ErrorKind::kIo);
      return;
    }
  }
  r.repaired = true;
  r.repair_generation = last_gen;
  auto again = ReadVolumeMetadata(info);
  r.repair_verified = again.ok() && again->report.problems.empty();
  r.salvaged = r.lost_lines != 0 || !meta.unproven.empty();
}

}  // namespace

VolumeCheckReport CheckVolume(VolumeInfo info, bool repair) {
  VolumeCheckReport r;
  FileLock lock;
  std::vector<FileLock> device_locks;
  if (repair) {
    if (auto o = RequireOwnPlace(info); !o.ok()) {
      r.failure = o.error();
      return r;
    }
    auto l = LockVolume(info, "check --repair");
    if (!l.ok()) {
      r.failure = MakeError(l.error().message + "; stop it first", l.error().kind);
      return r;
    }
    lock = std::move(l.value());
    auto d = LockVolumeDevices(info);
    if (!d.ok()) {
      r.failure = d.error();
      return r;
    }
    device_locks = std::move(d.value());
    if (info.place_stale) {
      if (auto p = RecordVolumePlace(info); !p.ok()) {
        r.failure = MakeError(p.error().message, ErrorKind::kIo);
        return r;
      }
    }
  } else {
    r.in_use = VolumeLockHolder(info);
    if (info.place == VolumePlace::kCopy) r.copy_of = info.recorded_dir;
  }
  auto layout = ParseLayoutJson(info.layout, info.dir + "/volume.json");
  if (!layout.ok()) {
    r.failure = MakeError(layout.error().message, ErrorKind::kInconsistent);
    return r;
  }
  CheckDevices(info, *layout, r.problems);
  std::vector<BadLine> bad_data;
  if (!info.cache_paths.empty()) CheckMetadata(info, repair, r, bad_data);
  if (repair && r.metadata && !r.problems.empty()) Repair(info, bad_data, r);
  return r;
}

}  // namespace tierlab
