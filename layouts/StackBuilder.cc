#include "layouts/StackBuilder.h"

#include <filesystem>

#include "cachedev/SuperblockLabel.h"
#include "layouts/BlockCacheSpec.h"
#include "layouts/ClusterBuilder.h"
#include "layouts/JsonFields.h"
#include "layouts/TieringSpec.h"
#include "tiering/core/QuotedText.h"
#include "tiering/core/RealEngine.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/FileDevice.h"
#include "tiering/devices/ModelDevice.h"
#include "tiering/targets/DelayTarget.h"
#include "tiering/targets/DevicePauseTarget.h"
#include "tiering/targets/HostCpuTarget.h"
#include "tiering/targets/LinearTarget.h"
#include "tiering/targets/LogStructuredTarget.h"
#include "tiering/targets/MirrorTarget.h"
#include "tiering/targets/ParityTarget.h"
#include "tiering/targets/RateLimitTarget.h"
#include "tiering/targets/SliceTarget.h"
#include "tiering/targets/StripeTarget.h"
#include "tiering/tier/TierTarget.h"

namespace tierlab {

Volume::~Volume() {
  top_.reset();  // close every device before removing its file
  if (keep_files_) return;
  for (const auto& f : created_files_) {
    std::error_code ec;
    std::filesystem::remove(f, ec);
  }
}

namespace {

std::uint64_t DeviceCapacity(const TierSpec& t) {
  return t.capacity != 0 ? t.capacity : t.preset.capacity_bytes;
}

// What a device must hold at its start before the stack may use it.
FileDeviceOptions::HeadCheck DeviceOwnerCheck(const std::string& path, const BuildOptions& o,
                                              bool cache_tier) {
  if (o.volume && !cache_tier) return nullptr;  // capacity devices carry no label
  const std::optional<VolumeUuid> want =
      o.volume ? std::optional<VolumeUuid>(o.volume->uuid) : std::nullopt;
  return [path, want](const std::byte* head, std::size_t n) -> Expected<void> {
    const std::optional<VolumeUuid> label = SuperblockLabel(head, n);
    if (!want) {
      if (!label) return {};
      return MakeError(path + ": belongs to tierlab volume " + FormatUuid(*label) +
                           " (it starts with its superblock): use it through that volume, or "
                           "`tierlab destroy` the volume to free it",
                       ErrorKind::kInUse);
    }
    if (label == want) return {};
    return MakeError(path +
                         (label ? ": holds the superblock of volume " + FormatUuid(*label)
                                : std::string(": has no tierlab superblock")) +
                         ", not this volume's (" + FormatUuid(*want) + "); run tierlab check",
                     ErrorKind::kInconsistent);
  };
}

// A RAM device's reads and writes are the host CPU's time where the layout
// models that CPU (ModelOptions::time_on_host_cpu; HostCpuTarget.h).
bool TimeOnHostCpu(const LayoutSpec& l, const DevicePreset& preset) {
  return l.cpu.has_value() && preset.type == DeviceType::kRam;
}

// A device without a path in real mode: a file in the temp dir named after
// the layout and the device ('+' of shorthand names made '_').
std::string TempDevicePath(const BuildOptions& o, const LayoutSpec& l, const std::string& name) {
  std::string path = (std::filesystem::path(o.temp_dir) / (l.name + "-" + name + ".img")).string();
  for (char& c : path) {
    if (c == '+') c = '_';
  }
  return path;
}

Expected<std::vector<std::unique_ptr<BlockDevice>>> MakeDevices(
    Engine& engine, const LayoutSpec& l, std::size_t tier_index, bool cache_tier,
    std::size_t first_device, const BuildOptions& o, std::vector<std::string>* created) {
  const TierSpec& t = l.tiers[tier_index];
  std::vector<std::unique_ptr<BlockDevice>> devs;
  for (std::uint32_t i = 0; i < t.count; ++i) {
    const std::string name = DeviceName(t, i);
    if (engine.IsSimulated()) {
      ModelOptions mo;
      mo.capacity = DeviceCapacity(t);
      mo.with_data = o.with_data;
      mo.seed = o.seed * 1000003 + tier_index * 1009 + i;
      mo.time_on_host_cpu = TimeOnHostCpu(l, t.preset);
      devs.push_back(MakeModelDevice(engine, t.preset, name, mo));
      continue;
    }
    // Not simulated: the engine is a RealEngine (EngineKind.h has the two).
    auto* real = static_cast<RealEngine*>(&engine);
    FileDeviceOptions fo;
    if (o.volume) {
      // An existing volume's device: used as it is, never created or grown.
      if (t.paths.empty())
        return MakeError(l.source + ": tiers[" + std::to_string(tier_index) +
                         "]: a volume's tier without paths");
      fo.path = t.paths[i];
      const std::size_t k = first_device + i;
      fo.min_size = k < o.volume->min_bytes.size() && o.volume->min_bytes[k] != 0
                        ? o.volume->min_bytes[k]
                        : t.capacity;
    } else if (!t.paths.empty()) {
      fo.path = t.paths[i];
      fo.create = t.capacity != 0;
      fo.size = t.capacity;
    } else {
      fo.path = TempDevicePath(o, l, name);
      fo.create = true;
      fo.size = DeviceCapacity(t);
      if (!std::filesystem::exists(fo.path)) created->push_back(fo.path);
    }
    fo.check_head = DeviceOwnerCheck(fo.path, o, cache_tier);
    fo.engine = t.engine;
    auto d = FileDevice::Open(*real, name, fo);
    if (!d.ok()) {
      return MakeError(
          l.source + ": tiers[" + std::to_string(tier_index) + "]: " + d.error().message,
          d.error().kind);
    }
    devs.push_back(std::move(d.value()));
  }
  return devs;
}

// In simulation, the pauses of a preset that has them (a calibrated one)
// in front of each of the tier's devices: a real device makes its own.
std::vector<std::unique_ptr<BlockDevice>> PauseDevices(
    Engine& engine, const TierSpec& t, std::vector<std::unique_ptr<BlockDevice>> devs) {
  if (!engine.IsSimulated() || t.preset.pauses.empty()) return devs;
  for (auto& d : devs) {
    std::string name = d->name() + "-pauses";
    d = std::make_unique<DevicePauseTarget>(engine, std::move(name), std::move(d), t.preset.pauses);
  }
  return devs;
}

// dm-delay in front of each of the tier's devices, when the tier asks.
std::vector<std::unique_ptr<BlockDevice>> DelayDevices(
    Engine& engine, const TierSpec& t, std::vector<std::unique_ptr<BlockDevice>> devs) {
  if (t.read_delay == 0 && t.write_delay == 0) return devs;
  for (auto& d : devs) {
    std::string name = d->name() + "-delay";
    d = std::make_unique<DelayTarget>(engine, std::move(name), std::move(d),
                                      DelayConfig{t.read_delay, t.write_delay, 0});
  }
  return devs;
}

RateLimitConfig TierLimits(const TierSpec& t) {
  return {{t.read_iops_limit, static_cast<double>(t.read_bw_limit)},
          {t.write_iops_limit, static_cast<double>(t.write_bw_limit)}};
}

// A throttle in front of each of the tier's devices (and of its delay: the
// rate decides when a request starts, the delay how long it then takes).
std::vector<std::unique_ptr<BlockDevice>> RateLimitDevices(
    Engine& engine, const TierSpec& t, std::vector<std::unique_ptr<BlockDevice>> devs) {
  const RateLimitConfig limits = TierLimits(t);
  if (!limits.read.Limits() && !limits.write.Limits()) return devs;
  for (auto& d : devs) {
    std::string name = d->name() + "-rate";
    d = std::make_unique<RateLimitTarget>(engine, std::move(name), std::move(d), limits);
  }
  return devs;
}

std::unique_ptr<BlockDevice> CombineTier(Engine& engine, const TierSpec& t,
                                         std::vector<std::unique_ptr<BlockDevice>> devs) {
  if (devs.size() == 1) return std::move(devs[0]);
  switch (t.combine) {
    case Combine::kMirror: return std::make_unique<MirrorTarget>(engine, t.name, std::move(devs));
    case Combine::kLinear: return std::make_unique<LinearTarget>(engine, t.name, std::move(devs));
    case Combine::kRaid5:
    case Combine::kRaid6:
    case Combine::kRaidTp:
      // k data chunks of each stripe's k + m: the tier holds k devices' worth.
      return std::make_unique<ParityTarget>(engine, t.name, std::move(devs),
                                            ParityChunks(t.combine), t.chunk);
    case Combine::kStripe: break;
  }
  return std::make_unique<StripeTarget>(engine, t.name, std::move(devs), t.chunk);
}

// The NVRAM devices of a log tier: models in simulation; in real mode the
// section's paths, or sparse files beside the tier's (in a volume's
// directory, CreateVolume names them).
Expected<std::vector<std::unique_ptr<BlockDevice>>> NvramDevices(
    Engine& engine, const LayoutSpec& l, std::size_t tier_index, const BuildOptions& o,
    std::vector<std::string>* created) {
  const TierSpec& t = l.tiers[tier_index];
  const TierLogSpec& spec = *t.log;
  std::vector<std::unique_ptr<BlockDevice>> devs;
  for (int i = 0; i < (spec.nvram_mirror ? 2 : 1); ++i) {
    const std::string name = t.name + "-nvram" + std::to_string(i);
    if (engine.IsSimulated()) {
      ModelOptions mo;
      mo.capacity = spec.nvram_capacity;
      mo.with_data = o.with_data;
      mo.seed = o.seed * 1000003 + tier_index * 1009 + 997 + static_cast<std::uint64_t>(i);
      mo.time_on_host_cpu = TimeOnHostCpu(l, spec.nvram);
      devs.push_back(MakeModelDevice(engine, spec.nvram, name, mo));
      continue;
    }
    FileDeviceOptions fo;
    if (!spec.nvram_paths.empty()) {
      fo.path = spec.nvram_paths[static_cast<std::size_t>(i)];
      fo.create = !o.volume;
      fo.size = spec.nvram_capacity;
      if (o.volume) fo.min_size = spec.nvram_capacity;
    } else {
      fo.path = TempDevicePath(o, l, name);
      fo.create = true;
      fo.size = spec.nvram_capacity;
      if (!std::filesystem::exists(fo.path)) created->push_back(fo.path);
    }
    fo.engine = t.engine;
    auto d = FileDevice::Open(*static_cast<RealEngine*>(&engine), name, fo);
    if (!d.ok()) {
      return MakeError(
          l.source + ": tiers[" + std::to_string(tier_index) + "].log.nvram: " + d.error().message,
          d.error().kind);
    }
    devs.push_back(std::move(d.value()));
  }
  return devs;
}

// A persistent volume's log carries an id from the volume's UUID, so its
// devices are told from another volume's.
std::uint64_t VolumeLogId(const VolumeUuid& uuid, std::size_t tier_index) {
  std::uint64_t id = tier_index + 1;
  for (std::size_t i = 0; i < uuid.size(); ++i) id = id * 1099511628211ull ^ uuid[i];
  return id == 0 ? 1 : id;
}

// A capacity tier written as a log: its NVRAM devices (two as a mirror
// when asked) and the combined tier under a LogStructuredTarget. In real
// mode the log is opened on its devices before the stack is used: new
// devices are labelled, a log found there is recovered (its segments and
// the NVRAM records of writes acknowledged before a crash).
Expected<std::unique_ptr<BlockDevice>> LogTier(Engine& engine, const LayoutSpec& l,
                                               std::size_t tier_index, const BuildOptions& o,
                                               std::unique_ptr<BlockDevice> combined,
                                               std::vector<std::string>* created) {
  const TierSpec& t = l.tiers[tier_index];
  const TierLogSpec& spec = *t.log;
  const std::string where = l.source + ": tiers[" + std::to_string(tier_index) + "].log";
  auto nvram = NvramDevices(engine, l, tier_index, o, created);
  if (!nvram.ok()) return nvram.error();
  std::unique_ptr<BlockDevice> log_device =
      nvram->size() == 1
          ? std::move((*nvram)[0])
          : std::make_unique<MirrorTarget>(engine, t.name + "-nvram", std::move(nvram.value()));
  LogStructuredOptions lo;
  lo.segment_bytes = spec.segment_bytes;
  lo.usable = spec.usable;
  lo.cleaner_start = spec.cleaner_start;
  if (o.log_owner) lo.log_id = VolumeLogId(*o.log_owner, tier_index);
  auto log = std::make_unique<LogStructuredTarget>(engine, t.name + "-log", std::move(log_device),
                                                   std::move(combined), lo);
  if (!log->config_error().empty()) return MakeError(where + ": " + log->config_error());
  if (!engine.IsSimulated()) {
    auto& real = *static_cast<RealEngine*>(&engine);
    bool done = false;
    Status st = Status::kOk;
    log->Recover([&](Status s) {
      st = s;
      done = true;
    });
    while (!done) real.RunUntil(real.Now() + 10 * kMilli);
    if (st != Status::kOk) {
      return MakeError(
          where + ": " +
              (log->recovery_error().empty() ? "recovery failed (" + std::string(ToString(st)) + ")"
                                             : log->recovery_error()),
          log->recovery_error().empty() ? ErrorKind::kIo : ErrorKind::kInconsistent);
    }
  }
  return std::unique_ptr<BlockDevice>(std::move(log));
}

// The reduction target over `child`; its logical size is the section's, or
// `size` (the layout's), or the child's.
Expected<std::unique_ptr<BlockDevice>> Reduce(Engine& engine, const LayoutSpec& l,
                                              std::unique_ptr<BlockDevice> child,
                                              std::uint64_t size, DataReductionTarget*& out) {
  ReductionConfig cfg = l.reduction->config;
  cfg.cpu = MeasuredCpuCost(cfg.compression);
  cfg.model_cpu = engine.IsSimulated();
  if (cfg.logical_bytes == 0) cfg.logical_bytes = size;
  auto t = std::make_unique<DataReductionTarget>(engine, "reduction", std::move(child), cfg);
  if (const std::string why = t->Check(); !why.empty()) {
    return MakeError(l.source + ": reduction: " + why);
  }
  out = t.get();
  return std::unique_ptr<BlockDevice>(std::move(t));
}

}  // namespace

Expected<Volume> BuildVolume(Engine& engine, const LayoutSpec& l, const BuildOptions& options) {
  if (l.cluster) return BuildClusterVolume(engine, l, options);
  // Reduction reads back what it stored (a dedup hint is verified against
  // the stored bytes): its devices keep data in simulation too.
  BuildOptions o = options;
  if (l.reduction) o.with_data = true;
  if (l.reduction && (o.volume || o.metadata_reserve != 0)) {
    // Its map lives in memory: a persistent volume would come back empty.
    return MakeError(l.source +
                         ": reduction: not in a persistent volume (its map is kept in memory "
                         "only); use the layout in run or serve",
                     ErrorKind::kInput);
  }
  Volume v;
  v.keep_files_ = o.keep_files;
  v.effective_ = LayoutToJson(l);

  // Which tier is the cache (ParseLayoutJson checked that it exists).
  const std::optional<CacheSpec>& cache = l.cache;
  std::size_t cache_tier = l.tiers.size();
  if (cache) {
    for (std::size_t i = 0; i < l.tiers.size(); ++i) {
      if (l.tiers[i].name == cache->tier) cache_tier = i;
    }
    if (cache_tier == l.tiers.size() || l.tiers.size() < 2) {
      return MakeError(l.source + ": cache.tier: " + QuotedText(cache->tier, '"') +
                       " is not a tier beside a capacity tier");
    }
  }

  std::vector<std::unique_ptr<BlockDevice>> cache_devices;
  std::vector<std::unique_ptr<BlockDevice>> capacity_stacks;
  std::vector<bool> capacity_is_hdd;  // per capacity tier, in order
  std::size_t first_device = 0;
  for (std::size_t i = 0; i < l.tiers.size(); ++i) {
    auto devs = MakeDevices(engine, l, i, i == cache_tier, first_device, o, &v.created_files_);
    first_device += l.tiers[i].count;
    if (!devs.ok()) return devs.error();
    TierView view;
    view.name = l.tiers[i].name;
    view.preset = l.tiers[i].preset;
    view.limits = TierLimits(l.tiers[i]);
    // The devices' own figures are reported, below any delay or throttle in
    // front of them.
    for (auto& d : *devs) view.devices.push_back(d.get());
    auto tier_devices =
        RateLimitDevices(engine, l.tiers[i],
                         DelayDevices(engine, l.tiers[i],
                                      PauseDevices(engine, l.tiers[i], std::move(devs.value()))));
    if (i == cache_tier) {
      view.role = "cache";
      cache_devices = std::move(tier_devices);
    } else {
      view.role = "capacity";
      capacity_is_hdd.push_back(l.tiers[i].preset.is_hdd());
      std::unique_ptr<BlockDevice> stack = CombineTier(engine, l.tiers[i], std::move(tier_devices));
      if (l.tiers[i].log) {
        auto logged = LogTier(engine, l, i, o, std::move(stack), &v.created_files_);
        if (!logged.ok()) return logged.error();
        stack = std::move(logged.value());
        view.log = static_cast<LogStructuredTarget*>(stack.get());
      }
      capacity_stacks.push_back(std::move(stack));
      view.stack = capacity_stacks.back().get();
    }
    v.tiers_.push_back(std::move(view));
  }

  std::unique_ptr<BlockDevice> origin;
  if (capacity_stacks.size() == 1) {
    origin = std::move(capacity_stacks[0]);
  } else {
    // Several capacity tiers: the tier target moves extents between them,
    // fastest first (layout order).
    TieringSpec cfg = l.tiering.value_or(TieringSpec{});
    // The tiered volume is the layout's size, so fixed provisioning places
    // only the extents the volume has (the tiers keep the rest free for
    // migration); a size that does not fit is reported below as usual.
    std::vector<TierGeometry> geometry;
    geometry.reserve(capacity_stacks.size());
    for (const auto& s : capacity_stacks) geometry.push_back({s->Size(), s->BlockSize()});
    if (l.size != 0 && cfg.config.volume_size == 0 &&
        l.size <= TierVolumeSize(cfg.config, geometry)) {
      cfg.config.volume_size = l.size;
    }
    auto tt = TierTarget::Create(engine, "tiers", std::move(capacity_stacks), cfg.config);
    if (!tt.ok()) return MakeError(l.source + ": tiering." + tt.error().message);
    v.tier_target_ = tt->get();
    if (cfg.provisioning == Provisioning::kFixed && !v.tier_target_->ProvisionAll()) {
      return MakeError(l.source + ": tiering: the volume does not fit the tiers");
    }
    TieringSpec eff = cfg;
    eff.config = v.tier_target_->config();
    v.effective_["tiering"] = TieringToJson(eff);
    origin = std::move(tt.value());
  }

  if (l.reduction && (l.reduction->where == ReductionPlace::kDestage || !cache)) {
    auto reduced = Reduce(engine, l, std::move(origin), l.size, v.reduction_);
    if (!reduced.ok()) return reduced.error();
    origin = std::move(reduced.value());
  }

  if (l.size != 0) {
    if (l.size > origin->Size()) {
      return MakeError(l.source + ": size: " + FormatBytes(l.size) +
                       " does not fit the capacity tiers (" + FormatBytes(origin->Size()) + ")");
    }
    if (l.size < origin->Size()) {
      origin = std::make_unique<SliceTarget>(engine, "volume", std::move(origin), l.size);
    }
  }

  std::unique_ptr<BlockDevice> top = std::move(origin);
  if (cache) {
    CacheConfig cfg = cache->config;
    cfg.seed = o.seed;
    cfg.metadata_reserve = o.metadata_reserve;
    if (o.placement_run != 0) cfg.placement_run = o.placement_run;
    if (cache->capacity != 0) {
      const std::uint64_t line = cfg.line_size == 0 ? 4096 : cfg.line_size;
      cfg.capacity_lines = cache->capacity / line;
    }
    auto ct = CacheTarget::Create(engine, "cache", std::move(top), std::move(cache_devices), cfg);
    if (!ct.ok()) return MakeError(l.source + ": cache." + ct.error().message);
    v.cache_ = ct->get();
    if (cache->read_hdd) {
      // S2D's binding: the cache caches reads for the HDDs it is bound to,
      // not for the SSDs. With several tiers a line's media is the tier its
      // extent is on now (migrations move it); unmapped extents read as
      // zeroes without device I/O, so they are not promoted.
      if (TierTarget* tt = v.tier_target_; tt != nullptr) {
        v.cache_->SetReadPromotionFilter([tt, capacity_is_hdd](std::uint64_t offset) {
          const auto where = tt->PlacementAt(offset);
          return where.has_value() && capacity_is_hdd[where->tier];
        });
      } else if (!capacity_is_hdd[0]) {
        v.cache_->SetReadPromotionFilter([](std::uint64_t) { return false; });
      }
    }
    CacheSpec eff = *cache;
    eff.config = v.cache_->config();
    v.effective_["cache"] = CacheSpecToJson(eff);
    top = std::move(ct.value());
  }
  if (l.reduction && v.reduction_ == nullptr) {
    auto reduced = Reduce(engine, l, std::move(top), 0, v.reduction_);
    if (!reduced.ok()) return reduced.error();
    top = std::move(reduced.value());
  }
  if (l.reduction) v.effective_["reduction"] = ReductionToJson(*l.reduction);
  if (l.block_cache) {
    BlockCacheConfig cfg = l.block_cache->config;
    cfg.seed = o.seed;
    auto cache = BlockCache::Create(engine, "block_cache", std::move(top), cfg);
    if (!cache.ok()) return MakeError(l.source + ": block_cache." + cache.error().message);
    v.block_cache_ = cache->get();
    v.effective_["block_cache"] = BlockCacheToJson(BlockCacheSpec{cfg});
    top = std::move(cache.value());
  }
  if (l.cpu && engine.IsSimulated()) {
    auto cpu = std::make_unique<HostCpuTarget>(engine, "host", std::move(top), l.cpu->cpu);
    v.host_cpu_ = &cpu->cpu();
    top = std::move(cpu);
  }
  v.top_ = std::move(top);
  return v;
}

Expected<void> CheckLayoutBuilds(const LayoutSpec& layout) {
  SimEngine engine;
  auto v = BuildVolume(engine, layout, BuildOptions{});
  if (!v.ok()) return v.error();
  return {};
}

}  // namespace tierlab
