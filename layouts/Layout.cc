#include "layouts/Layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "layouts/InterruptionFields.h"
#include "layouts/JsonFields.h"
#include "layouts/PresetFile.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

const std::vector<std::string> kCombineNames = {"stripe", "mirror", "linear",
                                                "raid5",  "raid6",  "raid-tp"};
const std::vector<std::string> kEngineNames = {"auto", "io_uring", "libaio"};

Combine ParseCombine(const std::string& s) {
  if (s == "mirror") return Combine::kMirror;
  if (s == "linear") return Combine::kLinear;
  if (s == "raid5") return Combine::kRaid5;
  if (s == "raid6") return Combine::kRaid6;
  if (s == "raid-tp") return Combine::kRaidTp;
  return Combine::kStripe;
}

using json = nlohmann::json;

// A model field given in microseconds or milliseconds, kept in the preset in
// its own unit.
Nanos ReadMicros(JsonFields& f, std::string_view k, Nanos current) {
  if (!f.Has(k)) return current;
  return static_cast<Nanos>(f.Number(k, static_cast<double>(current) / 1e3, 0.01, 1e6) * 1e3);
}

// A command overhead in microseconds, which may be zero.
Nanos ReadOverheadMicros(JsonFields& f, std::string_view k, Nanos current) {
  if (!f.Has(k)) return current;
  return static_cast<Nanos>(f.Number(k, static_cast<double>(current) / 1e3, 0, 1e6) * 1e3);
}

// Custom model fields a tier may override on its preset ("model": {...}).
// Written back as given (TierSpec::model), so `write` is empty.
const Field<DevicePreset> kModelFields[] = {
    {"type", "ram | optane | nvme | ssd | hdd", "", "which timing model the device uses",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       if (!f.Has(k)) return;
       auto t = ParseDeviceType(f.Choice(k, "nvme", {"ram", "optane", "nvme", "ssd", "hdd"}));
       if (t.ok()) p.type = *t;
     },
     nullptr, false, "the preset's"},
    {"read_iops_4k", "number 1..1e9", "IOPS", "random 4k read IOPS at saturation",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.read_iops_4k = f.Number(k, p.read_iops_4k, 1, 1e9);
     },
     nullptr, false, "the preset's"},
    {"write_iops_4k", "number 1..1e9", "IOPS", "random 4k write IOPS at saturation",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.write_iops_4k = f.Number(k, p.write_iops_4k, 1, 1e9);
     },
     nullptr, false, "the preset's"},
    {"seq_read_mbps", "number 1..1e6", "MB/s", "sequential read bandwidth",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.seq_read_mbps = f.Number(k, p.seq_read_mbps, 1, 1e6);
     },
     nullptr, false, "the preset's"},
    {"seq_write_mbps", "number 1..1e6", "MB/s", "sequential write bandwidth",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.seq_write_mbps = f.Number(k, p.seq_write_mbps, 1, 1e6);
     },
     nullptr, false, "the preset's"},
    {"read_latency_us", "number 0.01..1e6", "us", "4k read latency at queue depth 1",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.read_latency = ReadMicros(f, k, p.read_latency);
     },
     nullptr, false, "the preset's"},
    {"write_latency_us", "number 0.01..1e6", "us", "4k write latency at queue depth 1",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.write_latency = ReadMicros(f, k, p.write_latency);
     },
     nullptr, false, "the preset's"},
    {"service_units", "integer 1..65536", "", "internal parallelism (flash channels)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.service_units = static_cast<std::uint32_t>(f.Int(k, p.service_units, 1, 65536));
     },
     nullptr, false, "the preset's"},
    {"write_cliff", "bytes", "bytes",
     "written at the write figures above before they fall to the steady ones (an SLC cache, a "
     "fresh drive's free blocks); 0 = no cliff",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.write_cliff_bytes = f.Bytes(k, p.write_cliff_bytes);
     },
     nullptr, false, "the preset's"},
    {"steady_write_iops_4k", "number 1..1e9", "IOPS",
     "random 4k write IOPS past the write cliff (needs write_cliff)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.steady_write_iops_4k = f.Number(k, p.steady_write_iops_4k, 1, 1e9);
     },
     nullptr, false, "the preset's"},
    {"steady_seq_write_mbps", "number 1..1e6", "MB/s",
     "sequential write bandwidth past the write cliff (needs write_cliff)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.steady_seq_write_mbps = f.Number(k, p.steady_seq_write_mbps, 1, 1e6);
     },
     nullptr, false, "the preset's"},
    {"cliff_recovery_mbps", "number 0..1e6", "MB/s",
     "write cliff burst regained a second while the device is idle; 0 = never",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.cliff_recovery_mbps = f.Number(k, p.cliff_recovery_mbps, 0, 1e6);
     },
     nullptr, false, "the preset's"},
    {"pauses", "array of {duration_us, per_second}", "-",
     "pauses in which the device completes nothing (flash, RAM; a calibrated file's); each "
     "class comes per_second times a second at random and lasts duration_us (a second of the "
     "device's own time: x seconds of pauses a second take x / (1 + x) of it, under 90% in "
     "all); in simulation a request that completes during one waits for its end",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       ReadInterruptions(f, k, kDevicePauseKeys, p.pauses);
     },
     nullptr, false, "none"},
    {"endurance_dwpd", "number 0..1e4", "drive writes/day", "rated endurance",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.endurance_dwpd = f.Number(k, p.endurance_dwpd, 0, 1e4);
     },
     nullptr, false, "the preset's"},
    {"rpm", "number 0..1e5", "rev/min", "HDD spindle speed",
     [](JsonFields& f, std::string_view k, DevicePreset& p) { p.rpm = f.Number(k, p.rpm, 0, 1e5); },
     nullptr, false, "the preset's"},
    {"avg_seek_ms", "number 0..1000", "ms", "HDD average seek, reads and writes",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       const double seek = f.Number(k, p.avg_seek_read_ms, 0, 1e3);
       if (f.Has(k)) p.avg_seek_read_ms = p.avg_seek_write_ms = seek;
     },
     nullptr, false, "the preset's"},
    {"track_to_track_ms", "number 0..1000", "ms", "HDD track-to-track seek, reads and writes",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       const double ttt = f.Number(k, p.track_to_track_read_ms, 0, 1e3);
       if (f.Has(k)) p.track_to_track_read_ms = p.track_to_track_write_ms = ttt;
     },
     nullptr, false, "the preset's"},
    {"avg_seek_write_ms", "number 0..1000", "ms", "HDD average seek of writes (after avg_seek_ms)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.avg_seek_write_ms = f.Number(k, p.avg_seek_write_ms, 0, 1e3);
     },
     nullptr, false, "the preset's"},
    {"track_to_track_write_ms", "number 0..1000", "ms",
     "HDD track-to-track seek of writes (after track_to_track_ms)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.track_to_track_write_ms = f.Number(k, p.track_to_track_write_ms, 0, 1e3);
     },
     nullptr, false, "the preset's"},
    {"overhead_read_miss_us", "number 0..1e6", "us",
     "HDD command overhead of a read from the media",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.overhead_read_miss = ReadOverheadMicros(f, k, p.overhead_read_miss);
     },
     nullptr, false, "the preset's"},
    {"overhead_read_hit_us", "number 0..1e6", "us",
     "HDD command overhead of a read from the read-ahead buffer",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.overhead_read_hit = ReadOverheadMicros(f, k, p.overhead_read_hit);
     },
     nullptr, false, "the preset's"},
    {"overhead_write_us", "number 0..1e6", "us", "HDD command overhead of a write",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.overhead_write = ReadOverheadMicros(f, k, p.overhead_write);
     },
     nullptr, false, "the preset's"},
    {"ncq_depth", "integer 0..256", "", "HDD command tags; 0 = no command queueing",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.ncq_depth = static_cast<std::uint32_t>(f.Int(k, p.ncq_depth, 0, 256));
     },
     nullptr, false, "the preset's"},
    {"cache_mib", "integer 0..1e6", "MiB", "HDD buffer, also its read-ahead limit",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.cache_mib = static_cast<std::uint32_t>(f.Int(k, p.cache_mib, 0, 1000000));
     },
     nullptr, false, "the preset's"},
    {"interface_mbps", "number 0..1e6", "MB/s", "HDD host link payload rate; 0 = not limited",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.interface_mbps = f.Number(k, p.interface_mbps, 0, 1e6);
     },
     nullptr, false, "the preset's"},
    {"max_transfer_mbps", "number 0..1e6", "MB/s", "HDD media rate at the outer zone (LBA 0)",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.max_transfer_mbps = f.Number(k, p.max_transfer_mbps, 0, 1e6);
     },
     nullptr, false, "the preset's"},
    {"min_transfer_mbps", "number 0..1e6", "MB/s", "HDD media rate at the inner zone",
     [](JsonFields& f, std::string_view k, DevicePreset& p) {
       p.min_transfer_mbps = f.Number(k, p.min_transfer_mbps, 0, 1e6);
     },
     nullptr, false, "the preset's"},
};

