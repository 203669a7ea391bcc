#include "bench/trace/KeyTraceReader.h"

namespace tierlab {

KeyTraceReader::KeyTraceReader(std::unique_ptr<std::istream> in, std::string name,
                               const TraceOptions& options, int key_bytes)
    : BinaryTraceReader(std::move(in), std::move(name), options), key_bytes_(key_bytes) {
  Start(static_cast<std::size_t>(key_bytes), std::nullopt, PartialTail::kBadRecord);
}

BinaryTraceReader::RecordResult KeyTraceReader::Decode(const unsigned char* p,
                                                       TraceRecord* record) {
  const std::uint64_t key = key_bytes_ == 4 ? LoadLe32(p) : LoadLe64(p);
  const std::uint64_t size = options_.object_size;
  std::uint64_t offset = 0;
  if (__builtin_mul_overflow(key, size, &offset) || offset + size < offset) {
    return Bad("key " + std::to_string(key) + " out of range at object size " +
               std::to_string(size));
  }
  record->timestamp = 0;
  record->op = IoOp::kRead;
  record->offset = offset;
  record->length = options_.object_size;
  return RecordResult::kRecord;
}

}  // namespace tierlab
