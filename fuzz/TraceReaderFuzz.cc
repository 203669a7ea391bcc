// libFuzzer target for the trace readers. The first byte selects the format
// (low 4 bits modulo 11: 0 = auto-detect, 1..10 = one reader) and options (bit 4:
// skip_bad, bit 5: keep unsorted times, bits 6-7: the reader's buffer size,
// 64, 97, 512 or 4096 bytes); the rest is the trace, read from memory. Small
// buffers keep each input cheap (the default 1 MiB buffer would be
// allocated and cleared per input) and exercise refills across record and
// line boundaries; 97 divides no record size. Every reader must end with records, a clean end or an
// Error, never a crash, and every record must be self-consistent. Accepted records are written back
// as a tierlab binary trace, which must read back identically. Input that
// starts with a gzip, zstd or xz magic goes through the decompressors, as a
// compressed file would (damaged compressed data must be an error naming the
// input too; CompressedTraceFuzz feeds them valid streams). See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <vector>

#include "bench/analysis/TraceStats.h"
#include "bench/trace/TraceConvert.h"
#include "bench/trace/TraceFactory.h"

namespace {

constexpr tierlab::TraceFormat kFormats[] = {
    tierlab::TraceFormat::kAuto,        tierlab::TraceFormat::kFioIologV2,
    tierlab::TraceFormat::kFioIologV3,  tierlab::TraceFormat::kBlkparse,
    tierlab::TraceFormat::kMsrCsv,      tierlab::TraceFormat::kSpcCsv,
    tierlab::TraceFormat::kSystor17Csv, tierlab::TraceFormat::kVscsi,
    tierlab::TraceFormat::kTierlabBin,  tierlab::TraceFormat::kKeysU32,
    tierlab::TraceFormat::kKeysU64,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  tierlab::TraceOptions options;
  options.format = kFormats[(data[0] & 0x0f) % std::size(kFormats)];
  options.skip_bad = (data[0] & 0x10) != 0;
  options.order = (data[0] & 0x20) != 0 ? tierlab::TimestampOrder::kKeep
                                        : tierlab::TimestampOrder::kClampMonotonic;
  constexpr std::size_t kBuffers[] = {64, 97, 512, 4096};
  options.buffer_bytes = kBuffers[data[0] >> 6];
  options.decoder_memory_bytes = 16 << 20;  // keeps each input's decoder small
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto reader = tierlab::OpenTrace(std::make_unique<std::istringstream>(body), "fuzz", options);
  if (!reader.ok()) {
    if (reader.error().message.empty()) std::abort();
    return 0;
  }
  std::vector<tierlab::TraceRecord> records;
  tierlab::TraceRecord r;
  tierlab::TraceStatsCollector stats(1 << 20);  // large blocks keep huge lengths cheap
  for (;;) {
    auto more = (*reader)->Next(&r);
    if (!more.ok()) {
      if (more.error().message.rfind("fuzz", 0) != 0) std::abort();  // errors name the input
      break;
    }
    if (!*more) break;
    if (r.end() < r.offset) std::abort();
    if (options.order == tierlab::TimestampOrder::kClampMonotonic && !records.empty() &&
        r.timestamp < records.back().timestamp) {
      std::abort();
    }
    // Stats touch every 4 KiB block of a record: bounded so that a few huge
    // lengths do not make one input take seconds.
    if (r.length <= (1u << 20) && records.size() < 2000) stats.Add(r);
    records.push_back(r);
    if (records.size() > 100000) break;
  }
  // Round trip of what was accepted (non-negative times only: writers reject others).
  bool writable = true;
  for (const auto& rec : records) writable = writable && rec.timestamp >= 0;
  if (!writable) return 0;
  auto* sink = new std::ostringstream;
  auto writer = tierlab::CreateTraceWriter(std::unique_ptr<std::ostream>(sink), "out",
                                           tierlab::TraceFormat::kTierlabBin);
  if (!writer.ok()) std::abort();
  for (const auto& rec : records) {
    if (!(*writer)->Write(rec).ok()) std::abort();
  }
  if (!(*writer)->Close().ok()) std::abort();
  auto back = tierlab::OpenTrace(std::make_unique<std::istringstream>(sink->str()), "back",
                                 {.format = tierlab::TraceFormat::kTierlabBin,
                                  .order = options.order,
                                  .buffer_bytes = options.buffer_bytes});
  if (!back.ok()) std::abort();
  for (const auto& rec : records) {
    auto more = (*back)->Next(&r);
    if (!more.ok() || !*more || !(r == rec)) std::abort();
  }
  auto end = (*back)->Next(&r);
  if (!end.ok() || *end) std::abort();
  return 0;
}
