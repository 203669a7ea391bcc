#include "tiering/targets/LogSegmentFormat.h"

#include <cstring>

#include "tiering/core/Crc32c.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kMagic = 0x474553474f4c4c54ull;  // "TLLOGSEG" as little-endian bytes
constexpr std::uint32_t kVersion = 2;
constexpr std::size_t kFixedBytes = 48;
constexpr std::size_t kCrcOffset = 36;

void Put32(std::byte* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
void Put64(std::byte* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t Get32(const std::byte* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}
std::uint64_t Get64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::uint32_t LogSegmentHeaderBlocks(std::uint64_t segment_blocks) {
  // Listing every block of the segment over-counts by the header's own
  // blocks, which costs at most one slot's entry.
  const std::uint64_t bytes = kFixedBytes + 8 * segment_blocks;
  return static_cast<std::uint32_t>((bytes + kLogBlockBytes - 1) / kLogBlockBytes);
}

void EncodeLogSegmentHeader(std::uint64_t log_id, std::uint64_t sequence, std::uint32_t data_slots,
                            std::uint32_t data_crc, std::span<const std::uint64_t> volume_blocks,
                            std::uint32_t header_blocks, std::span<std::byte> out) {
  const std::size_t bytes = static_cast<std::size_t>(header_blocks) * kLogBlockBytes;
  std::memset(out.data(), 0, bytes);
  std::byte* p = out.data();
  Put64(p, kMagic);
  Put32(p + 8, kVersion);
  Put32(p + 12, header_blocks);
  Put64(p + 16, sequence);
  Put32(p + 24, data_slots);
  Put32(p + 28, static_cast<std::uint32_t>(volume_blocks.size()));
  Put32(p + 32, data_crc);
  Put64(p + 40, log_id);
  for (std::size_t i = 0; i < volume_blocks.size(); ++i) {
    Put64(p + kFixedBytes + 8 * i, volume_blocks[i]);
  }
  const std::size_t covered = kFixedBytes + 8 * volume_blocks.size();
  Put32(p + kCrcOffset, Crc32c(0, p, covered));
}

void EncodeLogSegmentHeader(const LogSegmentHeader& header, std::uint32_t header_blocks,
                            std::span<std::byte> out) {
  EncodeLogSegmentHeader(header.log_id, header.sequence, header.data_slots, header.data_crc,
                         header.volume_blocks, header_blocks, out);
}

bool DecodeLogSegmentHeader(std::span<const std::byte> in, LogSegmentHeader* out) {
  if (in.size() < kFixedBytes) return false;
  const std::byte* p = in.data();
  if (Get64(p) != kMagic || Get32(p + 8) != kVersion) return false;
  const std::uint32_t header_blocks = Get32(p + 12);
  const std::uint32_t data_slots = Get32(p + 24);
  const std::uint32_t used = Get32(p + 28);
  if (static_cast<std::uint64_t>(header_blocks) * kLogBlockBytes > in.size() || used > data_slots ||
      kFixedBytes + 8ull * used > static_cast<std::uint64_t>(header_blocks) * kLogBlockBytes) {
    return false;
  }
  const std::size_t covered = kFixedBytes + 8 * static_cast<std::size_t>(used);
  std::byte fixed[kFixedBytes];
  std::memcpy(fixed, p, kFixedBytes);
  Put32(fixed + kCrcOffset, 0);
  std::uint32_t crc = Crc32c(0, fixed, kFixedBytes);
  crc = Crc32c(crc, p + kFixedBytes, covered - kFixedBytes);
  if (crc != Get32(p + kCrcOffset)) return false;
  out->log_id = Get64(p + 40);
  out->sequence = Get64(p + 16);
  out->data_slots = data_slots;
  out->data_crc = Get32(p + 32);
  out->volume_blocks.resize(used);
  for (std::uint32_t i = 0; i < used; ++i)
    out->volume_blocks[i] = Get64(p + kFixedBytes + 8 * static_cast<std::size_t>(i));
  return true;
}

namespace {
constexpr std::uint64_t kLabelMagic = 0x4c424c474f4c4c54ull;  // "TLLOGLBL" as little-endian bytes
constexpr std::uint32_t kLabelVersion = 1;
constexpr std::size_t kLabelCrcOffset = 36;
}  // namespace

void EncodeLogLabel(const LogLabel& label, std::span<std::byte> out) {
  std::memset(out.data(), 0, out.size());
  std::byte* p = out.data();
  Put64(p, kLabelMagic);
  Put32(p + 8, kLabelVersion);
  Put32(p + 12, label.unit_bytes);
  Put64(p + 16, label.log_id);
  Put64(p + 24, label.segment_bytes);
  Put32(p + 32, label.data_slots);
  Put32(p + kLabelCrcOffset, Crc32c(0, p, kLabelCrcOffset));
}

bool DecodeLogLabel(std::span<const std::byte> in, LogLabel* out) {
  if (in.size() < kLabelCrcOffset + 4) return false;
  const std::byte* p = in.data();
  if (Get64(p) != kLabelMagic || Get32(p + 8) != kLabelVersion ||
      Crc32c(0, p, kLabelCrcOffset) != Get32(p + kLabelCrcOffset)) {
    return false;
  }
  out->unit_bytes = Get32(p + 12);
  out->log_id = Get64(p + 16);
  out->segment_bytes = Get64(p + 24);
  out->data_slots = Get32(p + 32);
  return true;
}

namespace {
constexpr std::uint64_t kRecordMagic = 0x43455252564e4c54ull;  // "TLNVRREC" as little-endian bytes
constexpr std::uint32_t kRecordVersion = 1;
constexpr std::size_t kRecordCrcOffset = 60;
}  // namespace

void EncodeNvramRecordHeader(const NvramRecordHeader& h, std::span<std::byte> out) {
  std::memset(out.data(), 0, out.size());
  std::byte* p = out.data();
  Put64(p, kRecordMagic);
  Put32(p + 8, kRecordVersion);
  Put32(p + 12, h.blocks);
  Put64(p + 16, h.log_id);
  Put64(p + 24, h.position);
  Put64(p + 32, h.sequence);
  Put32(p + 40, h.segment_offset);
  Put32(p + 44, h.data_crc);
  Put64(p + 48, h.first_volume_block);
  Put32(p + 56, h.unit_bytes);
  Put32(p + kRecordCrcOffset, Crc32c(0, p, kRecordCrcOffset));
}

bool DecodeNvramRecordHeader(std::span<const std::byte> in, NvramRecordHeader* out) {
  if (in.size() < kNvramRecordHeaderBytes) return false;
  const std::byte* p = in.data();
  if (Get64(p) != kRecordMagic || Get32(p + 8) != kRecordVersion) return false;
  if (Crc32c(0, p, kRecordCrcOffset) != Get32(p + kRecordCrcOffset)) return false;
  out->blocks = Get32(p + 12);
  if (out->blocks == 0) return false;
  out->log_id = Get64(p + 16);
  out->position = Get64(p + 24);
  out->sequence = Get64(p + 32);
  out->segment_offset = Get32(p + 40);
  out->data_crc = Get32(p + 44);
  out->first_volume_block = Get64(p + 48);
  out->unit_bytes = Get32(p + 56);
  return true;
}

}  // namespace tierlab
