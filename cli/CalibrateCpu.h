#pragma once
// tierlab calibrate --cpu: the host CPU's cost per I/O of a cached volume on
// tierlab's engine thread (bench/lab/HostCpuCalibration.h), written as a cpu
// file that a layout names as "cpu": "file:PATH". CalibrateCommand.cc owns
// the options and hands them here.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace tierlab {
struct HostStalls;
}  // namespace tierlab

namespace tierlab::cli {

struct CalibrateCpuArgs {
  bool quick = false;
  std::uint64_t region = 128ull << 20;  // the probe's working set
  std::string dir = "/dev/shm";         // where the probe's RAM files go
  std::string output = "cpu.json";      // "-": none
  std::string format = "table";
  double runtime_s = 0;  // 0: the plan's
  double tolerance_pct = 0;
  bool quiet = false;
};

// Exit code.
int RunCalibrateCpu(const CalibrateCpuArgs& a);

// What both calibrations end with: `doc` written to `output` (none when
// empty or "-"), then printed as JSON (`format` "json") or as `table`,
// followed by the line "<what> written to OUTPUT: name it <where> as
// "<key>": "file:OUTPUT"" when there is a file.
struct CalibrationFileHint {
  const char* what;   // "preset", "cpu"
  const char* where;  // "in a tier", "in a layout"
  const char* key;    // "preset", "cpu"
};
int EmitCalibration(const nlohmann::json& doc, const std::string& output, const std::string& format,
                    const std::function<void()>& table, CalibrationFileHint hint);
// Today's date, UTC, as calibration files record it.
std::string TodayUtc();
// What a stall or pause probe saw (bench/lab/HostStalls.h), as both files
// keep it: the window, the count, the share of the time, the longest; and
// the host's speed over windows where the probe measured it (the stalls').
nlohmann::json StallsJson(const HostStalls& h);

}  // namespace tierlab::cli
