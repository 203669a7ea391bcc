#pragma once
// The byte stream a trace reader reads: its source (a file, standard input,
// any std::istream), decompressed when its first bytes are a gzip, zstd or
// xz magic number (TraceCompression.h), with its head readable in advance
// for format detection. OpenTrace builds one for every reader, so readers
// never know whether the trace was compressed or where it came from.
//
// Nothing seeks: the head is buffered and replayed (PeekStreambuf), once for
// the compression magic, once more, decompressed, for the format, so a pipe
// works as well as a file, compressed or not.
//
// Failure: damage in compressed data sets badbit on this stream (the
// decompressor throws, std::istream catches), and Failure() says why:
// "name: zstd: ..." (TraceReader::ReadError reports it).
//
// Ownership: a TraceInput owns its source and every layer over it.
// Not thread-safe.

#include <cstddef>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "bench/trace/DecompressingStreambuf.h"
#include "bench/trace/PeekStreambuf.h"
#include "bench/trace/TraceCompression.h"
#include "bench/trace/TraceReader.h"
#include "tiering/core/Expected.h"

namespace tierlab {

class TraceInput final : public std::istream {
 public:
  // Reads the first bytes of `source` and stacks a decompressor on it if
  // they are a compression magic. `name` names the input in errors; from
  // `options`, buffer_bytes (the buffers here stay between 4 and 64 KiB)
  // and decoder_memory_bytes. Error: the source cannot be read (kIo).
  static Expected<std::unique_ptr<TraceInput>> Open(std::unique_ptr<std::istream> source,
                                                    const std::string& name,
                                                    const TraceOptions& options);

  TraceCompression compression() const { return compression_; }

  // Up to n (at most 4 KiB) bytes of the trace from where it is read,
  // decompressed, without consuming them: fewer only at the end. Errors:
  // damaged compressed data ("name: gzip: ...", kInput), a read error (kIo).
  Expected<std::string_view> Head(std::size_t n);

  // What made this stream bad: "name: codec: why" (kInput) once
  // decompression failed, else "name: read error" (kIo).
  Error Failure() const;

 private:
  TraceInput(std::unique_ptr<std::istream> source, std::string name);

  std::string name_;
  std::unique_ptr<std::istream> source_;
  std::unique_ptr<PeekStreambuf> raw_;               // over source_: the magic
  std::unique_ptr<DecompressingStreambuf> decoder_;  // over raw_, when compressed
  std::unique_ptr<PeekStreambuf> decoded_;           // over decoder_: the format's head
  PeekStreambuf* top_ = nullptr;                     // raw_ or decoded_: what is read
  TraceCompression compression_ = TraceCompression::kNone;
};

}  // namespace tierlab
