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
// Memory: one map entry per run of blocks written by one write (a few tens
// of bytes each), as fio keeps one entry per logged write.
//
// Threading: the run's engine thread.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace tierlab {

class VerifyOracle {
 public:
  // `block`: the volume's block size, the unit of content and of checks.
  explicit VerifyOracle(std::uint32_t block) : block_(block) {}

  // A write of [offset, offset + length) by a verifying job with `seed`:
  // fills `buf` (when not null) and records the write. Returns its serial.
  std::uint64_t RecordWrite(std::uint64_t seed, std::uint64_t offset, std::uint64_t length,
                            std::byte* buf);
  // A write whose content the oracle does not know: its blocks become unknown.
  void Forget(std::uint64_t offset, std::uint64_t length);

  // Checks what a read of [offset, offset + length) returned. Blocks never
  // written by a verifying job are not checked. Returns the offset of the
  // first block that differs from what was written, if any; `checked`
  // (if set) gets the bytes compared.
  std::optional<std::uint64_t> Check(std::uint64_t offset, std::uint64_t length,
                                     const std::byte* buf, std::uint64_t* checked = nullptr) const;

 private:
  struct Piece {
    std::uint64_t end = 0;
    std::uint64_t seed = 0;
    std::uint64_t serial = 0;
  };
  // Removes [offset, end) from the map, splitting the pieces it cuts.
  void Cut(std::uint64_t offset, std::uint64_t end);
  void Fill(std::uint64_t seed, std::uint64_t serial, std::uint64_t block_offset,
            std::byte* out) const;

  std::uint32_t block_;
  std::uint64_t next_serial_ = 1;
  std::map<std::uint64_t, Piece> pieces_;  // by start offset, non-overlapping
};

// The extents one job wrote, to read back in its verify phase (fio's
// do_verify): non-overlapping, a later write replacing what it covers.
class WrittenExtents {
 public:
  void Add(std::uint64_t offset, std::uint64_t length);
  // In offset order, each at most `max_length` bytes (a slot's buffer).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Pieces(std::uint64_t max_length) const;
  bool empty() const { return extents_.empty(); }

 private:
  std::map<std::uint64_t, std::uint64_t> extents_;  // start -> end
};

}  // namespace tierlab
