#include "bench/trace/TierlabBinaryReader.h"

#include "bench/trace/TierlabBinaryFormat.h"

namespace tierlab {

TierlabBinaryReader::TierlabBinaryReader(std::unique_ptr<std::istream> in, std::string name,
                                         const TraceOptions& options)
    : BinaryTraceReader(std::move(in), std::move(name), options) {
  unsigned char h[tierlab_bin::kHeaderSize];
  if (!ReadExact(h, sizeof h)) {
    Fail("truncated header (tierlab binary trace needs 32 bytes)");
    return;
  }
  if (std::memcmp(h, tierlab_bin::kMagic, 8) != 0) {
    Fail("bad magic: not a tierlab binary trace");
    return;
  }
  if (LoadLe16(h + 8) != tierlab_bin::kVersion) {
    Fail("unsupported version " + std::to_string(LoadLe16(h + 8)) + " (this build reads 1)");
    return;
  }
  if (LoadLe16(h + 10) != tierlab_bin::kRecordSize || LoadLe32(h + 12) != 0) {
    Fail("bad header: record size " + std::to_string(LoadLe16(h + 10)) + ", flags " +
         std::to_string(LoadLe32(h + 12)) + " (expected 24, 0)");
    return;
  }
  std::uint64_t count = LoadLe64(h + 16);
  Start(tierlab_bin::kRecordSize,
        count == tierlab_bin::kUnknownCount ? std::nullopt : std::optional<std::uint64_t>(count));
}

BinaryTraceReader::RecordResult TierlabBinaryReader::Decode(const unsigned char* p,
                                                            TraceRecord* record) {
  unsigned op = p[20];
  if (op > static_cast<unsigned>(IoOp::kDiscard)) return Bad("bad op " + std::to_string(op));
  if ((p[21] | p[22] | p[23]) != 0) return Bad("nonzero reserved bytes");
  record->op = static_cast<IoOp>(op);
  record->offset = LoadLe64(p + 8);
  record->length = LoadLe32(p + 16);
  if (record->offset + record->length < record->offset) return Bad("offset + length overflows");
  if (!RelativeTime(static_cast<std::int64_t>(LoadLe64(p)), 1, &record->timestamp)) {
    return Bad("timestamp out of range");
  }
  return RecordResult::kRecord;
}

}  // namespace tierlab
