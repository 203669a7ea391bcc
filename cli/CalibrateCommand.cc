// tierlab calibrate PATH: measures a file or block device through the real
// I/O path and writes a device preset fitted to it (bench/lab/
// DeviceCalibration.h has the probe and the fit; docs/VALIDATION.md the
// method), which a layout names as "preset": "file:PATH".

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "bench/lab/DeviceCalibration.h"
#include "bench/lab/DevicePauses.h"
#include "bench/lab/MemoryCopies.h"
#include "bench/lab/Rounded.h"
#include "cli/CalibrateCpu.h"
#include "cli/Commands.h"
#include "layouts/JsonFields.h"
#include "layouts/PresetFile.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileDevice.h"

namespace tierlab::cli {
namespace {

using json = nlohmann::json;

struct CalibrateArgs {
  std::string path;
  bool cpu = false;  // the host's CPU (CalibrateCpu.h), not a device
  bool quick = false;
  std::string size;
  std::string type = "auto";
  std::string name;
  std::string output;  // empty: calibrated.json, or cpu.json with --cpu
  std::string engine = "auto";
  std::string format = "table";
  bool force = false;
  bool quiet = false;
  double runtime_s = 0;  // 0: the plan's
  double tolerance_pct = 0;
  std::string write_cliff;  // bytes of the write saturation probe; empty: none
  double cliff_idle_s = 0;
  std::string dir;  // --cpu: where its RAM files go; empty: CalibrateCpuArgs' default
};

constexpr long kTmpfsMagic = 0x01021994;
constexpr long kRamfsMagic = 0x858458f6;

std::string ReadSysLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

// What medium `path` (or, when it does not exist yet, its directory) is on:
// tmpfs and ramfs are "ram"; a block device's queue/rotational in sysfs
// tells a disk ("hdd") from flash, whose kernel name tells NVMe from SATA/SAS
// ("ssd": what virtio and SCSI disks are taken for too).
std::string DetectMedium(const std::string& path) {
  std::string probe = path;
  struct stat st {};
  if (::stat(probe.c_str(), &st) != 0) {
    probe = std::filesystem::absolute(path).parent_path().string();
    if (::stat(probe.c_str(), &st) != 0) return "ssd";
  }
  struct statfs fs {};
  if (!S_ISBLK(st.st_mode) && ::statfs(probe.c_str(), &fs) == 0 &&
      (static_cast<long>(fs.f_type) == kTmpfsMagic ||
       static_cast<long>(fs.f_type) == kRamfsMagic)) {
    return "ram";
  }
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  const std::string sys =
      "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  std::string rot = ReadSysLine(sys + "/queue/rotational");
  if (rot.empty()) rot = ReadSysLine(sys + "/../queue/rotational");  // a partition
  if (rot == "1") return "hdd";
  std::error_code ec;
  const std::string name = std::filesystem::canonical(sys, ec).filename().string();
  return name.rfind("nvme", 0) == 0 ? "nvme" : "ssd";
}

// A spinning disk's random 4k read at QD1 is a seek and half a turn: 4 ms
// and more for 15k rpm drives; flash, even behind a virtual disk, is well
// under this.
constexpr double kRotationalLatency = 1e6;  // ns

json FiguresJson(const PointFigures& f) {
  return {{"iops", Rounded(f.iops, 2)},
          {"bw_mbps", Rounded(f.bw_bytes / 1e6, 2)},
          {"lat_mean_us", Rounded(f.lat_mean_ns / 1e3, 2)},
          {"lat_p99_us", Rounded(f.lat_p99_ns / 1e3, 2)},
          {"lat_p1_us", Rounded(f.lat_p1_ns / 1e3, 2)}};
}

json CliffSamplesJson(const std::vector<CliffSample>& runs) {
  json out = json::array();
  for (const CliffSample& s : runs) {
    out.push_back({{"written", s.written}, {"bytes", s.bytes}, {"iops", std::round(s.iops)}});
  }
  return out;
}

// What the pause probe saw (DevicePauses.h).
json PausesJson(const HostStalls& h) {
  json j = StallsJson(h);
  j["median_read_us"] = Rounded(static_cast<double>(h.unit) / 1e3, 2);
  j["threshold_us"] = kPauseThreshold / kMicro;
  return j;
}

// What the memory's own copies took (MemoryCopies.h).
json CopiesJson(const MemoryCopies& c) {
  return {{"read_4k_ns", Rounded(c.read_4k_ns, 1)},
          {"write_4k_ns", Rounded(c.write_4k_ns, 1)},
          {"read_mbps", Rounded(c.read_bw_bytes / 1e6, 1)},
          {"write_mbps", Rounded(c.write_bw_bytes / 1e6, 1)},
          {"window_ms", c.window / kMilli}};
}

json CalibrationJson(const CalibrateArgs& a, const CalibrationPlan& plan,
                     const std::vector<ProbeResult>& probe, const CalibrationFit& fit,
                     const std::optional<CliffProbe>& cliff,
                     const std::optional<HostStalls>& pauses, const std::string& engine,
                     double seconds) {
  json points = json::array();
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const ProbeResult& r = probe[i];
    const FitPoint& fp = fit.points[i];
    json runs = json::array();
    for (const PointFigures& f : r.runs) runs.push_back(FiguresJson(f));
    points.push_back({{"point", r.point.Name()},
                      {"measured", FiguresJson(r.median)},
                      {"spread", Rounded(r.spread, 3)},
                      {"runs", std::move(runs)},
                      {"model", FiguresJson(fp.model)},
                      {"iops_error", Rounded(fp.iops_error, 3)},
                      {"lat_mean_error", Rounded(fp.lat_mean_error, 3)}});
  }
  json j = {{"path", a.path},
            {"date", TodayUtc()},
            {"engine", engine},
            {"plan", a.quick ? "quick" : "full"},
            {"region", FormatBytes(plan.region)},
            {"ramp_ms", plan.ramp / kMilli},
            {"runtime_ms", plan.runtime / kMilli},
            {"repeats", plan.repeats},
            {"tolerance", plan.tolerance},
            {"seconds", std::round(seconds)},
            {"max_iops_error", Rounded(fit.max_iops_error, 3)},
            {"max_lat_mean_error", Rounded(fit.max_lat_error, 3)},
            {"notes", fit.notes},
            {"points", std::move(points)}};
  if (cliff) {
    j["write_cliff"] = {{"samples", CliffSamplesJson(cliff->samples)},
                        {"sequential", FiguresJson(cliff->steady_seq)},
                        {"idle_s", static_cast<double>(cliff->idle) / 1e9},
                        {"after_idle", CliffSamplesJson(cliff->after_idle)}};
  }
  if (pauses) j["pauses"] = PausesJson(*pauses);
  return j;
}

void PrintTable(const CalibrationFit& fit, const std::vector<ProbeResult>& probe) {
  std::printf("%-20s %12s %12s %7s %12s %12s %7s %7s\n", "point", "IOPS", "model", "error",
              "mean_us", "model", "error", "spread");
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const FitPoint& f = fit.points[i];
    std::printf("%-20s %12.0f %12.0f %+6.1f%% %12.1f %12.1f %+6.1f%% %6.1f%%\n",
                f.point.Name().c_str(), f.measured.iops, f.model.iops, f.iops_error * 100,
                f.measured.lat_mean_ns / 1e3, f.model.lat_mean_ns / 1e3, f.lat_mean_error * 100,
                probe[i].spread * 100);
  }
  const DevicePreset& p = fit.preset;
  if (p.is_hdd()) {
    std::printf(
        "fitted hdd: %.0f rpm; seek read %.2f ms (track to track %.2f), write %.2f ms (%.2f); "
        "zones %.0f to %.0f MB/s; overhead read miss %.0f us, hit %.0f us, write %.0f us; NCQ "
        "%u\n",
        p.rpm, p.avg_seek_read_ms, p.track_to_track_read_ms, p.avg_seek_write_ms,
        p.track_to_track_write_ms, p.max_transfer_mbps, p.min_transfer_mbps,
        static_cast<double>(p.overhead_read_miss) / 1e3,
        static_cast<double>(p.overhead_read_hit) / 1e3, static_cast<double>(p.overhead_write) / 1e3,
        p.ncq_depth);
  } else {
    std::printf(
        "fitted %s: read %.0f IOPS, %.1f us, %.0f MB/s; write %.0f IOPS, %.1f us, %.0f MB/s; "
        "%u service units\n",
        std::string(ToString(p.type)).c_str(), p.read_iops_4k,
        static_cast<double>(p.read_latency) / 1e3, p.seq_read_mbps, p.write_iops_4k,
        static_cast<double>(p.write_latency) / 1e3, p.seq_write_mbps, p.service_units);
    if (p.has_write_cliff()) {
      std::printf(
          "write cliff after %.0f MiB: then %.0f IOPS, %.0f MB/s; regains %.1f MB/s when idle\n",
          static_cast<double>(p.write_cliff_bytes) / (1 << 20), p.steady_write_iops_4k,
          p.steady_seq_write_mbps, p.cliff_recovery_mbps);
    }
    if (!p.pauses.empty()) {
      std::printf("pauses:");
      for (const DevicePreset::Pause& q : p.pauses) {
        std::printf(" %.1f a second of %.0f us;", q.per_second,
                    static_cast<double>(q.duration) / 1e3);
      }
      std::printf(" a request completing in one waits for its end\n");
    }
  }
  for (const std::string& n : fit.notes) std::printf("note: %s\n", n.c_str());
  std::printf("largest fit error: IOPS %.1f%%, mean latency %.1f%%\n", fit.max_iops_error * 100,
              fit.max_lat_error * 100);
}