// The NVRAM of a log-structured tier ("log": {"nvram": {...}}).
const Field<TierLogSpec> kTierLogNvramFields[] = {
    {"preset", "a preset name (tierlab presets)", "",
     "the NVRAM devices' catalog entry (ram: DRAM-backed, as NVDIMM-N)",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.nvram_preset = f.String(k, l.nvram_preset);
       if (!f.ok()) return;
       auto p = FindPreset(l.nvram_preset);
       if (!p.ok()) {
         f.Fail(k, "unknown " + QuotedText(l.nvram_preset, '"', 256) +
                       "; known: " + KnownPresetList());
         return;
       }
       l.nvram = *p;
     },
     [](const TierLogSpec& l) -> json { return l.nvram_preset; }},
    {"capacity", "bytes, at least 1m", "bytes", "per NVRAM device: the log's size",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.nvram_capacity = f.Bytes(k, l.nvram_capacity);
       if (f.ok() && l.nvram_capacity < (1u << 20)) f.Fail(k, "must be at least 1m");
     },
     [](const TierLogSpec& l) -> json { return FormatBytes(l.nvram_capacity); }},
    {"mirror", "boolean", "", "two NVRAM devices as a mirror (the standby controller's copy)",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.nvram_mirror = f.Bool(k, l.nvram_mirror);
     },
     [](const TierLogSpec& l) -> json { return l.nvram_mirror; }},
    {"paths", "array of strings, one per NVRAM device", "",
     "real mode: files or block devices (none: sparse files beside the tier's); in a cluster "
     "each names its node with {node}",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.nvram_paths = f.Strings(k);
       const std::size_t n = l.nvram_mirror ? 2 : 1;
       if (f.ok() && !l.nvram_paths.empty() && l.nvram_paths.size() != n) {
         f.Fail(k, "has " + std::to_string(l.nvram_paths.size()) + " entries for " +
                       std::to_string(n) + " NVRAM device" + (n == 1 ? "" : "s") +
                       "; give one path per device");
       }
     },
     [](const TierLogSpec& l) -> json {
       return l.nvram_paths.empty() ? json() : json(l.nvram_paths);
     }},
};

