#pragma once
// What a volume's blocks should hold, for fio's verify: every write of a job
// with `verify` fills its buffer with content derived from (the job's seed,
// the write's serial number, the block's offset), and the oracle records
// which write last covered each block. Reading a block back, the expected
// content is regenerated and compared byte for byte, so a block that came
// back from the wrong place, from an older write or damaged is found, with
// its offset. Writes of jobs without verify make their blocks unknown
// (never reported, never checked).
//
// fio writes a header (magic, offset, checksum) into each block and checks
// the checksum the job names (crc32c, md5...). tierlab compares every byte
// against the content it wrote, which finds everything a checksum finds;
// the data on the device is tierlab's, not fio's format, so fio cannot
// verify what tierlab wrote, nor tierlab what fio wrote.
//
// With verify_pattern (fio's), a job's writes carry the pattern from each
// write's first byte (FioPattern.h) instead: fio's exact bytes for
// verify=pattern; for the other methods, where fio puts its header at the
// start of every verify_interval, tierlab puts its own (the offset there, 8
// bytes, little-endian), so a block read from the wrong place is still
// found.
//
// Memory: one map entry per run of blocks written by one write (a few tens
// of bytes each), as fio keeps one entry per logged write.
//
// Threading: the run's engine thread.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <vector>

#include "bench/workload/FioPattern.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

class VerifyOracle {
 public:
  // `block`: the volume's block size, the unit of content and of checks.
  explicit VerifyOracle(std::uint32_t block) : block_(block) {}

  // A write of [offset, offset + length) by a verifying job with `seed`:
  // fills `buf` (when not null) and records the write. Returns its serial.
  std::uint64_t RecordWrite(std::uint64_t seed, std::uint64_t offset, std::uint64_t length,
                            std::byte* buf);
  // A job's verify_pattern: the pattern, the verify_interval its headers
  // start at (from each write's first byte), and whether it has headers
  // (not with fio's verify=pattern). Returns the style's id for
  // RecordPatternWrite.
  struct PatternStyle {
    FioPattern pattern;
    std::uint64_t interval = 0;  // > 0
    bool header = true;
  };
  std::uint32_t AddPatternStyle(PatternStyle style);
  // As RecordWrite, for a write of a job with that pattern style.
  std::uint64_t RecordPatternWrite(std::uint32_t style, std::uint64_t offset, std::uint64_t length,
                                   std::byte* buf);
  // A write whose content the oracle does not know: its blocks become unknown.
  void Forget(std::uint64_t offset, std::uint64_t length);

  // Checks what a read of [offset, offset + length) returned. Blocks never
  // written by a verifying job are not checked. Returns the offset of the
  // first block that differs from what was written, if any; `checked`
  // (if set) gets the bytes compared.
  // With `read_issued` (fio's verify_write_sequence=0), blocks whose newest
  // write landed after the read was issued, or has not landed, are not
  // checked: the read may have raced it.
  std::optional<std::uint64_t> Check(std::uint64_t offset, std::uint64_t length,
                                     const std::byte* buf, std::uint64_t* checked = nullptr,
                                     std::optional<Nanos> read_issued = std::nullopt) const;
  // The write `serial` (RecordWrite's) over [offset, offset + length) has
  // completed at `now`.
  void Landed(std::uint64_t serial, std::uint64_t offset, std::uint64_t length, Nanos now);

 private:
  struct Piece {
    std::uint64_t end = 0;
    std::uint64_t seed = 0;
    std::uint64_t serial = 0;
    std::uint64_t origin = 0;   // the write's first byte (patterns start there)
    std::uint32_t style = 0;    // 0: tierlab's content, else styles_[style - 1]
    Nanos landed = kNotLanded;  // when the write completed
  };
  static constexpr Nanos kNotLanded = std::numeric_limits<Nanos>::max();
  std::uint64_t Record(const Piece& piece, std::uint64_t offset, std::byte* buf);
  // Removes [offset, end) from the map, splitting the pieces it cuts.
  void Cut(std::uint64_t offset, std::uint64_t end);
  // One block's content, as `piece` wrote it.
  void Fill(const Piece& piece, std::uint64_t block_offset, std::byte* out) const;
  void FillPattern(const PatternStyle& style, std::uint64_t origin, std::uint64_t block_offset,
                   std::byte* out) const;

  std::uint32_t block_;
  std::uint64_t next_serial_ = 1;
  std::map<std::uint64_t, Piece> pieces_;  // by start offset, non-overlapping
  std::vector<PatternStyle> styles_;
};

// The extents one job wrote, to read back in its verify phase (fio's
// do_verify) or while it writes (verify_backlog): non-overlapping, a later
// write replacing what it covers. Read back in offset order, as fio's
// sorted log of a job without a random map, or in the order written, as
// fio's list where its random map keeps a pass's writes apart (iolog.c's
// log_io_piece).
class WrittenExtents {
 public:
  explicit WrittenExtents(bool in_write_order = false) : in_write_order_(in_write_order) {}

  // A write issued; until Landed(returned id) it is in flight.
  std::uint64_t Add(std::uint64_t offset, std::uint64_t length);
  void Landed(std::uint64_t id) { in_flight_.erase(id); }
  // The first extent (lowest offset, or oldest write), taken out, unless its
  // write is still in flight (fio's get_next_verify).
  std::optional<std::pair<std::uint64_t, std::uint64_t>> TakeFirst();
  // In offset (or write) order, each at most `max_length` bytes (a slot's
  // buffer).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Pieces(std::uint64_t max_length) const;
  bool empty() const { return extents_.empty(); }
  std::size_t size() const { return extents_.size(); }

 private:
  struct Extent {
    std::uint64_t end = 0;
    std::uint64_t id = 0;  // the write's
  };
  std::map<std::uint64_t, Extent> extents_;  // by start
  std::set<std::uint64_t> in_flight_;        // ids of writes not yet completed
  std::uint64_t next_id_ = 1;
  bool in_write_order_ = false;
  // In write order: (id, start) of every extent, oldest first; entries whose
  // extent was since cut away or moved are skipped when they come up.
  std::priority_queue<std::pair<std::uint64_t, std::uint64_t>,
                      std::vector<std::pair<std::uint64_t, std::uint64_t>>, std::greater<>>
      by_age_;
};

}  // namespace tierlab
