#pragma once
// Progress of a long command on stderr, with fio's --status-interval
// meaning: seconds between status reports.
//
//   -q                    nothing
//   --status-interval T   a status line every T seconds (fio time: "30",
//                         "500ms", "1m"; a bare number is seconds), on a
//                         terminal or not, as fio's periodic status dumps
//   default               nothing during the first kQuietSeconds; then on a
//                         terminal one line redrawn in place, elsewhere (CI
//                         logs) a line every kDefaultIntervalSeconds
//
// Not thread-safe: one thread calls Maybe (the runner's progress callback,
// or the matrix runner's tick).

#include <functional>
#include <string>

#include "tiering/core/Expected.h"

namespace tierlab::cli {

class StatusPrinter {
 public:
  static constexpr double kQuietSeconds = 3;
  static constexpr double kDefaultIntervalSeconds = 10;
  static constexpr double kRedrawSeconds = 0.25;

  // `interval_s` 0: the default above.
  StatusPrinter(bool quiet, double interval_s);
  ~StatusPrinter();
  StatusPrinter(const StatusPrinter&) = delete;
  StatusPrinter& operator=(const StatusPrinter&) = delete;

  // Prints `status()` if one is due `elapsed_s` seconds into the command.
  void Maybe(double elapsed_s, const std::function<std::string()>& status);
  // Erases a line drawn in place, before other output on stderr.
  void Clear();

 private:
  bool quiet_;
  bool tty_;
  double interval_s_;
  double next_ = 0;
  bool drawn_ = false;
};

// Parses --status-interval: a fio time, bare numbers in seconds, > 0.
Expected<double> ParseStatusInterval(const std::string& text);

// "1:02:03" or "2:03".
std::string FormatDuration(double seconds);

}  // namespace tierlab::cli