// A capacity tier's "log" section: the tier is a LogStructuredTarget.
const Field<TierLogSpec> kTierLogFields[] = {
    {"segment_bytes", "bytes, a non-zero multiple of 4k", "bytes",
     "segment size, header included; rounded up to whole stripes of a parity tier",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.segment_bytes = f.Bytes(k, l.segment_bytes);
       if (f.ok() && (l.segment_bytes == 0 || l.segment_bytes % 4096 != 0)) {
         f.Fail(k, "must be a non-zero multiple of 4k");
       }
     },
     [](const TierLogSpec& l) -> json { return FormatBytes(l.segment_bytes); }},
    {"usable", "number 0.05..0.95", "", "the volume's share of the segments' data slots",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.usable = f.Number(k, l.usable, 0.05, 0.95);
     },
     [](const TierLogSpec& l) -> json { return l.usable; }},
    {"cleaner_start", "number 0.5..1", "",
     "the cleaner runs while more than this share of segments is in use",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       l.cleaner_start = f.Number(k, l.cleaner_start, 0.5, 1.0);
     },
     [](const TierLogSpec& l) -> json { return l.cleaner_start; }},
    {"nvram", "object (tiers[].log.nvram below)", "", "the write-acknowledgement log's devices",
     [](JsonFields& f, std::string_view k, TierLogSpec& l) {
       const json* n = f.Raw(k);
       if (n == nullptr || !f.ok()) return;
       if (!n->is_object()) return f.Fail(k, "must be an object");
       JsonFields nf = f.Child(*n, std::string(k));
       ReadFields(std::span<const Field<TierLogSpec>>(kTierLogNvramFields), nf, l);
       f.Adopt(nf);
     },
     [](const TierLogSpec& l) -> json {
       return WriteFields(std::span<const Field<TierLogSpec>>(kTierLogNvramFields), l);
     }},
};

