#pragma once
// The on-disk header of a log segment (LogStructuredTarget): what a recovery
// scan reads to rebuild the block index from the capacity device alone.
// Encoding and decoding only; no I/O.
//
// A segment is `header_blocks` 4 KiB blocks of header followed by
// `data_slots` 4 KiB blocks of data, written in one request. The header,
// little-endian:
//
//   offset  size  field
//   0       8     magic "TLLOGSEG"
//   8       4     format version (1)
//   12      4     header_blocks
//   16      8     sequence number (segments are written, and committed, in
//                 increasing sequence; the newest copy of a block wins)
//   24      4     data_slots
//   28      4     used: data slots filled (a segment sealed early is padded)
//   32      4     CRC-32C of the data slots in use (0 when written without data)
//   36      4     CRC-32C of the header's bytes [0, 40 + 8 * used) with this
//                 field as zero
//   40      8*used  the volume block held by each used slot, in slot order
//
// A torn segment write fails one of the two CRCs, so recovery ignores it.
// Its blocks' acknowledged copies are still in the NVRAM log (released only
// once the segment write has completed), but that log is not replayed yet
// (LogStructuredTarget.h, "Shutdown and recovery"): until it is, only a
// drained log recovers everything acknowledged.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tierlab {

inline constexpr std::uint64_t kLogBlockBytes = 4096;

struct LogSegmentHeader {
  std::uint64_t sequence = 0;
  std::uint32_t data_slots = 0;
  std::uint32_t data_crc = 0;
  // The volume block in each used slot; size() is the header's `used`.
  std::vector<std::uint64_t> volume_blocks;
};

// Header blocks needed for a segment of `segment_blocks` blocks in all: the
// header must list a volume block for every data slot.
std::uint32_t LogSegmentHeaderBlocks(std::uint64_t segment_blocks);

// Writes `header` into `out` (header_blocks * 4 KiB, zero-filled first).
// `header_blocks` must be LogSegmentHeaderBlocks() of the segment and
// `header.volume_blocks.size() <= header.data_slots`.
void EncodeLogSegmentHeader(const LogSegmentHeader& header, std::uint32_t header_blocks,
                            std::span<std::byte> out);
// Same, from a slot array without copying it into a LogSegmentHeader.
void EncodeLogSegmentHeader(std::uint64_t sequence, std::uint32_t data_slots,
                            std::uint32_t data_crc, std::span<const std::uint64_t> volume_blocks,
                            std::uint32_t header_blocks, std::span<std::byte> out);

// Reads a header back; false if the bytes are not a valid header (wrong
// magic or version, a CRC mismatch, counts out of range): a slot never
// written, or a torn write.
bool DecodeLogSegmentHeader(std::span<const std::byte> in, LogSegmentHeader* out);

}  // namespace tierlab
