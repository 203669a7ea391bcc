#pragma once
// The block trace formats tierlab reads and writes, by name. The layouts and
// units of each are in docs/TRACE-FORMATS.md.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierlab {

enum class TraceFormat {
  kAuto,         // detect from content (DetectTraceFormat)
  kFioIologV2,   // "fio version 2 iolog": file action offset length
  kFioIologV3,   // "fio version 3 iolog": timestamp(us) file action offset length
  kBlkparse,     // blkparse default text output
  kMsrCsv,       // MSR Cambridge: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
  kSpcCsv,       // SPC / UMass: ASU,LBA,Size,Opcode,Timestamp
  kSystor17Csv,  // SYSTOR'17: Timestamp,Response,IOType,LUN,Offset,Size (with header)
  kVscsi,        // CloudPhysics / VMware vscsi binary, version 1 or 2
  kTierlabBin,   // tierlab's own fixed-record binary format
  kKeysU32,      // key-only: little-endian u32 keys, one per record (never detected)
  kKeysU64,      // key-only: little-endian u64 keys, one per record (never detected)
};

// "fio-v2", "fio-v3", "blkparse", "msr", "spc", "systor17", "vscsi", "tierlab",
// "keys-u32", "keys-u64", "auto".
const char* ToString(TraceFormat format);

// Accepts the names ToString returns; nullopt for anything else.
std::optional<TraceFormat> ParseTraceFormat(std::string_view name);

// All names, "auto" first, in the order above (for option choices).
std::vector<std::string> TraceFormatNames();

// All names, comma-separated, for "valid choices" in error messages.
std::string TraceFormatChoices();

}  // namespace tierlab
