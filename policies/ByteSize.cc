#include "policies/ByteSize.h"

#include <charconv>

namespace tierlab {

std::optional<std::uint64_t> ParseByteSize(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc()) return std::nullopt;
  std::string_view rest(ptr, static_cast<std::size_t>(text.data() + text.size() - ptr));
  if (rest.empty()) return value;
  if (rest.size() != 1) return std::nullopt;
  unsigned shift = 0;
  switch (rest.front()) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    case 't':
    case 'T': shift = 40; break;
    default: return std::nullopt;
  }
  if (value > (UINT64_MAX >> shift)) return std::nullopt;
  return value << shift;
}

}  // namespace tierlab
