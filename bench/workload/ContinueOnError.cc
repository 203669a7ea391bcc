#include "bench/workload/ContinueOnError.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <utility>

#include "bench/workload/FioUnits.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

// The names fio's ignore_error reads (errno 1 to 34 on Linux, in order).
constexpr std::array<std::string_view, 34> kErrnoNames = {
    "EPERM",  "ENOENT",  "ESRCH",  "EINTR",  "EIO",    "ENXIO",   "E2BIG",  "ENOEXEC", "EBADF",
    "ECHILD", "EAGAIN",  "ENOMEM", "EACCES", "EFAULT", "ENOTBLK", "EBUSY",  "EEXIST",  "EXDEV",
    "ENODEV", "ENOTDIR", "EISDIR", "EINVAL", "ENFILE", "EMFILE",  "ENOTTY", "ETXTBSY", "EFBIG",
    "ENOSPC", "ESPIPE",  "EROFS",  "EMLINK", "EPIPE",  "EDOM",    "ERANGE"};

constexpr std::uint8_t Bit(ErrorType t) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(t));
}
constexpr std::uint8_t kAll = 0b111;

// continue_on_error's names and the types each continues.
constexpr std::array<std::pair<std::string_view, std::uint8_t>, 8> kNames = {{
    {"none", 0},
    {"read", Bit(ErrorType::kRead)},
    {"write", Bit(ErrorType::kWrite)},
    {"io", Bit(ErrorType::kRead) | Bit(ErrorType::kWrite)},
    {"verify", Bit(ErrorType::kVerify)},
    {"all", kAll},
    {"0", 0},
    {"1", kAll},
}};

Expected<int> ParseErrno(std::string_view e) {
  if (e.front() == 'E') {
    const auto* it = std::find(kErrnoNames.begin(), kErrnoNames.end(), e);
    if (it != kErrnoNames.end()) return static_cast<int>(it - kErrnoNames.begin()) + 1;
  } else {
    // fio takes a number's magnitude ("-28" is 28).
    const std::string_view digits = e.front() == '-' ? e.substr(1) : e;
    int n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc() && end == digits.data() + digits.size() && n > 0) return n;
  }
  return MakeError("unknown error " + QuotedText(e) +
                   ": give a number, or a name from EPERM to ERANGE (fio's table)");
}

}  // namespace

bool ContinueOnError::Continues(ErrorType type, int err) const {
  if ((types & Bit(type)) == 0) return false;
  const std::vector<int>& list = ignore[static_cast<int>(type)];
  if (list.empty()) return err == EIO || err == EILSEQ;
  return std::find(list.begin(), list.end(), err) != list.end();
}

ErrorType ErrorTypeOf(IoOp op, int err) {
  if (err == EILSEQ) return ErrorType::kVerify;
  return op == IoOp::kRead ? ErrorType::kRead : ErrorType::kWrite;
}

Expected<void> ParseContinueOnError(std::string_view text, ContinueOnError& c) {
  const std::string_view t = Trim(text);
  for (auto [name, types] : kNames) {
    if (t != name) continue;
    c.types = types;
    for (int k = 0; k < kErrorTypes; ++k) {
      if ((types & (1u << k)) == 0) c.ignore[k].clear();  // without effect now
    }
    return {};
  }
  return MakeError("unknown value " + QuotedText(t) +
                   " (valid: none, read, write, io, verify, all, 0, 1)");
}

Expected<void> ParseIgnoreError(std::string_view text, ContinueOnError& c) {
  std::string_view rest = Trim(text);
  for (int k = 0;; ++k) {
    if (k == kErrorTypes) {
      return MakeError("at most three comma-separated lists (reads, writes, verify), got '" +
                       std::string(Trim(text)) + "'");
    }
    const std::size_t comma = rest.find(',');
    std::string_view list = Trim(rest.substr(0, comma));
    std::vector<int> errors;
    // As fio, the list ends at its first empty entry.
    while (!list.empty()) {
      const std::size_t colon = list.find(':');
      const std::string_view e = Trim(list.substr(0, colon));
      if (e.empty()) break;
      auto n = ParseErrno(e);
      if (!n) return n.error();
      errors.push_back(*n);
      list = colon == std::string_view::npos ? std::string_view() : list.substr(colon + 1);
    }
    if (!errors.empty()) {
      c.ignore[k] = std::move(errors);
      c.types |= static_cast<std::uint8_t>(1u << k);
    }
    if (comma == std::string_view::npos) return {};
    rest = rest.substr(comma + 1);
  }
}

std::string ContinueOnErrorText(const ContinueOnError& c) {
  std::uint8_t listed = 0;
  for (int k = 0; k < kErrorTypes; ++k) {
    if (!c.ignore[k].empty()) listed |= static_cast<std::uint8_t>(1u << k);
  }
  // The named value that, with ignore_error's lists after it, gives `types`.
  for (auto [name, types] : kNames) {
    if ((types & ~c.types) == 0 && (c.types & ~listed & ~types) == 0) return std::string(name);
  }
  return "all";  // not reached: lists only add types to a named value
}

std::string IgnoreErrorText(const ContinueOnError& c) {
  int last = kErrorTypes - 1;
  while (last >= 0 && c.ignore[last].empty()) --last;
  std::string out;
  for (int k = 0; k <= last; ++k) {
    if (k > 0) out += ',';
    for (std::size_t i = 0; i < c.ignore[k].size(); ++i) {
      if (i > 0) out += ':';
      out += ErrnoName(c.ignore[k][i]);
    }
  }
  return out;
}

std::string ErrnoName(int err) {
  if (err >= 1 && err <= static_cast<int>(kErrnoNames.size()))
    return std::string(kErrnoNames[static_cast<std::size_t>(err - 1)]);
  return std::to_string(err);
}

}  // namespace tierlab
