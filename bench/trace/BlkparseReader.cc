#include "bench/trace/BlkparseReader.h"

#include "bench/trace/TextFields.h"

namespace tierlab {

namespace tf = textfields;

namespace {

bool IsDevice(std::string_view s) {
  std::size_t comma = s.find(',');
  if (comma == std::string_view::npos) return false;
  std::uint64_t v = 0;
  return tf::ParseU64(s.substr(0, comma), &v) && tf::ParseU64(s.substr(comma + 1), &v);
}

}  // namespace

BlkparseReader::BlkparseReader(std::unique_ptr<std::istream> in, std::string name,
                               const TraceOptions& options)
    : TextTraceReader(std::move(in), std::move(name), options) {}

bool BlkparseReader::LooksLikeEvent(std::string_view line) {
  std::string_view f[8];
  std::size_t n = tf::SplitBlanks(line, f, 8);
  std::uint64_t v = 0;
  return n >= 7 && IsDevice(f[0]) && tf::ParseU64(f[1], &v) && tf::ParseU64(f[2], &v) &&
         f[3].find('.') != std::string_view::npos;
}

TextTraceReader::LineResult BlkparseReader::ParseLine(std::string_view line, TraceRecord* record) {
  std::string_view f[10];
  std::size_t n = tf::SplitBlanks(line, f, 10);
  if (n < 6 || !IsDevice(f[0])) return LineResult::kSkip;  // summaries, blank lines
  if (f[5].size() != 1 || f[5][0] != options_.blkparse_action) return LineResult::kSkip;
  if (n < 7) return Bad("missing RWBS field");
  std::string_view rwbs = f[6];
  bool has_d = rwbs.find('D') != std::string_view::npos;
  bool has_w = rwbs.find('W') != std::string_view::npos;
  bool has_r = rwbs.find('R') != std::string_view::npos;
  bool has_f = rwbs.find('F') != std::string_view::npos;
  if (has_d) {
    record->op = IoOp::kDiscard;
  } else if (has_w) {
    record->op = IoOp::kWrite;
  } else if (has_r) {
    record->op = IoOp::kRead;
  } else if (has_f) {
    record->op = IoOp::kFlush;
  } else if (rwbs.find('N') != std::string_view::npos) {
    return LineResult::kSkip;
  } else {
    return Bad("unknown RWBS '" + std::string(rwbs) + "'");
  }
  std::int64_t ns = 0;
  if (!tf::ParseSecondsToNanos(f[3], &ns)) return Bad("bad time '" + std::string(f[3]) + "'");
  bool has_range = n >= 10 && f[8] == "+";
  if (has_range) {
    std::uint64_t sector = 0;
    std::uint64_t blocks = 0;
    if (!tf::ParseU64(f[7], &sector) || sector > (UINT64_MAX >> 9)) {
      return Bad("bad sector '" + std::string(f[7]) + "'");
    }
    if (!tf::ParseU64(f[9], &blocks) || blocks > (UINT32_MAX >> 9)) {
      return Bad("bad block count '" + std::string(f[9]) + "'");
    }
    record->offset = sector << 9;
    record->length = static_cast<std::uint32_t>(blocks << 9);
    if (record->offset + record->length < record->offset) return Bad("sector range overflows");
  } else if (record->op == IoOp::kFlush) {
    record->offset = 0;
    record->length = 0;
  } else {
    return Bad("expected 'sector + blocks' after RWBS");
  }
  if (record->op == IoOp::kFlush) {
    record->offset = 0;
    record->length = 0;
  }
  if (!Time(ns, 1, record)) return LineResult::kBad;
  return LineResult::kRecord;
}

}  // namespace tierlab