const Field<TierSpec> kTierFields[] = {
    {"name", "string", "", "the tier's name (the cache names it in cache.tier)",
     [](JsonFields& f, std::string_view k, TierSpec& t) { t.name = f.String(k, t.name); },
     [](const TierSpec& t) -> json { return t.name; }, false, "tier0, tier1, ... by position"},
    {"preset", "a preset name (tierlab presets), or file:PATH", "",
     "the device catalog entry, or a preset file (tierlab calibrate writes one); required",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       const std::string preset = f.String(k, "");
       if (!f.ok()) return;
       if (preset.empty()) {
         f.Fail(k, "missing; known: " + KnownPresetList() + ", or file:PATH");
         return;
       }
       if (preset.starts_with(kPresetFilePrefix)) {
         const std::string path = preset.substr(kPresetFilePrefix.size());
         auto p = ReadPresetFile(path, preset);
         if (!p.ok()) {
           f.Fail(k, p.error().message);
         } else {
           t.preset = *p;
         }
         return;
       }
       auto p = FindPreset(preset);
       if (!p.ok()) {
         f.Fail(k, "unknown " + QuotedText(preset, '"', 256) + "; known: " + KnownPresetList() +
                       ", or file:PATH");
       } else {
         t.preset = *p;
       }
     },
     [](const TierSpec& t) -> json {
       return t.preset.name.empty() ? json() : json(std::string(t.preset.name));
     }},
    {"count", "integer 1..1024", "devices", "devices in the tier",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.count = static_cast<std::uint32_t>(f.Int(k, t.count, 1, 1024));
     },
     [](const TierSpec& t) -> json { return t.count; }},
    {"combine", "stripe | mirror | linear | raid5 | raid6 | raid-tp", "",
     "how the tier's devices make one device; raid5, raid6 and raid-tp are parity RAID with 1, 2 "
     "and 3 parity chunks per stripe (capacity tiers only)",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.combine = ParseCombine(f.Choice(k, std::string(ToString(t.combine)), kCombineNames));
       // count is read before combine (table order).
       const int m = ParityChunks(t.combine);
       if (!f.ok() || m == 0) return;
       const std::string name(ToString(t.combine));
       if (t.count < static_cast<std::uint32_t>(m + 2)) {
         f.Fail(k, name + " needs count >= " + std::to_string(m + 2) + " (2 data + " +
                       std::to_string(m) + " parity chunks per stripe), got " +
                       std::to_string(t.count));
       } else if (t.count > 256) {
         f.Fail(k, name + " takes at most 256 devices (its codes are over GF(2^8)), got " +
                       std::to_string(t.count));
       }
     },
     [](const TierSpec& t) -> json { return std::string(ToString(t.combine)); }},
    {"chunk", "bytes, a non-zero multiple of 4k", "bytes", "stripe and parity RAID chunk",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.chunk = f.Bytes(k, t.chunk);
       if (f.ok() && (t.chunk == 0 || t.chunk % 4096 != 0)) {
         f.Fail(k, "must be a non-zero multiple of 4k, got " + std::to_string(t.chunk));
       }
     },
     [](const TierSpec& t) -> json { return FormatBytes(t.chunk); }},
    {"capacity", "bytes, at least 1m", "bytes", "per device (0 = the preset's)",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.capacity = f.Bytes(k, t.capacity);
       if (f.ok() && f.Has(k) && t.capacity < 1024 * 1024) {
         f.Fail(k, "must be at least 1m, got " + std::to_string(t.capacity));
       }
     },
     [](const TierSpec& t) -> json { return FormatBytes(t.capacity); }, true},
    {"paths", "array of strings, one per device", "",
     "real mode: files or block devices (none: sparse files in a temp dir); in a cluster "
     "each names its node with {node}",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.paths = f.Strings(k);
       if (f.ok() && !t.paths.empty() && t.paths.size() != t.count) {
         f.Fail(k, "has " + std::to_string(t.paths.size()) + " entries for count " +
                       std::to_string(t.count) + "; give one path per device");
       }
     },
     [](const TierSpec& t) -> json { return t.paths.empty() ? json() : json(t.paths); }},
    {"engine", "auto | io_uring | libaio", "",
     "real mode: the kernel interface of the tier's files (auto: io_uring for direct I/O to "
     "disks, libaio on memory filesystems, for buffered I/O and where the kernel has no "
     "io_uring)",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       const std::string e = f.Choice(k, ToString(t.engine), kEngineNames);
       t.engine = e == "io_uring" ? FileEngine::kIoUring
                  : e == "libaio" ? FileEngine::kLibaio
                                  : FileEngine::kAuto;
     },
     [](const TierSpec& t) -> json { return std::string(ToString(t.engine)); }, true},
    {"read_delay_us", "number 0..1e7", "us",
     "latency added to each read of each device, in simulation and real runs alike (dm-delay)",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.read_delay = static_cast<Nanos>(
           std::llround(f.Number(k, static_cast<double>(t.read_delay) / 1e3, 0, 1e7) * 1e3));
     },
     [](const TierSpec& t) -> json { return static_cast<double>(t.read_delay) / 1e3; }, true},
    {"write_delay_us", "number 0..1e7", "us",
     "latency added to each write and discard of each device, as read_delay_us",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.write_delay = static_cast<Nanos>(
           std::llround(f.Number(k, static_cast<double>(t.write_delay) / 1e3, 0, 1e7) * 1e3));
     },
     [](const TierSpec& t) -> json { return static_cast<double>(t.write_delay) / 1e3; }, true},
    {"read_iops_limit", "number 0..1e9", "IOPS",
     "at most this many reads a second to each device, paced (blk-throttle's riops), in "
     "simulation and real runs alike; 0 = no limit",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.read_iops_limit = f.Number(k, t.read_iops_limit, 0, 1e9);
     },
     [](const TierSpec& t) -> json { return t.read_iops_limit; }, true},
    {"write_iops_limit", "number 0..1e9", "IOPS",
     "at most this many writes and discards a second to each device, as read_iops_limit",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.write_iops_limit = f.Number(k, t.write_iops_limit, 0, 1e9);
     },
     [](const TierSpec& t) -> json { return t.write_iops_limit; }, true},
    {"read_bw_limit", "bytes", "bytes/s",
     "at most this many bytes read a second from each device, paced (blk-throttle's rbps); "
     "0 = no limit",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.read_bw_limit = f.Bytes(k, t.read_bw_limit);
     },
     [](const TierSpec& t) -> json { return FormatBytes(t.read_bw_limit); }, true},
    {"write_bw_limit", "bytes", "bytes/s",
     "at most this many bytes written a second to each device, as read_bw_limit",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       t.write_bw_limit = f.Bytes(k, t.write_bw_limit);
     },
     [](const TierSpec& t) -> json { return FormatBytes(t.write_bw_limit); }, true},
    {"model", "object (tiers[].model below)", "", "overrides of the preset's figures",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       const json* m = f.Raw(k);
       if (m == nullptr || !f.ok()) return;
       t.model = *m;
       JsonFields mf = f.Child(t.model, std::string(k));
       ReadFields(ModelFields(), mf, t.preset);
       if (mf.ok()) CheckWriteCliff(t.preset, mf);
       f.Adopt(mf);
     },
     [](const TierSpec& t) -> json { return t.model; }},
    {"log", "object (tiers[].log below)", "",
     "the tier is written as a log: NVRAM-acknowledged writes, whole-segment writes, a cleaner "
     "(capacity tiers only)",
     [](JsonFields& f, std::string_view k, TierSpec& t) {
       const json* j = f.Raw(k);
       if (j == nullptr || !f.ok()) return;
       if (!j->is_object()) return f.Fail(k, "must be an object");
       TierLogSpec spec;
       spec.nvram = *FindPreset(spec.nvram_preset);
       JsonFields lf = f.Child(*j, std::string(k));
       ReadFields(TierLogFields(), lf, spec);
       f.Adopt(lf);
       if (f.ok()) t.log = std::move(spec);
     },
     [](const TierSpec& t) -> json {
       return t.log ? WriteFields(TierLogFields(), *t.log) : json();
     }},
};

