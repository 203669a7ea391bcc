#include "bench/lab/FioLogs.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>

namespace tierlab {
namespace {

int Ddir(IoOp op) {
  switch (op) {
    case IoOp::kRead: return 0;
    case IoOp::kWrite: return 1;
    case IoOp::kDiscard: return 2;
    default: return -1;  // flushes: fio logs none
  }
}

}  // namespace

Expected<std::unique_ptr<FioLogs>> FioLogs::Open(const Profile& p, std::uint32_t index) {
  if (!p.write_bw_log && !p.write_iops_log && !p.write_lat_log) {
    return std::unique_ptr<FioLogs>();
  }
  std::unique_ptr<FioLogs> logs(new FioLogs());
  logs->avg_ = Nanos{p.log_avg_msec} * kMilli;
  logs->offsets_ = p.log_offset;
  logs->log_prio_ = p.priorities.log_prio;
  auto name = [&](const std::optional<std::string>& n) { return n->empty() ? p.name : *n; };
  const std::string n = "." + std::to_string(index) + ".log";
  if (p.write_bw_log) logs->paths_[kBw] = name(p.write_bw_log) + "_bw" + n;
  if (p.write_iops_log) logs->paths_[kIops] = name(p.write_iops_log) + "_iops" + n;
  if (p.write_lat_log) {
    logs->paths_[kLat] = name(p.write_lat_log) + "_lat" + n;
    logs->paths_[kClat] = name(p.write_lat_log) + "_clat" + n;
    logs->paths_[kSlat] = name(p.write_lat_log) + "_slat" + n;
  }
  for (int k = 0; k < kKinds; ++k) {
    const std::string& path = logs->paths_[k];
    if (path.empty()) continue;
    logs->files_[k] = std::fopen(path.c_str(), "w");
    if (logs->files_[k] == nullptr) {
      return MakeError(path + ": cannot create the log: " + std::strerror(errno), ErrorKind::kIo);
    }
    logs->names_.push_back(path);
  }
  return logs;
}

FioLogs::~FioLogs() {
  for (std::FILE* f : files_) {
    if (f != nullptr) std::fclose(f);
  }
}

void FioLogs::Line(Kind k, std::uint64_t ms, std::uint64_t value, int ddir, std::uint64_t bs,
                   std::uint64_t offset, std::uint32_t prio) {
  std::FILE* f = files_[k];
  if (f == nullptr) return;
  // fio's priority column: the value in hex with log_prio, else 1 for RT.
  char column[16];
  if (log_prio_) {
    std::snprintf(column, sizeof column, "0x%04x", prio);
  } else {
    std::snprintf(column, sizeof column, "%d", IoprioIsRt(prio) ? 1 : 0);
  }
  if (offsets_) {
    std::fprintf(f, "%" PRIu64 ", %" PRIu64 ", %d, %" PRIu64 ", %" PRIu64 ", %s\n", ms, value, ddir,
                 bs, offset, column);
  } else {
    std::fprintf(f, "%" PRIu64 ", %" PRIu64 ", %d, %" PRIu64 ", %s\n", ms, value, ddir, bs, column);
  }
}

void FioLogs::Add(IoOp op, Nanos t, std::uint64_t length, std::uint64_t offset, Nanos lat,
                  Nanos clat, std::uint32_t prio) {
  const int d = Ddir(op);
  if (d < 0 || t < 0) return;
  if (avg_ == 0) {
    const auto ms = static_cast<std::uint64_t>(t / kMilli);
    const auto ulat = static_cast<std::uint64_t>(std::max<Nanos>(lat, 0));
    const auto uclat = static_cast<std::uint64_t>(std::max<Nanos>(clat, 0));
    Line(kBw, ms, uclat > 0 ? length * 1'000'000 / uclat : 0, d, length, offset, prio);
    Line(kIops, ms, 1, d, length, offset, prio);
    Line(kLat, ms, ulat, d, length, offset, prio);
    Line(kClat, ms, uclat, d, length, offset, prio);
    Line(kSlat, ms, 0, d, length, offset, prio);
    return;
  }
  const auto w = static_cast<std::uint64_t>(t / avg_);
  if (w != window_) {
    FlushWindow();
    window_ = w;
  }
  Window& s = dirs_[d];
  ++s.ops;
  s.bytes += length;
  s.lat_sum += static_cast<double>(lat);
  s.clat_sum += static_cast<double>(clat);
}

void FioLogs::FlushWindow() {
  const std::uint64_t avg_ms = static_cast<std::uint64_t>(avg_ / kMilli);
  const std::uint64_t end_ms = (window_ + 1) * avg_ms;
  // fio writes the bandwidth and IOPS entries of the directions with
  // completions first, then the latencies'.
  for (int d = 0; d < 3; ++d) {
    const Window& s = dirs_[d];
    if (s.ops == 0) continue;
    Line(kBw, end_ms, s.bytes * 1000 / avg_ms / 1024, d, 0, 0, 0);
    Line(kIops, end_ms, s.ops * 1000 / avg_ms, d, 0, 0, 0);
  }
  for (int d = 0; d < 3; ++d) {
    const Window& s = dirs_[d];
    if (s.ops == 0) continue;
    const double n = static_cast<double>(s.ops);
    Line(kLat, end_ms, static_cast<std::uint64_t>(s.lat_sum / n + 0.5), d, 0, 0, 0);
    Line(kClat, end_ms, static_cast<std::uint64_t>(s.clat_sum / n + 0.5), d, 0, 0, 0);
    Line(kSlat, end_ms, 0, d, 0, 0, 0);
  }
  dirs_ = {};
}

Expected<void> FioLogs::Finish() {
  if (avg_ > 0) FlushWindow();
  Expected<void> result;
  for (int k = 0; k < kKinds; ++k) {
    std::FILE* f = files_[k];
    if (f == nullptr) continue;
    const bool failed = std::ferror(f) != 0;
    const bool closed = std::fclose(f) == 0;
    files_[k] = nullptr;
    if ((failed || !closed) && result) {
      result = MakeError(paths_[k] + ": cannot write the log", ErrorKind::kIo);
    }
  }
  return result;
}

}  // namespace tierlab
