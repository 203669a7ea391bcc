#include "bench/trace/VscsiReader.h"

#include <cstdio>

namespace tierlab {

namespace {

constexpr std::size_t kV1Size = 32;
constexpr std::size_t kV2Size = 40;

int V1Version(const unsigned char* r) {
  return LoadLe16(r + 14) >> 8;
}
int V2Version(const unsigned char* r) {
  return LoadLe16(r + 2) >> 8;
}

}  // namespace

int VscsiReader::DetectVersion(const unsigned char* head, std::size_t size) {
  auto all = [&](std::size_t record_size, int (*version)(const unsigned char*), int want) {
    std::size_t n = std::min<std::size_t>(2, size / record_size);
    if (n == 0) return false;
    for (std::size_t i = 0; i < n; ++i) {
      if (version(head + i * record_size) != want) return false;
    }
    return true;
  };
  if (all(kV2Size, V2Version, 2)) return 2;
  if (all(kV1Size, V1Version, 1)) return 1;
  return 0;
}

VscsiReader::VscsiReader(std::unique_ptr<std::istream> in, std::string name,
                         const TraceOptions& options)
    : BinaryTraceReader(std::move(in), std::move(name), options) {
  const unsigned char* head = nullptr;
  std::size_t got = Peek(&head, 2 * kV2Size);
  if (got == 0) {
    Start(kV1Size, std::nullopt);  // an empty file is an empty trace
    return;
  }
  version_ = DetectVersion(head, got);
  if (version_ == 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  "not a vscsi trace: version fields 0x%04x (v1 layout) / 0x%04x (v2 layout)",
                  got >= kV1Size ? LoadLe16(head + 14) : 0u, got >= 4 ? LoadLe16(head + 2) : 0u);
    Fail(buf);
    return;
  }
  Start(version_ == 1 ? kV1Size : kV2Size, std::nullopt);
}

BinaryTraceReader::RecordResult VscsiReader::Decode(const unsigned char* p, TraceRecord* record) {
  std::uint16_t cmd = 0;
  std::uint32_t length = 0;
  std::uint64_t lbn = 0;
  std::uint64_t ts_us = 0;
  if (version_ == 1) {
    if (V1Version(p) != 1) return Bad("version field is not 1");
    length = LoadLe32(p + 4);
    cmd = LoadLe16(p + 12);
    lbn = LoadLe64(p + 16);
    ts_us = LoadLe64(p + 24);
  } else {
    if (V2Version(p) != 2) return Bad("version field is not 2");
    cmd = LoadLe16(p + 0);
    length = LoadLe32(p + 8);
    lbn = LoadLe64(p + 16);
    ts_us = LoadLe64(p + 24);
  }
  switch (cmd) {
    case 0x08:
    case 0x28:
    case 0xa8:
    case 0x88: record->op = IoOp::kRead; break;
    case 0x0a:
    case 0x2a:
    case 0xaa:
    case 0x8a: record->op = IoOp::kWrite; break;
    case 0x35:
    case 0x91: record->op = IoOp::kFlush; break;
    case 0x42: record->op = IoOp::kDiscard; break;
    default: {
      char buf[48];
      std::snprintf(buf, sizeof buf, "unsupported SCSI command 0x%02x", cmd);
      return Bad(buf);
    }
  }
  if (record->op == IoOp::kFlush) {
    record->offset = 0;
    record->length = 0;
  } else {
    std::uint64_t offset = 0;
    if (__builtin_mul_overflow(lbn, std::uint64_t{options_.lba_unit}, &offset) ||
        offset + length < offset) {
      return Bad("LBN out of range");
    }
    record->offset = offset;
    record->length = length;
  }
  if (ts_us > static_cast<std::uint64_t>(INT64_MAX) ||
      !RelativeTime(static_cast<std::int64_t>(ts_us), kMicro, &record->timestamp)) {
    return Bad("timestamp out of range");
  }
  return RecordResult::kRecord;
}

}  // namespace tierlab