// The cache section needs the tiers: its default tier is the first, and the
// tier it names must exist beside a capacity tier.
void ReadCache(JsonFields& f, std::string_view k, LayoutSpec& l) {
  const json* c = f.Raw(k);
  if (c == nullptr || !f.ok()) return;
  auto spec = ParseCacheJson(*c, l.source, l.tiers[0].name);
  if (!spec.ok()) return f.Adopt(spec.error());
  std::vector<std::string> names;
  for (const auto& t : l.tiers) names.push_back(t.name);
  if (std::find(names.begin(), names.end(), spec->tier) == names.end()) {
    return f.Fail("cache.tier",
                  "unknown tier " + QuotedText(spec->tier, '"') + "; known: " + JoinNames(names));
  }
  if (l.tiers.size() < 2) {
    return f.Fail("cache",
                  "needs a capacity tier besides the cache tier " + QuotedText(spec->tier, '"'));
  }
  // The cache target uses the cache tier's devices one by one (its own
  // striping), so parity there would protect nothing: refuse rather than
  // ignore it.
  for (std::size_t i = 0; i < l.tiers.size(); ++i) {
    if (l.tiers[i].name == spec->tier && l.tiers[i].log) {
      return f.Fail("tiers[" + std::to_string(i) + "].log",
                    "is for capacity tiers; the cache tier " + QuotedText(spec->tier, '"') +
                        " gives its devices to the cache one by one");
    }
    if (l.tiers[i].name == spec->tier && ParityChunks(l.tiers[i].combine) > 0) {
      return f.Fail("tiers[" + std::to_string(i) + "].combine",
                    std::string(ToString(l.tiers[i].combine)) +
                        " is for capacity tiers; the cache tier " + QuotedText(spec->tier, '"') +
                        " gives its devices to the cache one by one");
    }
  }
  l.cache = std::move(spec.value());
  l.as_written["cache"] = *c;
}

const Field<LayoutSpec> kLayoutFields[] = {
    {"name", "string", "", "the layout's name in reports",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) { l.name = f.String(k, l.name); },
     [](const LayoutSpec& l) -> json { return l.name; }, false, "the file name or shorthand"},
    {"size", "bytes", "bytes", "volume size (0 = all the capacity tiers hold)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) { l.size = f.Bytes(k, l.size); },
     [](const LayoutSpec& l) -> json { return FormatBytes(l.size); }, true},
    {"tiers", "non-empty array of tiers (tiers[] below)", "",
     "the devices, grouped in tiers, fastest first; required",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       if (!f.ok()) return;
       const json* tiers = f.Raw(k);
       if (tiers == nullptr || !tiers->is_array() || tiers->empty()) {
         return f.Adopt(MakeError(l.source + ": tiers: must be a non-empty array of tiers"));
       }
       for (std::size_t i = 0; i < tiers->size(); ++i) {
         const std::string path = "tiers[" + std::to_string(i) + "]";
         JsonFields tf = f.Child((*tiers)[i], path);
         TierSpec t;
         ReadFields(TierFields(), tf, t);
         if (!tf.ok()) return f.Adopt(tf);
         if (t.name.empty()) t.name = "tier" + std::to_string(i);
         for (const auto& other : l.tiers) {
           if (other.name == t.name)
             return f.Fail(path + ".name", "duplicate " + QuotedText(t.name, '"'));
         }
         l.tiers.push_back(std::move(t));
       }
     },
     [](const LayoutSpec& l) -> json {
       json a = json::array();
       for (const auto& t : l.tiers) a.push_back(WriteFields(TierFields(), t));
       return a;
     },
     false, "-"},
    {"cache", "object (cache below)", "", "the cache target (none: no cache)", &ReadCache,
     [](const LayoutSpec& l) -> json { return l.cache ? CacheSpecToJson(*l.cache) : json(); },
     false, "none"},
    {"tiering", "object (tiering below)", "",
     "the tier target joining several capacity tiers (none: its defaults)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       const json* t = f.Raw(k);
       if (t == nullptr || !f.ok()) return;
       auto spec = ParseTieringJson(*t, l.source);
       if (!spec.ok()) return f.Adopt(spec.error());
       l.tiering = std::move(spec.value());
       l.as_written[std::string(k)] = *t;
     },
     [](const LayoutSpec& l) -> json { return l.tiering ? TieringToJson(*l.tiering) : json(); },
     false, "none"},
    {"block_cache", "object (block_cache below)", "",
     "a RAM read cache in front of the volume (none: no block cache)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       const json* b = f.Raw(k);
       if (b == nullptr || !f.ok()) return;
       auto spec = ParseBlockCacheJson(*b, l.source);
       if (!spec.ok()) return f.Adopt(spec.error());
       l.block_cache = std::move(spec.value());
       l.as_written[std::string(k)] = *b;
     },
     [](const LayoutSpec& l) -> json {
       return l.block_cache ? BlockCacheToJson(*l.block_cache) : json();
     },
     false, "none"},
    {"reduction", "object (reduction below)", "",
     "inline deduplication and compression of 4 KiB blocks (none: no reduction)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       const json* r = f.Raw(k);
       if (r == nullptr || !f.ok()) return;
       auto spec = ParseReductionJson(*r, l.source);
       if (!spec.ok()) return f.Adopt(spec.error());
       l.reduction = std::move(spec.value());
       l.as_written[std::string(k)] = *r;
     },
     [](const LayoutSpec& l) -> json {
       return l.reduction ? ReductionToJson(*l.reduction) : json();
     },
     false, "none"},
    {"cpu", "object (cpu below) or \"file:PATH\"", "",
     "the host's CPU in front of the stack, in simulation (none: it costs nothing)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       const json* c = f.Raw(k);
       if (c == nullptr || !f.ok()) return;
       auto spec = ParseHostCpuJson(*c, l.source);
       if (!spec.ok()) return f.Adopt(spec.error());
       l.cpu = std::move(spec.value());
     },
     [](const LayoutSpec& l) -> json { return l.cpu ? HostCpuToJson(*l.cpu) : json(); }, false,
     "none"},
    {"cluster", "object (cluster below)", "",
     "the volume over several nodes, each with the stack above (none: one node)",
     [](JsonFields& f, std::string_view k, LayoutSpec& l) {
       const json* c = f.Raw(k);
       if (c == nullptr || !f.ok()) return;
       auto spec = ParseClusterJson(*c, l.source);
       if (!spec.ok()) return f.Adopt(spec.error());
       l.cluster = std::move(spec.value());
       l.as_written[std::string(k)] = *c;
     },
     [](const LayoutSpec& l) -> json { return l.cluster ? ClusterToJson(*l.cluster) : json(); },
     false, "none"},
    {"description", "string", "", "free text for the reader; not interpreted", nullptr, nullptr,
     false, "-"},
};

}  // namespace

