#pragma once
// A read-only std::streambuf over another one that lets its owner look at
// the bytes ahead without consuming them (Peek). Compression and format
// detection read the head of a trace this way, and the reader then reads the
// same bytes again: no seeking back, so a pipe (standard input) or a
// decompressing stream works as well as a file.
//
// Ownership: the source is not owned and must outlive this streambuf.
// Failure: whatever the source throws (a decompressor's damaged input, a
// filebuf's read error) propagates; std::istream::read turns it into badbit.
// The source returning fewer bytes than asked means its end.
// Not thread-safe.

#include <cstddef>
#include <streambuf>
#include <string_view>

#include "bench/trace/InputStreambuf.h"

namespace tierlab {

class PeekStreambuf final : public InputStreambuf {
 public:
  PeekStreambuf(std::streambuf* source, std::size_t buffer_bytes)
      : InputStreambuf(buffer_bytes), source_(source) {}

  // The next min(n, buffer size) bytes, fewer only at the end of the source,
  // left unread; valid until the next read.
  std::string_view Peek(std::size_t n);

 private:
  std::size_t Fill(char* out, std::size_t n) override;

  std::streambuf* source_;
};

}  // namespace tierlab
