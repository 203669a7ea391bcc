#include "bench/trace/PeekStreambuf.h"

#include <algorithm>
#include <cstring>

namespace tierlab {

std::size_t PeekStreambuf::Fill(char* out, std::size_t n) {
  const std::streamsize got = source_->sgetn(out, static_cast<std::streamsize>(n));
  return got > 0 ? static_cast<std::size_t>(got) : 0;
}

std::string_view PeekStreambuf::Peek(std::size_t n) {
  n = std::min(n, buffer_size());
  std::size_t have = static_cast<std::size_t>(egptr() - gptr());
  if (have < n) {
    std::memmove(buffer(), gptr(), have);
    setg(buffer(), buffer(), buffer() + have);  // consistent if the source throws
    while (have < n) {
      const std::size_t got = Fill(buffer() + have, n - have);
      if (got == 0) break;
      have += got;
      setg(buffer(), buffer(), buffer() + have);
    }
  }
  return {gptr(), std::min(n, have)};
}

}  // namespace tierlab
