#pragma once
// A user's text inside a one-line error message: in single quotes (or
// `quote`), anything but printable ASCII shown as '?' (a newline in a name
// must not break the message in two, nor a terminal escape reach the
// terminal), and at most `max_shown` bytes of it (64: a name; a path or a
// cell's label gets more), then "...".

#include <string>
#include <string_view>

namespace tierlab {

inline std::string QuotedText(std::string_view s, char quote = '\'', std::size_t max_shown = 64) {
  std::string out(1, quote);
  for (char c : s.substr(0, max_shown)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > max_shown) out += "...";
  return out + quote;
}

}  // namespace tierlab
