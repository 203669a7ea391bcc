#pragma once
// Test helpers for trace tests: the fixtures in tests/data/traces, reading a
// whole trace, and readable TraceRecord output in failures.

#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "bench/trace/TraceFactory.h"
#include "bench/trace/TraceReader.h"

namespace tierlab {

inline void PrintTo(const TraceRecord& r, std::ostream* os) {
  *os << "{t=" << r.timestamp << " " << ToString(r.op) << " off=" << r.offset << " len=" << r.length
      << "}";
}

inline std::string Fixture(const std::string& name) {
  return std::string(TIERLAB_SOURCE_DIR) + "/tests/data/traces/" + name;
}

struct ReadResult {
  std::vector<TraceRecord> records;
  std::string error;  // empty when the whole trace read
  std::uint64_t bad = 0;
  std::uint64_t reordered = 0;
  TraceFormat format = TraceFormat::kAuto;  // what the reader read, when it opened
};

// Every record of a reader, then its end or its error (which must be an
// input error).
inline ReadResult ReadAll(Expected<std::unique_ptr<TraceReader>> reader) {
  ReadResult out;
  if (!reader.ok()) {
    out.error = reader.error().message;
    return out;
  }
  out.format = (*reader)->format();
  TraceRecord r;
  for (;;) {
    auto more = (*reader)->Next(&r);
    if (!more.ok()) {
      out.error = more.error().message;
      EXPECT_EQ(more.error().kind, ErrorKind::kInput);
      break;
    }
    if (!*more) break;
    out.records.push_back(r);
  }
  out.bad = (*reader)->bad_records();
  out.reordered = (*reader)->reordered_records();
  return out;
}

inline ReadResult ReadAll(const std::string& path, TraceOptions options = {}) {
  return ReadAll(OpenTrace(path, options));
}

}  // namespace tierlab
