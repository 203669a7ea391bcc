#include "bench/workload/FioPattern.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

bool IsHex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

int HexValue(char c) {
  return c <= '9' ? c - '0' : (std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
}

bool StartsHex(std::string_view s) {
  return s.size() >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && IsHex(s[2]);
}

Error Bad(std::string_view element, const std::string& why) {
  return MakeError("pattern element " + QuotedText(element) + ": " + why);
}

// "0x..." at the front of `s`: its bytes; returns the characters used.
Expected<std::size_t> TakeHex(std::string_view s, std::vector<std::byte>& out) {
  std::size_t end = 2;
  while (end < s.size() && IsHex(s[end])) ++end;
  // "0xff0x14" is two numbers: a run ending in '0' before an 'x' leaves it.
  if (end < s.size() && (s[end] == 'x' || s[end] == 'X') && s[end - 1] == '0') --end;
  const std::string_view digits = s.substr(2, end - 2);
  if (digits.empty()) return Bad(s, "0x needs hex digits");
  std::size_t i = 0;
  if (digits.size() % 2 == 1) out.push_back(static_cast<std::byte>(HexValue(digits[i++])));
  for (; i < digits.size(); i += 2) {
    out.push_back(static_cast<std::byte>(HexValue(digits[i]) * 16 + HexValue(digits[i + 1])));
  }
  return end;
}

// A decimal at the front of `s`, up to where a "0x" begins.
Expected<std::size_t> TakeDecimal(std::string_view s, std::vector<std::byte>& out) {
  std::size_t limit = s.size();
  for (std::size_t k = 0; k + 1 < s.size(); ++k) {
    if (s[k] == '0' && (s[k + 1] == 'x' || s[k + 1] == 'X')) {
      limit = k;
      break;
    }
  }
  std::size_t end = s[0] == '-' || s[0] == '+' ? 1 : 0;
  const std::size_t first_digit = end;
  long long v = 0;
  while (end < limit && std::isdigit(static_cast<unsigned char>(s[end])) != 0) {
    v = v * 10 + (s[end] - '0');
    if (v > (1LL << 32)) return Bad(s, "a decimal must fit a 32-bit int");
    ++end;
  }
  if (end == first_digit) return Bad(s, "expected 0x..., a decimal, \"text\" or %o");
  if (s[0] == '-') v = -v;
  if (v > 2147483647LL || v < -2147483648LL) return Bad(s, "a decimal must fit a 32-bit int");
  auto u = static_cast<std::uint32_t>(v);
  if (u == 0) out.push_back(std::byte{0});
  for (; u != 0; u >>= 8) out.push_back(static_cast<std::byte>(u & 0xff));
  return end;
}

}  // namespace

Expected<FioPattern> ParseFioPattern(std::string_view text, bool allow_offsets) {
  FioPattern p;
  std::string_view rest = text;
  if (rest.empty()) return MakeError("an empty pattern");
  while (!rest.empty()) {
    std::size_t used = 0;
    if (rest.front() == '"') {
      const std::size_t close = rest.find('"', 1);
      if (close == std::string_view::npos) return Bad(rest, "a string without its closing quote");
      if (close == 1) return Bad(rest, "an empty string");
      for (char c : rest.substr(1, close - 1)) p.bytes.push_back(static_cast<std::byte>(c));
      used = close + 1;
    } else if (rest.front() == '%') {
      if (!rest.starts_with("%o")) return Bad(rest, "the only format is %o (the offset)");
      if (!allow_offsets) return Bad(rest, "%o is for verify_pattern only");
      p.offset_slots.push_back(static_cast<std::uint32_t>(p.bytes.size()));
      p.bytes.resize(p.bytes.size() + 8);
      used = 2;
    } else if (rest.front() == '\'') {
      return Bad(rest, "a pattern read from a file is not supported; give its bytes as 0x...");
    } else {
      auto n = StartsHex(rest) ? TakeHex(rest, p.bytes) : TakeDecimal(rest, p.bytes);
      if (!n) return n.error();
      used = *n;
    }
    if (p.bytes.size() > kMaxPatternBytes) {
      return MakeError("a pattern holds at most " + std::to_string(kMaxPatternBytes) +
                       " bytes (fio's limit)");
    }
    rest.remove_prefix(used);
  }
  return p;
}

void FillFromPattern(const FioPattern& pattern, std::uint64_t write_offset, std::uint64_t from,
                     std::byte* out, std::uint64_t len) {
  // One copy with the offset in place, then copies of it.
  std::vector<std::byte> copy = pattern.bytes;
  for (std::uint32_t at : pattern.offset_slots) {
    for (int b = 0; b < 8; ++b) {
      copy[at + b] = static_cast<std::byte>((write_offset >> (8 * b)) & 0xff);
    }
  }
  const std::uint64_t n = copy.size();
  std::uint64_t phase = from % n;
  for (std::uint64_t done = 0; done < len;) {
    const std::uint64_t take = std::min(n - phase, len - done);
    std::memcpy(out + done, copy.data() + phase, take);
    done += take;
    phase = 0;
  }
}

}  // namespace tierlab
