#include "tiering/devices/DevicePreset.h"

namespace tierlab {

namespace {

constexpr Nanos Us(double us) {
  return static_cast<Nanos>(us * 1000.0);
}

// HDD workload ratings are TB written+read per year; express them as DWPD of
// the capacity so reports compare every tier on one scale.
constexpr double WorkloadDwpd(double tb_per_year, double capacity_tb) {
  return tb_per_year / 365.0 / capacity_tb;
}

std::vector<DevicePreset> BuildCatalog() {
  std::vector<DevicePreset> c;

  // Every figure's source is in docs/DEVICES.md; keep the two in step.
  DevicePreset ram;
  ram.name = "ram";
  ram.product = "DRAM-backed block device (modelling assumption)";
  ram.type = DeviceType::kRam;
  ram.capacity_bytes = 64ull << 30;
  ram.read_iops_4k = 2'000'000;
  ram.write_iops_4k = 2'000'000;
  ram.seq_read_mbps = 10'000;
  ram.seq_write_mbps = 10'000;
  ram.read_latency = Us(1);
  ram.write_latency = Us(1);
  ram.service_units = 4;
  c.push_back(ram);

  DevicePreset optane;
  optane.name = "optane-p4800x";
  optane.product = "Intel Optane SSD DC P4800X 375GB (PCIe 3.0 x4 NVMe)";
  optane.type = DeviceType::kOptane;
  optane.capacity_bytes = 375'000'000'000ull;
  optane.endurance_dwpd = 30;
  optane.read_iops_4k = 550'000;
  optane.write_iops_4k = 500'000;
  optane.seq_read_mbps = 2'400;
  optane.seq_write_mbps = 2'000;
  optane.read_latency = Us(10);
  optane.write_latency = Us(10);
  optane.service_units = 7;
  c.push_back(optane);

  DevicePreset pm1725;
  pm1725.name = "nvme-pm1725";
  pm1725.product = "Samsung PM1725a 1.6TB U.2 (48L TLC, PCIe 3.0 x4 NVMe)";
  pm1725.type = DeviceType::kNvme;
  pm1725.capacity_bytes = 1'600'000'000'000ull;
  pm1725.endurance_dwpd = 5;
  pm1725.read_iops_4k = 800'000;
  pm1725.write_iops_4k = 160'000;
  pm1725.seq_read_mbps = 3'300;
  pm1725.seq_write_mbps = 3'000;
  pm1725.read_latency = Us(90);
  pm1725.write_latency = Us(20);
  pm1725.service_units = 16;
  c.push_back(pm1725);

  DevicePreset hk4e;
  hk4e.name = "ssd-hk4e";
  hk4e.product = "Toshiba HK4E 1.6TB mixed-use SATA 6Gb/s (THNSN81Q60CSE)";
  hk4e.type = DeviceType::kSsd;
  hk4e.capacity_bytes = 1'600'000'000'000ull;
  hk4e.endurance_dwpd = 3;
  hk4e.read_iops_4k = 75'000;
  hk4e.write_iops_4k = 30'000;
  hk4e.seq_read_mbps = 524;
  hk4e.seq_write_mbps = 503;
  hk4e.read_latency = Us(120);
  hk4e.write_latency = Us(50);
  hk4e.service_units = 8;
  c.push_back(hk4e);

  DevicePreset hdd10k;
  hdd10k.name = "hdd-10k";
  hdd10k.product = "Seagate Exos 10E2400 1.8TB 10k rpm SAS 12Gb/s (ST1800MM0129) class";
  hdd10k.type = DeviceType::kHdd;
  hdd10k.capacity_bytes = 1'800'000'000'000ull;
  hdd10k.endurance_dwpd = 0;
  hdd10k.rpm = 10'000;
  hdd10k.avg_seek_read_ms = 3.6;
  hdd10k.avg_seek_write_ms = 4.0;
  hdd10k.track_to_track_read_ms = 0.2;
  hdd10k.track_to_track_write_ms = 0.4;
  hdd10k.max_transfer_mbps = 250;
  hdd10k.min_transfer_mbps = 130;
  hdd10k.seq_read_mbps = hdd10k.max_transfer_mbps;
  hdd10k.seq_write_mbps = hdd10k.max_transfer_mbps;
  hdd10k.cache_mib = 128;
  hdd10k.ncq_depth = 32;
  hdd10k.overhead_read_hit = Us(30);
  hdd10k.overhead_read_miss = Us(400);
  hdd10k.overhead_write = Us(30);
  hdd10k.interface_mbps = 1200;  // SAS 12 Gb/s, 8b/10b
  c.push_back(hdd10k);

  DevicePreset hdd7200;
  hdd7200.name = "hdd-7200";
  hdd7200.product = "WD Ultrastar DC HC310 6TB 7200 rpm SATA 6Gb/s (HUS726T6TALE6L4)";
  hdd7200.type = DeviceType::kHdd;
  hdd7200.capacity_bytes = 6'000'000'000'000ull;
  hdd7200.endurance_dwpd = WorkloadDwpd(550, 6.0);
  hdd7200.rpm = 7'200;
  hdd7200.avg_seek_read_ms = 7.4;
  hdd7200.avg_seek_write_ms = 8.2;
  hdd7200.track_to_track_read_ms = 0.23;
  hdd7200.track_to_track_write_ms = 0.32;
  hdd7200.max_transfer_mbps = 255;
  hdd7200.min_transfer_mbps = 120;
  hdd7200.seq_read_mbps = hdd7200.max_transfer_mbps;
  hdd7200.seq_write_mbps = hdd7200.max_transfer_mbps;
  hdd7200.cache_mib = 256;
  hdd7200.ncq_depth = 32;
  hdd7200.overhead_read_hit = Us(200);
  hdd7200.overhead_read_miss = Us(500);
  hdd7200.overhead_write = Us(200);
  hdd7200.interface_mbps = 600;  // SATA 6 Gb/s, 8b/10b
  c.push_back(hdd7200);

  return c;
}

}  // namespace

std::string_view ToString(DeviceType t) {
  switch (t) {
    case DeviceType::kRam: return "ram";
    case DeviceType::kOptane: return "optane";
    case DeviceType::kNvme: return "nvme";
    case DeviceType::kSsd: return "ssd";
    case DeviceType::kHdd: return "hdd";
  }
  return "unknown";
}

Expected<DeviceType> ParseDeviceType(std::string_view s) {
  for (DeviceType t : {DeviceType::kRam, DeviceType::kOptane, DeviceType::kNvme, DeviceType::kSsd,
                       DeviceType::kHdd}) {
    if (ToString(t) == s) return t;
  }
  return MakeError("unknown device type '" + std::string(s) +
                   "' (known: ram, optane, nvme, ssd, hdd)");
}

int SpeedRank(DeviceType t) {
  switch (t) {
    case DeviceType::kRam: return 4;
    case DeviceType::kOptane: return 3;
    case DeviceType::kNvme: return 2;
    case DeviceType::kSsd: return 1;
    case DeviceType::kHdd: return 0;
  }
  return 0;
}

const std::vector<DevicePreset>& AllPresets() {
  static const std::vector<DevicePreset> catalog = BuildCatalog();
  return catalog;
}

Expected<DevicePreset> FindPreset(std::string_view name) {
  for (const DevicePreset& p : AllPresets()) {
    if (p.name == name) return p;
  }
  return MakeError("unknown device preset '" + std::string(name) +
                   "' (known: " + KnownPresetList() + ")");
}

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const DevicePreset& p : AllPresets()) names.emplace_back(p.name);
  return names;
}

std::string KnownPresetList() {
  std::string out;
  for (const DevicePreset& p : AllPresets()) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

}  // namespace tierlab
