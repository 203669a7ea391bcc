#pragma once
// The trace reader interface: one block I/O record at a time, streaming, in
// constant memory, from a file or any std::istream (fuzzers read from memory).
//
// Every reader produces the same TraceRecord whatever the source format:
// times in nanoseconds relative to the first record, offsets and lengths in
// bytes. Format-specific units (FILETIME ticks, 512-byte sectors, SCSI LBAs,
// microseconds) are converted by the reader; docs/TRACE-FORMATS.md lists them.
//
// Failure: a malformed record is an Error whose message names the place,
// "file:line: what is wrong" for text formats and "file: record N: what is
// wrong" for binary ones, of kind kInput (exit code 2). With
// TraceOptions::skip_bad, malformed text lines are counted (bad_records())
// and skipped instead; structural errors (a missing or wrong header, a
// truncated binary file, an unreadable file) still fail. After an error,
// Next() keeps returning that error.
//
// Compressed traces (gzip, zstd, xz) are decompressed on the way in, by the
// stream OpenTrace gives a reader (TraceInput.h); a reader sees plain bytes.
// Damage in the compressed data is an Error of kind kInput naming the codec,
// "t.vscsi.zst: zstd: ...", even with skip_bad; a stream that cannot be read
// (EIO) is kIo.
//
// Threading: a reader is used by one thread at a time. Readers are not
// copyable.

#include <cstdint>
#include <istream>
#include <memory>
#include <string>

#include "bench/trace/TraceFormat.h"
#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

struct TraceRecord {
  Nanos timestamp = 0;       // ns since the first record of the trace
  IoOp op = IoOp::kRead;     // read, write, discard or flush
  std::uint64_t offset = 0;  // bytes; 0 for flush
  std::uint32_t length = 0;  // bytes; 0 for flush

  std::uint64_t end() const { return offset + length; }
  friend bool operator==(const TraceRecord&, const TraceRecord&) = default;
};

// Some formats carry unsorted timestamps (SYSTOR'17 rows are written per
// completing thread). Replay and rate figures need monotonic time, so by
// default a record older than its predecessor gets its predecessor's time.
enum class TimestampOrder {
  kClampMonotonic,  // timestamp = max(previous, own); counted in reordered_records()
  kKeep,            // own time relative to the first record; may decrease or be negative
};

// Records of a device, LUN or ASU number n > 0 (MSR DiskNumber, SPC ASU,
// SYSTOR LUN) are moved to offset + n * kTraceDeviceStride, so that several
// devices in one file never alias. Device 0 keeps its offsets.
inline constexpr std::uint64_t kTraceDeviceStride = std::uint64_t{1} << 48;

struct TraceOptions {
  TraceFormat format = TraceFormat::kAuto;
  // blkparse: which event becomes a record: 'Q' (queued by the submitter,
  // before merging), 'D' (issued to the driver: what the device sees,
  // default) or 'C' (completed).
  char blkparse_action = 'D';
  // Bytes per logical block for formats that address blocks: SPC/UMass LBA
  // and vscsi LBN. blkparse sectors are always 512 bytes (kernel sectors).
  std::uint32_t lba_unit = 512;
  bool skip_bad = false;
  TimestampOrder order = TimestampOrder::kClampMonotonic;
  // Bytes the reader buffers from its stream, >= kMinTraceBuffer. For text
  // formats it is also the longest line accepted (longer: "line too long").
  // Large buffers read files fast; fuzzers use small ones, since every input
  // allocates and clears the buffer anew.
  std::size_t buffer_bytes = std::size_t{1} << 20;
  // keys-u32 / keys-u64: bytes of the object each key names. Key k is a
  // read of object_size bytes at offset k * object_size. > 0.
  std::uint32_t object_size = 4096;
  // Most memory a decompressor may take (zstd's window, xz's dictionary): a
  // compressed trace that needs more is an error saying how much, not an
  // allocation of whatever its header asks for. gzip needs 32 KiB.
  std::uint64_t decoder_memory_bytes = std::uint64_t{1} << 30;
};

inline constexpr std::size_t kMinTraceBuffer = 64;

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  // Fills *record and returns true, or returns false at the end of the trace,
  // or an Error (see the file comment). `record` must not be null.
  virtual Expected<bool> Next(TraceRecord* record) = 0;

  virtual TraceFormat format() const = 0;

  // The name used in error messages: the path, or the name given with a stream.
  const std::string& name() const { return name_; }
  // Records returned so far.
  std::uint64_t records() const { return records_; }
  // Malformed lines skipped (only with skip_bad).
  std::uint64_t bad_records() const { return bad_records_; }
  // Records whose time was raised to their predecessor's (kClampMonotonic).
  std::uint64_t reordered_records() const { return reordered_records_; }
  // Lines of a text trace that were neither records nor malformed: headers,
  // comments, blank lines, events of another kind.
  std::uint64_t skipped_lines() const { return skipped_lines_; }
  // What was skipped, for a note when a trace yields no record ("40 lines
  // that are not I/O records"; "" when nothing was). Formats that know why
  // say more (blkparse: events of other actions).
  virtual std::string SkippedSummary() const;

 protected:
  TraceReader(std::string name, const TraceOptions& options)
      : name_(std::move(name)), options_(options) {}

  // Converts a raw source time (in units of `ns_per_unit` nanoseconds) to
  // the record time: relative to the first record, ordered per
  // options_.order. False when the result does not fit in Nanos.
  bool RelativeTime(std::int64_t raw, std::int64_t ns_per_unit, Nanos* out);

  // The error for `in` gone bad (std::istream::bad()): a TraceInput's
  // Failure() ("name: gzip: ..." when decompression failed, kInput), else
  // "name: read error" (kIo).
  Error ReadError(const std::istream& in) const;

  std::string name_;
  TraceOptions options_;
  std::uint64_t records_ = 0;
  std::uint64_t bad_records_ = 0;
  std::uint64_t reordered_records_ = 0;
  std::uint64_t skipped_lines_ = 0;

 private:
  bool have_base_ = false;
  std::int64_t base_ = 0;
  Nanos last_ = 0;
};

}  // namespace tierlab
