#pragma once
// The base of tierlab's read-only streambufs (PeekStreambuf,
// DecompressingStreambuf): a buffer, refilled by the subclass's Fill, and
// reads larger than the buffer filled straight into the caller's buffer, so
// a layer adds no copy for readers with large buffers.
//
// Failure: whatever Fill throws propagates (std::istream::read turns it into
// badbit). Not thread-safe.

#include <cstddef>
#include <memory>
#include <streambuf>

namespace tierlab {

class InputStreambuf : public std::streambuf {
 public:
  InputStreambuf(const InputStreambuf&) = delete;
  InputStreambuf& operator=(const InputStreambuf&) = delete;

 protected:
  explicit InputStreambuf(std::size_t buffer_bytes);

  // Writes at most n > 0 bytes to `out` and returns how many: > 0, or 0 at
  // the end of the data (and on every call after it).
  virtual std::size_t Fill(char* out, std::size_t n) = 0;

  char* buffer() const { return buf_.get(); }
  std::size_t buffer_size() const { return size_; }

  int_type underflow() final;
  std::streamsize xsgetn(char* s, std::streamsize n) final;

 private:
  std::unique_ptr<char[]> buf_;
  std::size_t size_;
};

}  // namespace tierlab
