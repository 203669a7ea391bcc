#include "bench/trace/InputStreambuf.h"

#include <algorithm>
#include <cstring>

namespace tierlab {

InputStreambuf::InputStreambuf(std::size_t buffer_bytes)
    : buf_(new char[buffer_bytes]), size_(buffer_bytes) {
  setg(buf_.get(), buf_.get(), buf_.get());
}

InputStreambuf::int_type InputStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const std::size_t got = Fill(buf_.get(), size_);
  if (got == 0) return traits_type::eof();
  setg(buf_.get(), buf_.get(), buf_.get() + got);
  return traits_type::to_int_type(*gptr());
}

std::streamsize InputStreambuf::xsgetn(char* s, std::streamsize n) {
  std::streamsize done = 0;
  while (done < n) {
    const std::streamsize buffered = egptr() - gptr();
    if (buffered > 0) {
      const std::streamsize take = std::min(buffered, n - done);
      std::memcpy(s + done, gptr(), static_cast<std::size_t>(take));
      gbump(static_cast<int>(take));
      done += take;
    } else if (static_cast<std::size_t>(n - done) >= size_) {
      const std::size_t got = Fill(s + done, static_cast<std::size_t>(n - done));
      if (got == 0) break;
      done += static_cast<std::streamsize>(got);
    } else if (traits_type::eq_int_type(underflow(), traits_type::eof())) {
      break;
    }
  }
  return done;
}

}  // namespace tierlab
