#pragma once
// Builds the device stack a layout describes, on a simulated or a real engine:
//
//   [host CPU] -> [block cache] -> [reduction, inline] -> [slice to the volume size]
//     -> cache target -> [reduction, on destage] -> origin
//   origin = one capacity tier's stack, or a tier target over several
//   tier stack = stripe | mirror | linear | parity RAID of the tier's devices
//
// In simulation each device is a model of its preset (timing-only unless
// with_data). In real mode each device is a FileDevice on the tier's `paths`,
// or on a sparse file created in `temp_dir` (removed by the Volume unless
// keep_files). Each FileDevice locks its file for as long as the Volume
// lives (FileDevice.h).
//
// Whose devices: a device that starts with a tierlab superblock belongs to
// a volume (SuperblockLabel.h) and is refused unless the stack is opened as
// that volume (BuildOptions::volume), so neither a plain layout
// (`serve L.json`, `run --real`) nor `create` writes over a volume's
// metadata.

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cachedev/BlockCache.h"
#include "cachedev/CacheJournal.h"
#include "cachedev/CacheTarget.h"
#include "layouts/CacheSpec.h"
#include "layouts/DeviceShare.h"
#include "layouts/Layout.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/ClusterTarget.h"
#include "tiering/targets/DataReductionTarget.h"
#include "tiering/targets/LogStructuredTarget.h"
#include "tiering/targets/RateLimitTarget.h"
#include "tiering/tier/TierTarget.h"

namespace tierlab {

// Simulated or real follows the engine (EngineKind.h): device models on a
// SimEngine, files and block devices on a RealEngine.
struct BuildOptions {
  bool with_data = false;   // simulation: models keep data (correctness runs)
  std::string temp_dir;     // real mode, devices without paths
  bool keep_files = false;  // real mode: leave created files behind
  // Bytes reserved for persistent metadata at the start of each cache device
  // (CacheConfig::metadata_reserve; VolumeStore.h sets it).
  std::uint64_t metadata_reserve = 0;
  // Opening an existing volume: the cache placement run its superblock
  // records (CacheConfig::placement_run); 0 = the layout's.
  std::uint64_t placement_run = 0;
  std::uint64_t seed = 1;
  // Real mode, opening an existing volume: its cache devices must carry its
  // UUID, no device is created or extended, and one shorter than recorded
  // (`min_bytes`, per device in tier order; 0 or missing: the tier's
  // capacity) is an error. Unset: every device with a tierlab superblock is
  // refused.
  struct ExistingVolume {
    VolumeUuid uuid{};
    std::vector<std::uint64_t> min_bytes;
  };
  std::optional<ExistingVolume> volume;
  // Real mode, creating a volume: its log tiers' ids come from its UUID,
  // and devices another log has labelled are refused rather than taken
  // over. Unset: a log adopts the id it finds on its devices (opening a
  // volume: a copy renamed with a new UUID keeps its logs), or labels new
  // devices with a random one.
  std::optional<VolumeUuid> log_owner;
};

struct TierView {
  std::string name;
  std::string role;  // "cache" or "capacity"
  DevicePreset preset;
  std::vector<BlockDevice*> devices;
  // The throttle in front of each device (the tier's read_iops_limit and
  // the rest; none: no throttle). Each device's requests pass through it.
  RateLimitConfig limits;
  BlockDevice* stack = nullptr;        // the tier's combined device (capacity tiers)
  LogStructuredTarget* log = nullptr;  // the tier's log (tiers[].log), or null
};

class Volume {
 public:
  Volume() = default;
  Volume(Volume&&) = default;
  Volume& operator=(Volume&&) = default;
  ~Volume();

  BlockDevice& top() const { return *top_; }
  const std::vector<TierView>& tiers() const { return tiers_; }
  CacheTarget* cache() const { return cache_; }
  TierTarget* tier_target() const { return tier_target_; }
  BlockCache* block_cache() const { return block_cache_; }
  DataReductionTarget* reduction() const { return reduction_; }
  // The host's CPU in front of the stack (the layout's "cpu", in
  // simulation), or null.
  const NodeCpu* host_cpu() const { return host_cpu_; }
  // The effective layout (defaults and resolved cache config written out).
  const nlohmann::json& effective() const { return effective_; }
  const std::vector<std::string>& created_files() const { return created_files_; }
  // A cluster layout's target (ClusterBuilder.h), or null.
  ClusterTarget* cluster() const { return cluster_; }
  // Where the load runs on a cluster: one view of the volume per client
  // (ClusterTarget::ClientView). Empty for one node.
  const std::vector<BlockDevice*>& clients() const { return clients_; }
  // A cluster's nodes' caches and tier targets, in node order (null where a
  // node has none). Empty for one node.
  const std::vector<CacheTarget*>& node_caches() const { return node_caches_; }
  const std::vector<TierTarget*>& node_tier_targets() const { return node_tier_targets_; }
  // Per entry of a cluster's failures: the part of its node's addresses
  // the failed device held (kAll for a whole node). Empty for one node.
  const std::vector<DeviceShare>& failure_shares() const { return failure_shares_; }

 private:
  friend Expected<Volume> BuildVolume(Engine&, const LayoutSpec&, const BuildOptions&);
  friend Expected<Volume> BuildClusterVolume(Engine&, const LayoutSpec&, const BuildOptions&);
  std::unique_ptr<BlockDevice> top_;
  std::vector<TierView> tiers_;
  CacheTarget* cache_ = nullptr;
  TierTarget* tier_target_ = nullptr;
  BlockCache* block_cache_ = nullptr;
  DataReductionTarget* reduction_ = nullptr;
  const NodeCpu* host_cpu_ = nullptr;
  nlohmann::json effective_;
  std::vector<std::string> created_files_;
  ClusterTarget* cluster_ = nullptr;
  std::vector<BlockDevice*> clients_;
  std::vector<CacheTarget*> node_caches_;
  std::vector<TierTarget*> node_tier_targets_;
  std::vector<DeviceShare> failure_shares_;
  bool keep_files_ = true;
};

// Errors name the layout source and field; exit code 2 for configuration
// problems and paths that are not files, 1 for a device in use or of
// another volume, 3 for devices that cannot be opened.
Expected<Volume> BuildVolume(Engine& engine, const LayoutSpec& layout, const BuildOptions& options);

// Whether `layout` builds as a simulated stack (device models, no data):
// what a matrix checks of every distinct layout before it runs a cell.
Expected<void> CheckLayoutBuilds(const LayoutSpec& layout);

}  // namespace tierlab