std::string_view ToString(Combine c) {
  switch (c) {
    case Combine::kStripe: return "stripe";
    case Combine::kMirror: return "mirror";
    case Combine::kLinear: return "linear";
    case Combine::kRaid5: return "raid5";
    case Combine::kRaid6: return "raid6";
    case Combine::kRaidTp: return "raid-tp";
  }
  return "stripe";
}

int ParityChunks(Combine c) {
  switch (c) {
    case Combine::kRaid5: return 1;
    case Combine::kRaid6: return 2;
    case Combine::kRaidTp: return 3;
    default: return 0;
  }
}

std::span<const Field<LayoutSpec>> LayoutFields() {
  return kLayoutFields;
}
std::span<const Field<TierSpec>> TierFields() {
  return kTierFields;
}
std::span<const Field<DevicePreset>> ModelFields() {
  return kModelFields;
}

void CheckWriteCliff(const DevicePreset& p, JsonFields& f) {
  if (!p.has_write_cliff()) {
    for (const char* k : {"steady_write_iops_4k", "steady_seq_write_mbps", "cliff_recovery_mbps"}) {
      if (f.Has(k)) return f.Fail(k, "needs write_cliff, the bytes written before the cliff");
    }
    return;
  }
  if (p.is_hdd()) return f.Fail("write_cliff", "is a flash figure; an hdd model has none");
  if (p.steady_write_iops_4k <= 0) {
    return f.Fail("steady_write_iops_4k", "missing; a write_cliff needs the IOPS past it");
  }
  if (p.steady_seq_write_mbps <= 0) {
    return f.Fail("steady_seq_write_mbps", "missing; a write_cliff needs the bandwidth past it");
  }
  if (p.steady_write_iops_4k > p.write_iops_4k) {
    return f.Fail("steady_write_iops_4k", "is above write_iops_4k (" +
                                              std::to_string(std::llround(p.write_iops_4k)) +
                                              "): a cliff falls, it does not rise");
  }
  if (p.steady_seq_write_mbps > p.seq_write_mbps) {
    return f.Fail("steady_seq_write_mbps", "is above seq_write_mbps (" +
                                               std::to_string(std::llround(p.seq_write_mbps)) +
                                               "): a cliff falls, it does not rise");
  }
}
std::span<const Field<TierLogSpec>> TierLogFields() {
  return kTierLogFields;
}
std::span<const Field<TierLogSpec>> TierLogNvramFields() {
  return kTierLogNvramFields;
}