// A plan's run settings from the command line.
void ApplyRunOptions(const CalibrateArgs& a, CalibrationPlan& plan) {
  if (a.runtime_s > 0) {
    plan.runtime = static_cast<Nanos>(a.runtime_s * 1e9);
    plan.ramp = std::min(plan.ramp, plan.runtime / 4);
  }
  if (a.tolerance_pct > 0) plan.tolerance = a.tolerance_pct / 100;
}

// Whether a regular file has holes below `bytes`: its reads there never
// reach the disk, so they would time the page cache, not the platter.
bool HasHoles(const std::string& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  const off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  ::close(fd);
  return hole >= 0 && static_cast<std::uint64_t>(hole) < bytes;
}

// 4k random reads at QD1 for a second over `region`: milliseconds on a disk,
// well under one on flash, even behind a virtual disk that calls itself
// rotational.
Expected<double> Qd1ReadLatencyNs(Engine& engine, BlockDevice& device, std::uint64_t region) {
  CalibrationPlan pre;
  pre.points = {ProbePoint{RwMode::kRandRead, 4096, 1}};
  pre.region = region;
  pre.fill = false;
  pre.repeats = 1;
  pre.max_repeats = 1;
  pre.ramp = 100 * kMilli;
  pre.runtime = kSecond;
  auto r = RunProbe(engine, device, pre);
  if (!r.ok()) return r.error();
  return r->front().median.lat_mean_ns;
}

