#pragma once
// The base of the decompressing streambufs, one per codec (GzipStreambuf.h,
// ZstdStreambuf.h, XzStreambuf.h): a read-only std::streambuf that reads
// compressed bytes from a source streambuf and yields the decompressed
// ones. A codec implements only Decode; the failure protocol is here, the
// buffering (large reads decoded straight into the caller's buffer) in
// InputStreambuf.
//
// Failure: on damaged or truncated input, or a stream that needs more memory
// than allowed, Decode calls Fail, which records "codec: why" (error()) and
// throws; std::istream::read catches it and sets badbit, as for any failing
// streambuf, and every later read throws again. The bytes of the read that
// failed are not delivered. Readers turn badbit into an Error through
// TraceReader::ReadError, which finds error() through TraceInput.
//
// Memory: two buffers of the size given (compressed input, decoded output),
// plus the codec's state, which each codec bounds
// (TraceOptions::decoder_memory_bytes).
//
// Ownership: the source is not owned and must outlive this streambuf.
// Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <streambuf>
#include <string>

#include "bench/trace/InputStreambuf.h"

namespace tierlab {

class DecompressingStreambuf : public InputStreambuf {
 public:
  // "zstd: what went wrong" once decoding failed, else "".
  const std::string& error() const { return error_; }

 protected:
  // `codec` ("gzip", "zstd", "xz") prefixes errors; `buffer_bytes` is the
  // size of the compressed-input and the decoded-output buffers.
  DecompressingStreambuf(std::streambuf* source, const char* codec, std::size_t buffer_bytes);

  // Decodes at most n > 0 bytes into `out` and returns how many: > 0, or 0
  // at the clean end of the compressed data (and on every call after it).
  // Takes compressed bytes from in_next_ / in_avail_, calling FillInput when
  // they are used up. Calls Fail on damaged or truncated input.
  virtual std::size_t Decode(char* out, std::size_t n) = 0;

  // Refills in_next_ / in_avail_ from the source once in_avail_ is 0; false
  // at the source's end.
  bool FillInput();

  // Records "codec: why" as error() and throws.
  [[noreturn]] void Fail(const std::string& why);

  // "64 MiB", "1 KiB": a memory size for errors, rounded up.
  static std::string MemoryText(std::uint64_t bytes);

  const unsigned char* in_next_ = nullptr;  // compressed bytes not yet decoded
  std::size_t in_avail_ = 0;

 private:
  // Decode, after a failure the same exception again.
  std::size_t Fill(char* out, std::size_t n) final;

  std::streambuf* source_;
  const char* codec_;
  std::unique_ptr<unsigned char[]> in_;
  std::string error_;
};

}  // namespace tierlab
