// Offline recovery (MetadataRecovery.h): checkpoint selection, journal
// replay with damage detection, line-map checks, and the data check.

#include "cachedev/MetadataRecovery.h"

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "cachedev/MetadataFile.h"
#include "cachedev/SlotPlacement.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/Crc32c.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

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
// torn tail from damage (MetadataRecovery.h):
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
  // `ring`: the journal area; `lost_checkpoint`: the other checkpoint copy
  // (as it reads), whose lines are at risk if it turns out
  // to have been the newest; `volume_lines`: 0 unchecked.
  JournalReplay(RecoveredMetadata& m, const std::byte* ring, const std::byte* lost_checkpoint,
                std::uint64_t volume_lines)
      : m_(m),
        g_(m.sb.geo),
        ring_(ring),
        lost_checkpoint_(lost_checkpoint),
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
      const auto [slot, line, sector, crc] = BlockRecord(p, r);
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
      const JournalRecord rec = BlockRecord(p, r);
      const std::uint32_t slot = rec.slot;
      const std::uint32_t line = rec.line;
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
      const std::uint32_t line = CheckpointLine(lost_checkpoint_, s);
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
  const std::byte* lost_checkpoint_;
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
  MetadataFd fd(OpenMetadata(path, O_RDONLY));
  if (fd.get() < 0) return MakeError(ErrnoMessage(path, "open"), ErrorKind::kIo);

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
    return MakeError(path + ": no valid checkpoint (A: " + why(0) + "; B: " + why(1) + ")",
                     ErrorKind::kInconsistent);
  }
  const int other = 1 - use;
  m.generation = v[use].generation;
  m.next_seq = v[use].next_seq;
  m.clean = v[use].clean;
  m.highest_generation = std::max(m.generation, v[other].valid ? v[other].generation : 0);
  m.report.checkpoint_generation = m.generation;
  DecodeCheckpointMaps(cps.data() + use * g.checkpoint_bytes, g, m.dirty, m.crc);

  what = "reading the journal";
  if (auto r = NeedBytes(fd.get(), path, what, g.journal_offset + g.journal_bytes); !r.ok()) {
    return r.error();
  }
  AlignedBuffer ring(g.journal_bytes);
  if (auto r = ReadRegion(fd.get(), path, what, ring.data(), ring.size(), g.journal_offset);
      !r.ok()) {
    return r.error();
  }
  const std::byte* other_copy = cps.data() + other * g.checkpoint_bytes;
  const std::uint64_t newer = JournalReplay(m, ring.data(), other_copy, volume_lines).Run();
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
  if (n == 0) return MakeError("no cache device to check", ErrorKind::kInput);
  const std::uint64_t spl = g.sectors_per_line();
  const std::uint64_t slots = std::min<std::uint64_t>(m.dirty.size(), m.crc.size() / spl);
  // Per device, runs of device-local slots read in chunks of about 1 MiB,
  // from the first dirty slot of a chunk to its last.
  const std::uint64_t chunk = std::max<std::uint64_t>(1, kMiB / g.line_size);
  AlignedBuffer buf(chunk * g.line_size);
  const SlotPlacement place(static_cast<std::uint32_t>(n), m.sb.placement_run);
  for (std::uint64_t dev = 0; dev < n; ++dev) {
    const std::string& path = cache_paths[dev];
    MetadataFd fd(OpenMetadata(path, O_RDONLY));
    if (fd.get() < 0) return MakeError(ErrnoMessage(path, "open"), ErrorKind::kIo);
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

}  // namespace tierlab