namespace {

// A cluster's nodes each need files of their own: every path names them
// with {node} (ClusterBuilder puts the node's number there); outside a
// cluster {node} means nothing.
void CheckNodePaths(JsonFields& f, const LayoutSpec& l) {
  const auto check = [&](const std::vector<std::string>& paths, const std::string& field) {
    for (std::size_t i = 0; i < paths.size() && f.ok(); ++i) {
      const bool has = paths[i].find(kNodePlaceholder) != std::string::npos;
      const std::string key = field + "[" + std::to_string(i) + "]";
      if (l.cluster && !has) {
        f.Fail(key, QuotedText(paths[i], '"', 256) + " would be one file for " +
                        std::to_string(l.cluster->nodes) +
                        " nodes; name each node's file with {node}, e.g. \"node{node}-" +
                        std::filesystem::path(paths[i]).filename().string() + "\"");
      } else if (!l.cluster && has) {
        f.Fail(key, "{node} stands for a cluster node's number; the layout has no cluster");
      }
    }
  };
  for (std::size_t t = 0; t < l.tiers.size(); ++t) {
    const std::string tier = "tiers[" + std::to_string(t) + "]";
    check(l.tiers[t].paths, tier + ".paths");
    if (l.tiers[t].log) check(l.tiers[t].log->nvram_paths, tier + ".log.nvram.paths");
  }
}

// A device failing in a cluster node (cluster.failures[].device) costs
// the node the pieces on it (DeviceShare.h), rebuilt onto the device's
// empty replacement: every piece where the node's stack keeps unflushed
// writes on the device (a write-back or write-only cache's tier) or
// spreads every piece over it (the one capacity tier, striped with a
// piece spanning all its devices); those in its range or its chunks in a
// linear tier or a stripe narrower than a piece, where the tier's
// addresses are the node's (no log, no data reduction). Not modelled yet:
// a device holding none the cluster needs (a mirror or parity RAID tier, a
// cache without dirty lines) or ones that move with heat (several
// capacity tiers).
void CheckFailureDevices(JsonFields& f, const LayoutSpec& l) {
  if (!l.cluster) return;
  for (std::size_t i = 0; i < l.cluster->failures.size() && f.ok(); ++i) {
    const std::string& device = l.cluster->failures[i].device;
    if (device.empty()) continue;
    const std::string key = "cluster.failures[" + std::to_string(i) + "].device";
    std::vector<std::string> names;
    const TierSpec* tier = nullptr;
    for (const TierSpec& t : l.tiers) {
      for (std::uint32_t d = 0; d < t.count; ++d) {
        names.push_back(DeviceName(t, d));
        if (names.back() == device) tier = &t;
      }
    }
    if (tier == nullptr) {
      f.Fail(key, QuotedText(device, '"') + " is not a device of a node; a node has " +
                      JoinNames(names));
      continue;
    }
    const std::string not_yet = "; not modelled yet";
    if (l.cache && l.cache->tier == tier->name) {
      const WriteMode mode = l.cache->config.write;
      if (!KeepsDirtyLines(mode)) {
        f.Fail(key, "a cache device with no dirty lines (cache.write " +
                        std::string(ToString(mode)) + ") loses nothing the cluster needs" +
                        not_yet);
      }
      continue;
    }
    const std::size_t capacity_tiers = l.tiers.size() - (l.cache ? 1 : 0);
    if (capacity_tiers > 1) {
      f.Fail(key, "the node has " + std::to_string(capacity_tiers) +
                      " capacity tiers, whose pieces move between devices with their heat" +
                      not_yet);
    } else if (tier->count > 1 && tier->combine != Combine::kStripe &&
               tier->combine != Combine::kLinear) {
      f.Fail(key, "the tier's own " + std::string(ToString(tier->combine)) +
                      " keeps the node's pieces" + not_yet);
    } else if (tier->count > 1 && (tier->combine == Combine::kLinear ||
                                   l.cluster->extent < tier->count * tier->chunk)) {
      // The device holds part of the pieces, found by their addresses.
      const std::string part =
          "; a device holding part of the node's pieces needs the tier's "
          "addresses to be the node's" +
          not_yet;
      if (tier->log) {
        f.Fail(key, "the tier is written as a log, which places blocks anywhere on it" + part);
      } else if (l.reduction) {
        f.Fail(key, "data reduction stores blocks where it finds room" + part);
      }
    }
  }
}

// repair.depth_per "device" needs a piece to sit on known devices: the
// one capacity tier's, at the node's own addresses.
void CheckRepairDevices(JsonFields& f, const LayoutSpec& l) {
  if (!l.cluster || !l.cluster->repair.depth_per_device) return;
  const std::string key = "cluster.repair.depth_per";
  const std::string why = "\"device\" needs each piece on known devices of the node; ";
  const std::size_t capacity_tiers = l.tiers.size() - (l.cache ? 1 : 0);
  if (capacity_tiers > 1) {
    f.Fail(key, why + "with " + std::to_string(capacity_tiers) +
                    " capacity tiers they move with their heat: use \"node\"");
  } else if (l.reduction) {
    f.Fail(key, why + "data reduction stores blocks where it finds room: use \"node\"");
  } else {
    for (const TierSpec& t : l.tiers) {
      if (t.log && !(l.cache && l.cache->tier == t.name)) {
        f.Fail(key, why + "tier " + t.name + " is written as a log: use \"node\"");
      }
    }
  }
}

}  // namespace

std::string PathForNode(std::string_view path, std::uint32_t node) {
  std::string out(path);
  const std::string n = std::to_string(node);
  for (std::size_t at = out.find(kNodePlaceholder); at != std::string::npos;
       at = out.find(kNodePlaceholder, at + n.size())) {
    out.replace(at, kNodePlaceholder.size(), n);
  }
  return out;
}

Expected<LayoutSpec> ParseLayoutJson(const nlohmann::json& j, std::string_view source) {
  LayoutSpec l;
  l.source = std::string(source);
  l.name = l.source;
  l.as_written = json::object();
  JsonFields f(j, l.source, "");
  ReadFields(LayoutFields(), f, l);
  if (f.ok()) CheckNodePaths(f, l);
  if (f.ok()) CheckFailureDevices(f, l);
  if (f.ok()) CheckRepairDevices(f, l);
  if (f.ok() && l.cpu && l.cluster) {
    f.Fail("cpu", "a cluster's nodes have cluster.cpu; the layout's cpu is one node's");
  }
  if (!f.ok()) return f.error();
  return l;
}

nlohmann::json LayoutToJson(const LayoutSpec& l) {
  return WriteFields(LayoutFields(), l);
}

nlohmann::json LayoutAsWrittenJson(const LayoutSpec& l) {
  json j = LayoutToJson(l);
  for (const char* section : {"cache", "tiering", "block_cache", "reduction", "cluster"}) {
    j.erase(section);
    if (l.as_written.is_object() && l.as_written.contains(section)) {
      j[section] = l.as_written.at(section);
    }
  }
  return j;
}

namespace {

struct ShorthandType {
  const char* token;
  const char* preset;
};
// Longest tokens first so "hdd10k" wins over "hdd".
constexpr ShorthandType kShorthandTypes[] = {
    {"optane", "optane-p4800x"}, {"nvme", "nvme-pm1725"}, {"ssd", "ssd-hk4e"},
    {"hdd10k", "hdd-10k"},       {"hdd", "hdd-7200"},     {"ram", "ram"},
};

// Per-device capacities of shorthand layouts: scaled down from the presets so
// that a simulated cell's metadata stays small (a 16 GiB cache of 4 KiB lines
// is 4 M lines); the ratios of a real S2D node are kept roughly (cache about
// 3% of capacity with HDDs).
constexpr std::uint64_t kGiB = 1ull << 30;
constexpr std::uint64_t kCacheDeviceBytes = 8 * kGiB;
constexpr std::uint64_t kFlashCapacityBytes = 64 * kGiB;
constexpr std::uint64_t kHddCapacityBytes = 128 * kGiB;

struct Part {
  std::string token;
  DevicePreset preset;
  std::uint32_t count;
};

}  // namespace