int NoCliffOnDisk(const std::string& path) {
  return Fail(path +
                  ": --write-cliff probes flash; a disk writes at one rate however much it "
                  "is written",
              kExitUsage);
}

// --cpu: the options that apply to it, handed to RunCalibrateCpu.
int RunCalibrateCpuFrom(const CalibrateArgs& a, std::uint64_t size_override) {
  if (!a.path.empty()) {
    return Fail(
        "calibrate --cpu takes no PATH (it probes RAM files of its own); got \"" + a.path + "\"",
        kExitUsage);
  }
  if (!a.write_cliff.empty() || a.cliff_idle_s > 0 || a.type != "auto" || a.force ||
      a.engine != "auto" || !a.name.empty()) {
    return Fail(
        "calibrate --cpu: takes --quick, --size, --dir, --runtime, --tolerance, -o, -f and -q; "
        "--write-cliff, --cliff-idle, --type, --engine, --name and --force are a device's",
        kExitUsage);
  }
  CalibrateCpuArgs c;
  if (!a.dir.empty()) {
    // The probe is the CPU's over RAM files: on a disk it would time the disk.
    std::error_code ec;
    if (std::filesystem::is_directory(a.dir, ec) && DetectMedium(a.dir) != "ram") {
      return Fail("--dir: " + a.dir +
                      " is not on a RAM filesystem (tmpfs, ramfs); the probe times the CPU "
                      "over RAM files",
                  kExitUsage);
    }
    c.dir = a.dir;
  }
  c.quick = a.quick;
  if (size_override != 0) c.region = size_override;
  if (!a.output.empty()) c.output = a.output;
  c.format = a.format;
  c.runtime_s = a.runtime_s;
  c.tolerance_pct = a.tolerance_pct;
  c.quiet = a.quiet;
  return RunCalibrateCpu(c);
}

