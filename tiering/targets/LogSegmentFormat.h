#pragma once
// The log's on-media formats (LogStructuredTarget): the label at the start
// of the NVRAM device, the header of a segment on the capacity device and
// the header of a record in the NVRAM log, what recovery reads to rebuild
// the block index. Encoding and decoding only; no I/O. All carry the log's
// id, so segments and records another log left on a reused device are
// ignored.
//
// The label is the NVRAM device's first 4 KiB, written when a log is
// created on the devices (LogStructuredTarget::Recover finding none):
//
//   offset  size  field
//   0       8     magic "TLLOGLBL"
//   8       4     format version (1)
//   12      4     NVRAM unit bytes
//   16      8     log id
//   24      8     segment bytes
//   32      4     data slots per segment
//   36      4     CRC-32C of bytes [0, 36)
//
// A segment is `header_blocks` 4 KiB blocks of header followed by
// `data_slots` 4 KiB blocks of data, written in one request. The header,
// little-endian:
//
//   offset  size  field
//   0       8     magic "TLLOGSEG"
//   8       4     format version (2)
//   12      4     header_blocks
//   16      8     sequence number (segments are written, and committed, in
//                 increasing sequence; the newest copy of a block wins)
//   24      4     data_slots
//   28      4     used: data slots filled (a segment sealed early is padded)
//   32      4     CRC-32C of the data slots in use (0 when written without data)
//   36      4     CRC-32C of the header's bytes [0, 48 + 8 * used) with this
//                 field as zero
//   40      8     log id
//   48      8*used  the volume block held by each used slot, in slot order
//
// A torn segment write fails one of the two CRCs, so recovery ignores it;
// its blocks' acknowledged copies are still in the NVRAM log, released only
// once the segment write has completed.
//
// An NVRAM record is one write request's blocks appended to one segment:
// a header of one NVRAM unit (the NVRAM device's block size, 512 bytes to
// 4 KiB) followed by the blocks, written in one request, never wrapping
// round the ring. The header, little-endian:
//
//   offset  size  field
//   0       8     magic "TLNVRREC"
//   8       4     format version (1)
//   12      4     blocks: 4 KiB data blocks that follow
//   16      8     log id
//   24      8     position: the record's first unit counted from the log's
//                 first write (its place in the ring is position mod units)
//   32      8     sequence of the segment the blocks were appended to
//   40      4     the segment's data slot holding the first block
//   44      4     CRC-32C of the blocks (0 when written without data)
//   48      8     the first block's volume block (the rest follow it)
//   56      4     unit bytes
//   60      4     CRC-32C of bytes [0, 60)
//
// A torn record fails a CRC: its write was not acknowledged.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tierlab {

inline constexpr std::uint64_t kLogBlockBytes = 4096;

struct LogSegmentHeader {
  std::uint64_t log_id = 0;
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
void EncodeLogSegmentHeader(std::uint64_t log_id, std::uint64_t sequence, std::uint32_t data_slots,
                            std::uint32_t data_crc, std::span<const std::uint64_t> volume_blocks,
                            std::uint32_t header_blocks, std::span<std::byte> out);

// Reads a header back; false if the bytes are not a valid header (wrong
// magic or version, a CRC mismatch, counts out of range): a slot never
// written, or a torn write.
bool DecodeLogSegmentHeader(std::span<const std::byte> in, LogSegmentHeader* out);

struct LogLabel {
  std::uint64_t log_id = 0;
  std::uint32_t unit_bytes = 0;
  std::uint64_t segment_bytes = 0;
  std::uint32_t data_slots = 0;
};
// One 4 KiB block, zero-filled beyond the label.
void EncodeLogLabel(const LogLabel& label, std::span<std::byte> out);
bool DecodeLogLabel(std::span<const std::byte> in, LogLabel* out);

inline constexpr std::size_t kNvramRecordHeaderBytes = 64;

struct NvramRecordHeader {
  std::uint64_t log_id = 0;
  std::uint64_t position = 0;
  std::uint64_t sequence = 0;
  std::uint32_t segment_offset = 0;
  std::uint32_t blocks = 0;
  std::uint64_t first_volume_block = 0;
  std::uint32_t data_crc = 0;
  std::uint32_t unit_bytes = 0;
};

// Writes `header` into `out` (one unit: at least kNvramRecordHeaderBytes,
// zero-filled beyond them).
void EncodeNvramRecordHeader(const NvramRecordHeader& header, std::span<std::byte> out);
// Reads a header back; false if the bytes are not one (magic, version,
// CRC, no blocks).
bool DecodeNvramRecordHeader(std::span<const std::byte> in, NvramRecordHeader* out);

}  // namespace tierlab
