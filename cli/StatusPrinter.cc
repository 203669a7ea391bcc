#include "cli/StatusPrinter.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "bench/workload/FioUnits.h"

namespace tierlab::cli {

StatusPrinter::StatusPrinter(bool quiet, double interval_s)
    : quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0), interval_s_(interval_s) {
  next_ = interval_s_ > 0 ? interval_s_ : (tty_ ? kQuietSeconds : kDefaultIntervalSeconds);
}

StatusPrinter::~StatusPrinter() {
  Clear();
}

void StatusPrinter::Clear() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

void StatusPrinter::Maybe(double elapsed_s, const std::function<std::string()>& status) {
  if (quiet_ || elapsed_s < next_) return;
  const std::string line = status();
  if (interval_s_ == 0 && tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    drawn_ = true;
    next_ = elapsed_s + kRedrawSeconds;
    return;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
  const double step = interval_s_ > 0 ? interval_s_ : kDefaultIntervalSeconds;
  while (next_ <= elapsed_s) next_ += step;
}

Expected<double> ParseStatusInterval(const std::string& text) {
  auto t = ParseFioTime(text, kSecond);
  if (!t.ok() || *t <= 0) {
    return MakeError("--status-interval: expected seconds such as 10, 500ms or 1m, got \"" + text +
                     "\"");
  }
  return static_cast<double>(*t) / 1e9;
}

std::string FormatDuration(double seconds) {
  const long long t = seconds > 0 ? std::llround(seconds) : 0;
  char buf[48];
  if (t >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", t / 60, t % 60);
  }
  return buf;
}

}  // namespace tierlab::cli
