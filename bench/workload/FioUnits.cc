#include "bench/workload/FioUnits.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Leading digits of `s` as an integer; `rest` gets the suffix.
bool ParseLeadingInteger(std::string_view s, std::uint64_t& value, std::string_view& rest) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr == s.data()) return false;
  rest = s.substr(static_cast<std::size_t>(ptr - s.data()));
  return true;
}

bool MulOverflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  return __builtin_mul_overflow(a, b, &out);
}

}  // namespace

std::string_view Trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

Expected<std::uint64_t> ParseFioSize(std::string_view text, int kb_base) {
  const std::string_view s = Trim(text);
  const auto bad = [&] {
    return MakeError("expected a size such as 4096, 4k, 64m or 1g, got " + QuotedText(s));
  };
  std::uint64_t v = 0;
  std::string_view rest;
  if (!ParseLeadingInteger(s, v, rest)) return bad();
  if (rest.empty()) return v;
  static constexpr std::string_view kPrefixes = "kmgtp";
  const char c = static_cast<char>(rest[0] | 0x20);
  const std::size_t power = kPrefixes.find(c);
  if (power == std::string_view::npos) return bad();
  const std::string_view tail = rest.substr(1);
  // "kib" vs "k"/"kb"/"ki": fio swaps only the spelling that ends in "ib"
  // (a bare "ki" is a plain "k" to it).
  bool iec;
  if (tail.empty() || IEquals(tail, "b") || IEquals(tail, "i")) {
    iec = false;
  } else if (IEquals(tail, "ib")) {
    iec = true;
  } else {
    return bad();
  }
  // fio's compatibility mode (kb_base=1024) swaps the two meanings.
  const std::uint64_t unit = (kb_base == 1000) != iec ? 1000 : 1024;
  std::uint64_t mult = 1;
  for (std::size_t i = 0; i <= power; ++i) mult *= unit;
  std::uint64_t out;
  if (MulOverflows(v, mult, out)) return MakeError("size too large: " + QuotedText(s));
  return out;
}

Expected<Nanos> ParseFioTime(std::string_view text, Nanos default_unit) {
  const std::string_view s = Trim(text);
  std::uint64_t v = 0;
  std::string_view rest;
  if (!ParseLeadingInteger(s, v, rest)) {
    return MakeError("expected a time such as 30, 30s, 500ms, 100us, 5m or 1h, got " +
                     QuotedText(s));
  }
  Nanos unit = default_unit;
  if (!rest.empty()) {
    struct Suffix {
      std::string_view name;
      Nanos unit;
    };
    // fio's suffixes, and only those: fio reads any other letters as
    // microseconds ("2sec" and "1hr" as 2 and 1 us), so a job file that
    // used one would mean something else to fio than to tierlab.
    static constexpr std::array<Suffix, 8> kSuffixes = {{
        {"us", kMicro},
        {"usec", kMicro},
        {"ms", kMilli},
        {"msec", kMilli},
        {"s", kSecond},
        {"m", 60 * kSecond},
        {"h", 3600 * kSecond},
        {"d", 86400 * kSecond},
    }};
    unit = 0;
    for (const auto& suf : kSuffixes) {
      if (IEquals(rest, suf.name)) unit = suf.unit;
    }
    if (unit == 0) {
      return MakeError("unknown time suffix in " + QuotedText(s) +
                       " (fio would read it as microseconds; valid: us, ms, s, m, h, d)");
    }
  }
  std::uint64_t out;
  if (MulOverflows(v, static_cast<std::uint64_t>(unit), out) ||
      out > static_cast<std::uint64_t>(std::numeric_limits<Nanos>::max())) {
    return MakeError("time too large: " + QuotedText(s));
  }
  return static_cast<Nanos>(out);
}

Expected<std::uint64_t> ParseUnsigned(std::string_view text) {
  const std::string_view s = Trim(text);
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) {
    return MakeError("expected a non-negative integer, got " + QuotedText(s));
  }
  return v;
}

Expected<double> ParseDouble(std::string_view text) {
  const std::string_view s = Trim(text);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty() || !std::isfinite(v)) {
    return MakeError("expected a number, got " + QuotedText(s));
  }
  return v;
}

std::string FormatFioSize(std::uint64_t bytes) {
  static constexpr std::string_view kPrefixes = "kmgtp";
  if (bytes == 0) return "0";
  int power = -1;
  std::uint64_t v = bytes;
  while (power + 1 < static_cast<int>(kPrefixes.size()) && v % 1024 == 0) {
    v /= 1024;
    ++power;
  }
  std::string out = std::to_string(v);
  if (power >= 0) out += kPrefixes[static_cast<std::size_t>(power)];
  return out;
}

std::string FormatFioTime(Nanos t) {
  struct Unit {
    Nanos ns;
    const char* name;
  };
  static constexpr std::array<Unit, 5> kUnits = {
      {{3600 * kSecond, "h"}, {60 * kSecond, "m"}, {kSecond, "s"}, {kMilli, "ms"}, {kMicro, "us"}}};
  if (t <= 0) return "0s";
  for (const auto& u : kUnits) {
    if (t % u.ns == 0) return std::to_string(t / u.ns) + u.name;
  }
  // fio's resolution is the microsecond (and it has no "ns"): the nearest.
  return std::to_string((t + kMicro / 2) / kMicro) + "us";
}

std::string FormatDouble(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("0");
}

}  // namespace tierlab
