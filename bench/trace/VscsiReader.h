#pragma once
// VMware vscsi traces as published by CloudPhysics (and read by
// libCacheSim), little-endian fixed records, no file header.
//
// Version 1, 32 bytes: u32 serial, u32 length (bytes), u32 scatter-gather
//   count, u16 SCSI command, u16 version (0x01xx), u64 LBN, u64 timestamp (us).
// Version 2, 40 bytes: u16 SCSI command, u16 version (0x02xx), u32 serial,
//   u32 length, u32 scatter-gather count, u64 LBN, u64 timestamp (us),
//   u64 response time (us).
//
// The version is taken from the first records (as libCacheSim does: the high
// byte of the version field of the first two records, v2 layout tried
// first); a record of another version is bad. LBN is in
// TraceOptions::lba_unit bytes (512 by default). Commands: READ(6/10/12/16)
// -> read, WRITE(6/10/12/16) -> write, SYNCHRONIZE CACHE(10/16) -> flush,
// UNMAP -> discard of `length` bytes at the LBN; others are bad records.

#include "bench/trace/BinaryTraceReader.h"

namespace tierlab {

class VscsiReader final : public BinaryTraceReader {
 public:
  VscsiReader(std::unique_ptr<std::istream> in, std::string name, const TraceOptions& options);
  TraceFormat format() const override { return TraceFormat::kVscsi; }

  int version() const { return version_; }

  // 1 or 2 when `head` (the first bytes of a file, at least one record)
  // looks like a vscsi trace of that version, else 0.
  static int DetectVersion(const unsigned char* head, std::size_t size);

 private:
  RecordResult Decode(const unsigned char* p, TraceRecord* record) override;

  int version_ = 0;
};

}  // namespace tierlab
