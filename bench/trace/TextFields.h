#pragma once
// Small allocation-free helpers the text trace readers share: field
// splitting and exact integer / decimal-seconds parsing.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tierlab::textfields {

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on `delim` into at most `max` fields (each trimmed). Returns the
// number of fields in the line, which may exceed `max` (extra ones not stored).
inline std::size_t SplitDelimited(std::string_view line, char delim, std::string_view* out,
                                  std::size_t max) {
  std::size_t n = 0;
  for (;;) {
    std::size_t pos = line.find(delim);
    std::string_view field = pos == std::string_view::npos ? line : line.substr(0, pos);
    if (n < max) out[n] = Trim(field);
    ++n;
    if (pos == std::string_view::npos) return n;
    line.remove_prefix(pos + 1);
  }
}

// Splits on runs of blanks. Same return convention as SplitDelimited.
inline std::size_t SplitBlanks(std::string_view line, std::string_view* out, std::size_t max) {
  std::size_t n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t start = i;
    while (i < line.size() && !IsSpace(line[i])) ++i;
    if (n < max) out[n] = line.substr(start, i - start);
    ++n;
  }
  return n;
}

// Whole-field unsigned decimal; no sign, no blanks.
inline bool ParseU64(std::string_view s, std::uint64_t* v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

inline bool ParseU32(std::string_view s, std::uint32_t* v) {
  std::uint64_t x = 0;
  if (!ParseU64(s, &x) || x > UINT32_MAX) return false;
  *v = static_cast<std::uint32_t>(x);
  return true;
}

// Non-negative decimal seconds "S", "S." or "S.F" (F up to 9 digits used;
// further digits are truncated) into exact nanoseconds.
inline bool ParseSecondsToNanos(std::string_view s, std::int64_t* ns) {
  std::size_t dot = s.find('.');
  std::string_view whole = dot == std::string_view::npos ? s : s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (whole.empty() && frac.empty()) return false;
  std::uint64_t sec = 0;
  if (!whole.empty() && !ParseU64(whole, &sec)) return false;
  if (sec > 9'000'000'000ULL) return false;  // keeps sec * 1e9 within int64
  std::int64_t sub = 0;
  std::int64_t scale = 100'000'000;
  for (std::size_t i = 0; i < frac.size(); ++i) {
    char c = frac[i];
    if (c < '0' || c > '9') return false;
    if (scale > 0) {
      sub += (c - '0') * scale;
      scale /= 10;
    }
  }
  *ns = static_cast<std::int64_t>(sec) * 1'000'000'000 + sub;
  return true;
}

}  // namespace tierlab::textfields
