#pragma once
// A user's text inside a one-line error message: in single quotes (or
// `quote`), anything but printable ASCII shown as '?' (a newline in a name
// must not break the message in two, nor a terminal escape reach the
// terminal), and at most 64 bytes of it, then "...".

#include <string>
#include <string_view>

namespace tierlab {

inline std::string QuotedText(std::string_view s, char quote = '\'') {
  constexpr std::size_t kMaxShown = 64;
  std::string out(1, quote);
  for (char c : s.substr(0, kMaxShown)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > kMaxShown) out += "...";
  return out + quote;
}

}  // namespace tierlab
