#pragma once
// Test helpers for trace tests: readable TraceRecord output in failures.

#include <ostream>

#include "bench/trace/TraceReader.h"

namespace tierlab {

inline void PrintTo(const TraceRecord& r, std::ostream* os) {
  *os << "{t=" << r.timestamp << " " << ToString(r.op) << " off=" << r.offset << " len=" << r.length
      << "}";
}

}  // namespace tierlab
