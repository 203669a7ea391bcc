#pragma once
// Persistent volumes: a layout laid on real files or block devices, with a
// superblock and a metadata journal on the cache devices (CacheJournal.h),
// registered in a directory:
//
//   VOLUME_DIR/volume.json   name, uuid, the effective layout with every
//                            device path and size, metadata_reserve, the
//                            files `create` made (removed by `destroy`)
//   VOLUME_DIR/*.img         device files created for tiers without paths
//   VOLUME_DIR/lock          flock()ed while the volume is open
//   VOLUME_DIR/serve.json    live status written by `tierlab serve`
//
// The default directory of volume NAME is ./tierlab-volumes/NAME (or
// $TIERLAB_VOLUMES/NAME).
//
// Opening a volume recovers the metadata (checkpoint + journal replay),
// writes a new checkpoint, builds the stack, restores the dirty lines in the
// cache target and attaches the journal. Closing after a flush writes a final
// checkpoint; not closing (a crash) is what recovery is for.
//
// Threading: the opening thread, which runs the RealEngine.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cachedev/CacheJournal.h"
#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"
#include "tiering/Expected.h"
#include "tiering/RealEngine.h"

namespace tierlab {

struct VolumeInfo {
  std::string name;
  std::string dir;  // absolute
  std::string uuid;
  nlohmann::json layout;  // effective, with paths and capacities
  std::uint64_t metadata_reserve = 0;
  std::vector<std::string> created_files;
  std::vector<std::string> cache_paths;  // cache tier devices; [0] holds the journal
  std::vector<std::string> all_paths;    // every device, in tier order
};

// $TIERLAB_VOLUMES or ./tierlab-volumes.
std::string DefaultVolumeRoot();
// A directory holding volume.json, or NAME under the default root.
Expected<std::string> ResolveVolumeDir(std::string_view name_or_dir);
Expected<VolumeInfo> ReadVolumeInfo(const std::string& dir);

// Creates the volume directory, sized sparse files for tiers without paths
// (cache devices grown by the metadata area), volume.json, the superblock on
// every cache device and an empty checkpoint. Errors: exit 2 for a bad
// layout or an existing volume, 3 for I/O.
Expected<VolumeInfo> CreateVolume(const LayoutSpec& layout, const std::string& name,
                                  const std::string& dir);

// The pid of the `serve` process holding the volume open, or 0 if none.
int VolumeServerPid(const VolumeInfo& info);

class OpenedVolume {
 public:
  ~OpenedVolume();
  // The device to export: the stack's top, with FUA writes turned into
  // write + flush when the cache keeps persistent metadata.
  BlockDevice& top() const { return *top_; }
  CacheTarget* cache() const { return volume_.cache(); }
  CacheJournal* journal() const { return journal_.get(); }
  const Volume& volume() const { return volume_; }
  const VolumeInfo& info() const { return info_; }
  const RecoveryReport& recovery() const { return recovery_; }
  // After a completed flush with nothing in flight: closes the devices and
  // writes a final checkpoint (the next open replays nothing).
  Status Close();

 private:
  friend Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine&, const VolumeInfo&);
  OpenedVolume() = default;
  VolumeInfo info_;
  RecoveryReport recovery_;
  int lock_fd_ = -1;
  bool closed_ = false;
  // Destroyed in reverse order: wrapper, journal (detaches), then the stack.
  Volume volume_;
  std::unique_ptr<CacheJournal> journal_;
  std::unique_ptr<BlockDevice> fua_;
  BlockDevice* top_ = nullptr;
};

// Errors: exit 1 if the volume is open elsewhere or its metadata is beyond
// recovery, 2 for a bad volume.json, 3 for I/O.
Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine& engine, const VolumeInfo& info);

// Offline metadata of a closed (or crashed) volume, without opening the
// devices for I/O. `volume_lines` checks line numbers (0: from the superblock).
Expected<RecoveredMetadata> ReadVolumeMetadata(const VolumeInfo& info);

}  // namespace tierlab
