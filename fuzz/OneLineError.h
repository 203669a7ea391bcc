#pragma once
// What the fuzz targets require of an error a parser returns: one
// non-empty line of bounded length, as a terminal shows it (a newline in a
// user's text must not split it). A broken rule aborts, so the fuzzer, or
// the replay in an ordinary build, reports it.

#include <cstdlib>
#include <string>

#include "tiering/core/Expected.h"

namespace tierlab::fuzz {

inline void CheckError(const Error& e) {
  if (e.message.empty() || e.message.size() > 4096 || e.message.find('\n') != std::string::npos) {
    std::abort();
  }
}

// Whether `r` holds a value; its error, if any, is checked.
template <typename T>
bool Accepted(const Expected<T>& r) {
  if (!r.ok()) CheckError(r.error());
  return r.ok();
}

}  // namespace tierlab::fuzz
