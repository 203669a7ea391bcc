#pragma once
// The catalog of simulated devices: each preset carries the figures of one
// real product's datasheet (or product brief), so a layout can say
// "nvme-pm1725" instead of a dozen numbers. docs/DEVICES.md gives the source
// of every figure and marks the ones that are assumptions.
//
// Flash and RAM presets use the random/sequential/latency block; HDD presets
// use the mechanical block (RPM, seek, zoned transfer rate). Fields a
// datasheet does not give for a device type are zero.
//
// Units: MB/s are 10^6 bytes per second, as datasheets use them; capacities
// are decimal bytes; latencies are engine Nanos.
//
// Threading: the catalog is immutable static data; every function here is
// safe to call from any thread.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"
#include "tiering/core/Interruption.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

enum class DeviceType : std::uint8_t { kRam, kOptane, kNvme, kSsd, kHdd };

// "ram", "optane", "nvme", "ssd", "hdd".
std::string_view ToString(DeviceType t);
Expected<DeviceType> ParseDeviceType(std::string_view s);
// Higher is faster: ram > optane > nvme > ssd > hdd. Layouts use it to decide
// which tier a device type belongs to (fastest type = cache/performance tier).
int SpeedRank(DeviceType t);

struct DevicePreset {
  // Owned strings: a preset may come from a file (`tierlab calibrate`,
  // layouts/PresetFile.h) as well as from the catalog.
  std::string name;     // catalog key, e.g. "nvme-pm1725"; "file:PATH" for a file's
  std::string product;  // e.g. "Samsung PM1725a 1.6TB U.2"
  DeviceType type = DeviceType::kNvme;
  std::uint64_t capacity_bytes = 0;
  // Rated drive writes per day over the warranty; 0 = not rated (RAM). For
  // HDDs: the annual workload rating converted to DWPD of the capacity.
  double endurance_dwpd = 0;

  // Flash / RAM. 4 KiB random IOPS at the vendor's saturating queue depth.
  double read_iops_4k = 0;
  double write_iops_4k = 0;
  // Sequential bandwidth (also the HDD's outer-zone sustained rate).
  double seq_read_mbps = 0;
  double seq_write_mbps = 0;
  // 4 KiB access latency at queue depth 1.
  Nanos read_latency = 0;
  Nanos write_latency = 0;
  // Internal parallelism (independent NAND channels / media units). Tests
  // drive the device at a multiple of it to reach the IOPS ceiling.
  std::uint32_t service_units = 1;
  // The write cliff (flash; 0 = none): the first write_cliff_bytes written
  // go at the write figures above (an SLC cache, or a fresh drive's free
  // blocks), later ones at the steady figures (TLC/QLC speed, or garbage
  // collection's share). While the device is idle it regains
  // cliff_recovery_mbps of them a second, up to write_cliff_bytes (folding
  // the SLC cache; 0 = never, as a drive written full at steady state).
  std::uint64_t write_cliff_bytes = 0;
  double steady_write_iops_4k = 0;
  double steady_seq_write_mbps = 0;
  double cliff_recovery_mbps = 0;

  // HDD only.
  double rpm = 0;
  double avg_seek_read_ms = 0;
  double avg_seek_write_ms = 0;
  double track_to_track_read_ms = 0;
  double track_to_track_write_ms = 0;
  double max_transfer_mbps = 0;  // outer zone (LBA 0)
  double min_transfer_mbps = 0;  // inner zone (last LBA)
  std::uint32_t cache_mib = 0;   // the drive's buffer; also its read-ahead limit
  std::uint32_t ncq_depth = 0;   // the drive's command tags; 0 = no command queueing
  // Command overhead: the controller's time per command before the data
  // phase or the seek starts (datasheets' "command overhead", which their
  // seek figures exclude): a read served from the read-ahead buffer (hit), a
  // read that goes to the media (miss), a write.
  Nanos overhead_read_hit = 0;
  Nanos overhead_read_miss = 0;
  Nanos overhead_write = 0;
  double interface_mbps = 0;  // host link payload rate (buffer to host); 0 = not limited

  // Pauses (flash and RAM): now and then the device completes nothing for a
  // while (a virtual disk's backend, a drive's garbage collection or
  // firmware housekeeping), and every request in flight waits to its end.
  // Each class comes per_second times a second at random and lasts
  // duration; none: the device never pauses. `tierlab calibrate` measures
  // them; a simulation holds the completions that land in one
  // (tiering/targets/DevicePauseTarget.h).
  using Pause = Interruption;
  std::vector<Pause> pauses;

  bool is_hdd() const { return type == DeviceType::kHdd; }
  bool has_write_cliff() const { return write_cliff_bytes > 0; }
  // One revolution in nanoseconds (HDD only).
  double revolution_ns() const { return rpm > 0 ? 60e9 / rpm : 0; }
};

// Every preset, in catalog order (fastest type first).
const std::vector<DevicePreset>& AllPresets();
// The preset called `name`, or an error listing the known names:
// "unknown device preset 'x' (known: optane-p4800x, nvme-pm1725, ...)".
Expected<DevicePreset> FindPreset(std::string_view name);
std::vector<std::string> PresetNames();
// "a, b, c" for error messages.
std::string KnownPresetList();

}  // namespace tierlab
