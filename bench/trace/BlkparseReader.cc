#include "bench/trace/BlkparseReader.h"

#include "bench/trace/TextFields.h"
#include "tiering/core/QuotedText.h"

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

namespace {

std::string Count(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string BlkparseReader::SkippedSummary() const {
  if (skipped_lines_ == 0) return "";
  std::uint64_t events = 0;
  std::string by_action;
  for (int c = 0; c < 128; ++c) {
    if (other_actions_[c] == 0) continue;
    events += other_actions_[c];
    // Appended piece by piece: g++ 12 at -O2 with LTO warns (a false
    // -Wstringop-overflow) on the one-expression form.
    if (!by_action.empty()) by_action += ", ";
    if (c == 0) {
      by_action += "other";
    } else {
      by_action += static_cast<char>(c);
    }
    by_action += ' ';
    by_action += std::to_string(other_actions_[c]);
  }
  std::string parts;
  if (events > 0) {
    parts += Count(events, "event", "events") + " of other actions (" + by_action +
             "; records come from " + std::string(1, options_.blkparse_action) +
             " events, --blkparse-action picks another)";
  }
  if (no_data_ > 0) {
    parts += (parts.empty() ? "" : ", ") + Count(no_data_, "event", "events") + " without data (N)";
  }
  const std::uint64_t other = skipped_lines_ - events - no_data_;
  if (other > 0) {
    parts += (parts.empty() ? "" : ", ") +
             Count(other, "line that is not an event", "lines that are not events") +
             " (summaries, messages, blank lines)";
  }
  return Count(skipped_lines_, "line", "lines") + " skipped: " + parts;
}

TextTraceReader::LineResult BlkparseReader::ParseLine(std::string_view line, TraceRecord* record) {
  std::string_view f[10];
  std::size_t n = tf::SplitBlanks(line, f, 10);
  if (n < 6 || !IsDevice(f[0])) return LineResult::kSkip;  // summaries, blank lines
  if (f[5].size() != 1 || f[5][0] != options_.blkparse_action) {
    const auto a = static_cast<unsigned char>(f[5].size() == 1 ? f[5][0] : 0);
    ++other_actions_[a < 128 ? a : 0];
    return LineResult::kSkip;
  }
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
    ++no_data_;
    return LineResult::kSkip;
  } else {
    return Bad("unknown RWBS " + QuotedText(rwbs));
  }
  std::int64_t ns = 0;
  if (!tf::ParseSecondsToNanos(f[3], &ns)) return Bad("bad time " + QuotedText(f[3]));
  bool has_range = n >= 10 && f[8] == "+";
  if (has_range) {
    std::uint64_t sector = 0;
    std::uint64_t blocks = 0;
    if (!tf::ParseU64(f[7], &sector) || sector > (UINT64_MAX >> 9)) {
      return Bad("bad sector " + QuotedText(f[7]));
    }
    if (!tf::ParseU64(f[9], &blocks) || blocks > (UINT32_MAX >> 9)) {
      return Bad("bad block count " + QuotedText(f[9]));
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