int RunCalibrate(const CalibrateArgs& a) {
  std::uint64_t size_override = 0;
  if (!a.size.empty()) {
    auto b = ParseBytesText(a.size);
    if (!b.ok() || *b < (1u << 20))
      return Fail("--size: bytes, at least 1m, got \"" + a.size + "\"", kExitUsage);
    size_override = *b;
  }
  if (a.format != "table" && a.format != "json") {
    return Fail("--format: unknown \"" + a.format + "\"; known: table, json", kExitUsage);
  }
  if (a.cpu) return RunCalibrateCpuFrom(a, size_override);
  if (!a.dir.empty()) {
    return Fail("calibrate: --dir is --cpu's (where its RAM files go); a device's probe uses PATH",
                kExitUsage);
  }
  if (a.path.empty()) {
    return Fail("calibrate: PATH, the file or block device to probe, is required (or --cpu)",
                kExitUsage);
  }
  if (a.engine != "auto" && a.engine != "io_uring" && a.engine != "libaio") {
    return Fail("--engine: unknown \"" + a.engine + "\"; known: auto, io_uring, libaio",
                kExitUsage);
  }
  const FileEngine engine_kind = a.engine == "io_uring" ? FileEngine::kIoUring
                                 : a.engine == "libaio" ? FileEngine::kLibaio
                                                        : FileEngine::kAuto;
  CliffPlan cliff_plan;
  if (!a.write_cliff.empty()) {
    auto b = ParseBytesText(a.write_cliff);
    if (!b.ok() || *b < (64u << 20)) {
      return Fail("--write-cliff: bytes, at least 64m, got \"" + a.write_cliff + "\"", kExitUsage);
    }
    cliff_plan.bytes = *b;
    cliff_plan.idle = static_cast<Nanos>(a.cliff_idle_s * 1e9);
  } else if (a.cliff_idle_s > 0) {
    return Fail("--cliff-idle: needs --write-cliff", kExitUsage);
  }
  const std::string medium = a.type == "auto" ? DetectMedium(a.path) : a.type;
  auto type = ParseDeviceType(medium);
  if (!type.ok()) {
    return Fail("--type: unknown \"" + a.type + "\"; known: auto, ram, optane, nvme, ssd, hdd",
                kExitUsage);
  }
  // The kernel's rotational flag is a hint: virtual disks often carry it
  // whatever backs them. A short QD1 read probe decides (below).
  const bool kernel_rotational = *type == DeviceType::kHdd && a.type == "auto";
  bool disk = *type == DeviceType::kHdd && !kernel_rotational;
  if (disk && cliff_plan.bytes != 0) return NoCliffOnDisk(a.path);

  struct stat st {};
  const bool exists = ::stat(a.path.c_str(), &st) == 0;
  if (disk && !exists) {
    return Fail(a.path +
                    ": calibrating a disk needs an existing block device or a file written "
                    "whole (a new file's blocks are holes, which never reach the platter)",
                kExitUsage);
  }
  const std::uint64_t flash_region =
      size_override != 0 ? size_override : (a.quick ? QuickPlan() : FullPlan()).region;
  if (exists && !a.force && (S_ISBLK(st.st_mode) || st.st_size > 0)) {
    return Fail(
        a.path + ": calibrate writes over " +
            (disk ? std::string("the whole of it") : "its first " + FormatBytes(flash_region)) +
            "; pass --force to let it",
        kExitUsage);
  }
  RealEngine engine;
  FileDeviceOptions fo;
  fo.path = a.path;
  fo.create = !exists;
  fo.size = exists ? 0 : flash_region;
  fo.engine = engine_kind;
  fo.queue_depth = 64;
  auto dev = FileDevice::Open(engine, "calibrated", fo);
  if (!dev.ok()) return Fail(dev.error());
  struct Remove {
    std::string path;
    ~Remove() {
      if (!path.empty()) ::unlink(path.c_str());
    }
  } remove{exists ? "" : a.path};
  const std::uint64_t whole = (*dev)->Size() / (1u << 20) * (1u << 20);
  const std::uint64_t disk_region = size_override != 0 ? std::min(size_override, whole) : whole;
  if (whole == 0) return Fail(a.path + ": smaller than 1 MiB", kExitUsage);

  const bool holes = exists && S_ISREG(st.st_mode) && HasHoles(a.path, disk_region);
  if (disk && holes) {
    return Fail(a.path + ": has holes below " + FormatBytes(disk_region) +
                    ", which a disk's reads never reach: write it whole first (fio "
                    "--rw=write), or calibrate the block device",
                kExitUsage);
  }
  if ((disk || kernel_rotational) && exists && !holes) {
    auto lat = Qd1ReadLatencyNs(engine, **dev, disk_region);
    if (!lat.ok()) return Fail(a.path + ": " + lat.error().message, ExitCodeFor(lat.error().kind));
    const bool slow = *lat > kRotationalLatency;
    if (disk && !slow) {
      return Fail(a.path + ": does not look rotational: its 4k random reads take " +
                      std::to_string(std::lround(*lat / 1e3)) +
                      " us at QD1 (a disk's take milliseconds); calibrate it as flash (--type "
                      "auto, nvme or ssd)",
                  kExitUsage);
    }
    disk = slow;
    if (!disk && !a.quiet) {
      std::fprintf(stderr,
                   "calibrate: the kernel calls %s rotational, but its 4k random reads take "
                   "%.0f us at QD1 (a disk's take milliseconds): fitted as flash\n",
                   a.path.c_str(), *lat / 1e3);
    }
  }
  if (*type == DeviceType::kHdd && !disk) type = DeviceType::kSsd;
  if (disk && cliff_plan.bytes != 0) return NoCliffOnDisk(a.path);

  CalibrationPlan plan = disk ? HddPlan(a.quick, disk_region) : a.quick ? QuickPlan() : FullPlan();
  if (!disk) plan.region = std::min(flash_region, whole);
  ApplyRunOptions(a, plan);

  // A mapped memory file's figures are the memory's (MemoryCopies.h), timed
  // for a run's time after the probe.
  const bool memory = *type == DeviceType::kRam && (*dev)->mapped();
  const auto t0 = std::chrono::steady_clock::now();
  if (!a.quiet) {
    std::fprintf(stderr, "calibrate: %s (%s, %s), %zu points x %u runs over %s, about %.0f s\n",
                 a.path.c_str(),
                 disk                ? "hdd"
                 : kernel_rotational ? "rotational, says the kernel"
                                     : medium.c_str(),
                 ToString((*dev)->engine()), plan.points.size(), plan.repeats,
                 FormatBytes(plan.region).c_str(),
                 static_cast<double>(PlannedTime(plan) + (memory ? plan.runtime : 0)) / 1e9);
  }
  auto probe = RunProbe(engine, **dev, plan, [&](const ProbeProgress& p) {
    if (a.quiet) return;
    if (p.point == nullptr) {
      std::fprintf(stderr, "calibrate: writing the region once\n");
    } else if (p.run == 1) {
      std::fprintf(stderr, "calibrate: %s\n", p.point->Name().c_str());
    } else if (p.run > plan.repeats) {
      std::fprintf(stderr, "calibrate: %s not settled, run %u\n", p.point->Name().c_str(), p.run);
    }
  });
  if (!probe.ok()) {
    std::string m = a.path + ": " + probe.error().message;
    if (probe.error().kind == ErrorKind::kInconsistent) {
      m += " (a busy machine, or a device's background work: longer runs, --runtime, may "
           "settle it; --tolerance accepts a wider range)";
    }
    return Fail(m, ExitCodeFor(probe.error().kind));
  }
  std::optional<CliffProbe> cliff;
  if (cliff_plan.bytes != 0) {
    if (!a.quiet) {
      std::fprintf(stderr, "calibrate: write cliff: %s of 4k random writes at QD32 in %u runs%s\n",
                   FormatBytes(cliff_plan.bytes).c_str(), cliff_plan.samples,
                   cliff_plan.idle > 0 ? ", then idle and again" : "");
    }
    auto c = RunCliffProbe(engine, **dev, plan, cliff_plan);
    if (!c.ok()) return Fail(a.path + ": " + c.error().message, ExitCodeFor(c.error().kind));
    cliff = std::move(*c);
  }
  std::optional<HostStalls> pauses;
  if (plan.pause_window > 0) {
    if (!a.quiet) {
      std::fprintf(stderr, "calibrate: pauses, 4k random reads at QD1 for %.0f s\n",
                   static_cast<double>(plan.pause_window) / 1e9);
    }
    auto p = MeasureDevicePauses(engine, **dev, plan.region, plan.pause_window);
    if (!p.ok()) return Fail(a.path + ": " + p.error().message, ExitCodeFor(p.error().kind));
    if (const auto busy = PausedShareWarning(*p)) {
      std::fprintf(stderr, "calibrate: warning: %s: %s; the preset has them\n", a.path.c_str(),
                   busy->c_str());
    }
    pauses = std::move(*p);
  }
  std::optional<MemoryCopies> copies;
  if (memory) {
    if (!a.quiet) {
      std::fprintf(stderr, "calibrate: the memory's own copies, 4k and 1m each way, for %.1f s\n",
                   static_cast<double>(plan.runtime) / 1e9);
    }
    auto c = MeasureFileCopies(a.path, plan.region, plan.runtime);
    if (!c.ok()) return Fail(c.error().message, ExitCodeFor(c.error().kind));
    copies = *c;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!disk && kernel_rotational) {
    // A new file on a disk the kernel calls rotational: its probe ran as
    // flash; if its reads took a disk's milliseconds, say how to fit one.
    const ProbeResult& qd1 = probe->front();  // random 4k reads at QD1
    if (qd1.median.lat_mean_ns > kRotationalLatency) {
      return Fail(a.path + ": 4k random reads take " +
                      std::to_string(std::lround(qd1.median.lat_mean_ns / 1e3)) +
                      " us at QD1, a disk's: calibrate the block device, or a file written "
                      "whole, with --type hdd",
                  kExitUsage);
    }
  }
  DevicePreset base;
  if (disk) {
    // What the probe does not measure (the buffer, the host link) comes from
    // the catalog's 7,200 rpm SATA disk.
    base = *FindPreset("hdd-7200");
  }
  base.name = a.name.empty() ? "calibrated" : a.name;
  base.product = "tierlab calibrate " + a.path + " (" + TodayUtc() + ")";
  base.type = *type;
  base.capacity_bytes = (*dev)->Size();
  auto fit = disk ? FitHddModel(*probe, plan, base) : FitFlashModel(*probe, plan, base);
  if (!fit.ok()) return Fail(a.path + ": " + fit.error().message, ExitCodeFor(fit.error().kind));
  if (copies) {
    if (auto f = FitMemoryCopies(*copies, *probe, plan, *fit); !f.ok()) {
      return Fail(a.path + ": " + f.error().message, ExitCodeFor(f.error().kind));
    }
  }
  if (pauses) fit->preset.pauses = pauses->stalls;
  if (cliff) {
    if (auto c = FitWriteCliff(*cliff, *fit); !c.ok()) {
      return Fail(a.path + ": " + c.error().message, ExitCodeFor(c.error().kind));
    }
  }
  json calibration =
      CalibrationJson(a, plan, *probe, *fit, cliff, pauses, ToString((*dev)->engine()), seconds);
  if (copies) calibration["memory_copies"] = CopiesJson(*copies);
  const json doc = PresetFileJson(fit->preset, calibration);
  return EmitCalibration(doc, a.output.empty() ? "calibrated.json" : a.output, a.format,
                         [&] { PrintTable(*fit, *probe); }, {"preset", "in a tier", "preset"});
}

}  // namespace

