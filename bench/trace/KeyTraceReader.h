#pragma once
// Key-only binary traces, as libCacheSim and Caffeine ship theirs: nothing
// but little-endian unsigned keys, 4 bytes each (keys-u32) or 8 bytes each
// (keys-u64), one per request; no header, no time, no operation, no size.
//
// Each key is one request for one unit-size object, mapped to a block read:
// key k becomes a read of TraceOptions::object_size bytes (4 KiB by default)
// at offset k * object_size. A key whose offset does not fit in 64 bits is a
// bad record (keys-u64 only).
//
// There is no time: every record is at time 0, as in a fio v2 iolog without
// waits, so a replay issues them as fast as the stack takes them.
//
// The content is indistinguishable from any other binary data, so these
// formats are never detected: they are read only when named
// (TraceOptions::format, --format keys-u64). A partial key at the end of
// the file is an error naming its byte offset ("t.keys: record 5: truncated
// at byte 40: 3 of 8 bytes"), or with skip_bad a bad record, counted.

#include "bench/trace/BinaryTraceReader.h"

namespace tierlab {

class KeyTraceReader final : public BinaryTraceReader {
 public:
  // `key_bytes` is 4 (keys-u32) or 8 (keys-u64).
  KeyTraceReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options,
                 int key_bytes);

  TraceFormat format() const override {
    return key_bytes_ == 4 ? TraceFormat::kKeysU32 : TraceFormat::kKeysU64;
  }

 private:
  RecordResult Decode(const unsigned char* p, TraceRecord* record) override;

  int key_bytes_;
};

}  // namespace tierlab
