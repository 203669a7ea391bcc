#pragma once
// A configuration key as docs/CONFIG.md shows it: what the field tables
// (FieldTable.h, the profile's option table) say about each key, so a test
// can compare the document with the code.

#include <string>

namespace tierlab {

struct FieldDoc {
  std::string key;
  std::string type;      // "bytes", "integer 1..1024", "lru | fifo | ..."
  std::string fallback;  // the default as JSON text ("4k", 50, true) or words; "-" for none
  std::string unit;      // "bytes", "ms", "%", or "-"
  std::string meaning;
};

}  // namespace tierlab