void RegisterCalibrateCommand(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure a file or block device and fit a device preset to it");
  cmd->add_option("path", a->path,
                  "File or block device (a missing file is created, then removed); none with "
                  "--cpu");
  cmd->add_flag("--cpu", a->cpu,
                "Measure the host CPU's cost per I/O of a cached volume on RAM files and its "
                "stalls instead, and write a cpu file (default cpu.json) a layout names as "
                "\"cpu\"");
  cmd->add_flag("--quick", a->quick, "At most a minute: fewer queue depths, shorter runs");
  cmd->add_option("--size", a->size,
                  "Bytes from the start to probe (default 1g, quick 512m; --cpu: the working "
                  "set, default 128m)");
  cmd->add_option("--type", a->type, "Model type: auto, ram, optane, nvme, ssd or hdd")
      ->capture_default_str();
  cmd->add_option("--name", a->name, "The preset's name in its file");
  cmd->add_option("-o,--output", a->output,
                  "Preset file to write, - for none (default calibrated.json; --cpu: cpu.json)");
  cmd->add_option("--dir", a->dir,
                  "--cpu: the directory its RAM files go in, on tmpfs or ramfs (default "
                  "/dev/shm)");
  cmd->add_option("--engine", a->engine, "auto, io_uring or libaio")->capture_default_str();
  cmd->add_option("-f,--format", a->format, "table or json (the preset file, on stdout)")
      ->capture_default_str();
  cmd->add_option("--runtime", a->runtime_s,
                  "Seconds measured per run (default 3, quick 1.5); the ramp before it is at "
                  "most a quarter of it")
      ->check(CLI::Range(0.05, 3600.0));
  cmd->add_option("--tolerance", a->tolerance_pct,
                  "A point has settled when its runs' IOPS range within this % of their median "
                  "(default 20, SNIA PTS's)")
      ->check(CLI::Range(1.0, 1000.0));
  cmd->add_option("--write-cliff", a->write_cliff,
                  "Also write this many bytes of 4k random writes at QD32 and fit the flash write "
                  "cliff (at least 64m; write twice the cliff expected)");
  cmd->add_option("--cliff-idle", a->cliff_idle_s,
                  "Seconds idle after the cliff, then write again: the cliff's recovery rate")
      ->check(CLI::Range(0.1, 86400.0));
  cmd->add_flag("--force", a->force, "Write over an existing file or block device");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &result] { result.exit_code = RunCalibrate(*a); });
}

}  // namespace tierlab::cli