bool LooksLikeShorthand(std::string_view name) {
  return !name.empty() && name.find('.') == std::string_view::npos && name.find('/') != 0 &&
         std::isalpha(static_cast<unsigned char>(name[0]));
}

Expected<nlohmann::json> ExpandShorthand(std::string_view name) {
  const std::string full(name);
  const bool tiered = full.find('/') != std::string::npos;
  const char sep = tiered ? '/' : '+';
  if (tiered && full.find('+') != std::string::npos) {
    return MakeError("layout " + QuotedText(full, '"') +
                     ": mix of '+' (cache) and '/' (tiers); use one");
  }
  std::vector<Part> parts;
  std::stringstream ss(full);
  std::string tok;
  while (std::getline(ss, tok, sep)) {
    std::size_t digits = tok.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(tok[digits - 1]))) --digits;
    const std::string type = tok.substr(0, digits);
    const std::string count = tok.substr(digits);
    const ShorthandType* found = nullptr;
    for (const auto& t : kShorthandTypes) {
      if (type == t.token) found = &t;
    }
    if (found == nullptr || count.empty() || count.size() > 4 || std::stoul(count) == 0) {
      return MakeError("layout " + QuotedText(full, '"') + ": bad part " + QuotedText(tok, '"') +
                       "; expected TYPE COUNT such as nvme2, with TYPE one of optane, nvme, ssd, "
                       "hdd, hdd10k, ram");
    }
    parts.push_back(
        {type, *FindPreset(found->preset), static_cast<std::uint32_t>(std::stoul(count))});
  }
  if (parts.empty()) return MakeError("layout " + QuotedText(full, '"') + ": empty");
  // Fastest first, as S2D binds the fastest media as cache.
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return SpeedRank(a.preset.type) > SpeedRank(b.preset.type);
  });
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].preset.type == parts[i - 1].preset.type) {
      return MakeError("layout " + QuotedText(full, '"') + ": device type " +
                       std::string(ToString(parts[i].preset.type)) + " appears twice");
    }
  }
  const bool has_cache = !tiered && parts.size() >= 2;
  nlohmann::json j;
  j["name"] = full;
  j["tiers"] = nlohmann::json::array();
  bool capacity_has_hdd = false;
  bool capacity_has_flash = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    const bool is_cache = has_cache && i == 0;
    nlohmann::json t;
    t["name"] = is_cache ? "cache" : std::string(ToString(p.preset.type));
    t["preset"] = std::string(p.preset.name);
    t["count"] = p.count;
    t["combine"] = "stripe";
    t["chunk"] = "256k";
    const std::uint64_t cap = is_cache            ? kCacheDeviceBytes
                              : p.preset.is_hdd() ? kHddCapacityBytes
                                                  : kFlashCapacityBytes;
    t["capacity"] = FormatBytes(std::min(cap, p.preset.capacity_bytes));
    if (!is_cache && p.preset.is_hdd()) capacity_has_hdd = true;
    if (!is_cache && !p.preset.is_hdd()) capacity_has_flash = true;
    j["tiers"].push_back(t);
  }
  if (has_cache) {
    // S2D binds the cache to the capacity devices and picks its behaviour
    // by their media: for HDDs it caches reads and writes, for SSDs writes
    // only. Over SSDs and HDDs both (three media types) it caches writes of
    // every line and reads of the lines on HDDs ("read": "hdd").
    nlohmann::json c;
    c["tier"] = "cache";
    if (capacity_has_hdd && capacity_has_flash) {
      c["read"] = "hdd";
    } else {
      c["read"] = capacity_has_hdd;
    }
    c["write"] = capacity_has_hdd ? "writeback" : "writeonly";
    c["policy"] = "lru";
    c["promotion"] = "always";
    c["line_size"] = "4k";
    c["high_watermark"] = 50;
    c["low_watermark"] = 45;
    c["destage_order"] = "lba";
    j["cache"] = c;
  }
  return j;
}

Expected<LayoutSpec> LoadLayout(std::string_view name_or_path) {
  const std::string s(name_or_path);
  std::error_code ec;
  if (std::filesystem::is_directory(s, ec)) {
    return MakeError(s + ": is a directory, not a layout file (or a shorthand such as nvme2+hdd4)");
  }
  const bool is_file = std::filesystem::is_regular_file(s, ec);
  if (is_file || s.ends_with(".json")) {
    auto j = ReadJsonFile(s);
    if (!j.ok()) return j.error();
    return ParseLayoutJson(*j, std::filesystem::path(s).filename().string());
  }
  if (!LooksLikeShorthand(s)) {
    return MakeError("layout " + QuotedText(s, '"', 256) +
                     ": not a file and not a shorthand name such as nvme2+hdd4");
  }
  auto j = ExpandShorthand(s);
  if (!j.ok()) return j.error();
  return ParseLayoutJson(*j, s);
}

nlohmann::json DefaultLayoutJson() {
  return *ExpandShorthand("nvme2+hdd4");
}

}  // namespace tierlab
