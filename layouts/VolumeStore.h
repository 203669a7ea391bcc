#pragma once
// Persistent volumes: a layout laid on real files or block devices, with a
// superblock and a metadata journal on the cache devices (MetadataFormat.h),
// registered in a directory:
//
//   VOLUME_DIR/volume.json   name, uuid, where the volume lives (`place`),
//                            the effective layout with every device path and
//                            size, metadata_reserve, the files `create` made
//   VOLUME_DIR/*.img         device files created for tiers without paths
//   VOLUME_DIR/lock          locked (FileLock.h) by whoever uses the volume:
//                            serve, flush, check --repair, destroy,
//                            reidentify; holds that process's pid and command
//   VOLUME_DIR/serve.json    live status written by `tierlab serve`
//
// The default directory of volume NAME is ./tierlab-volumes/NAME (or
// $TIERLAB_VOLUMES/NAME).
//
// What a volume owns (docs/DURABILITY.md, "What a volume owns"): the files
// it created inside its directory, recorded relative to it, so a moved
// directory still finds them and a copied one has its own; and devices
// outside it (paths the layout named, stored absolute) only as far as their
// superblock carries the volume's UUID. volume.json records the directory's
// place (path, device, inode): a directory elsewhere whose recorded place
// still holds the same volume is a copy and is refused for use until
// `ReidentifyVolume` gives it a UUID of its own; one whose recorded place no
// longer holds it was moved, and the record follows it on the next open.
//
// Opening a volume takes the lock, builds the stack on its devices (each
// locked; cache devices must carry the volume's UUID; none is created or
// grown), recovers the metadata (checkpoint + journal replay), writes a new
// checkpoint, restores the dirty lines in the cache target and attaches the
// journal. Closing after a flush writes a final checkpoint; not closing (a
// crash) is what recovery is for.
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
#include "tiering/core/Expected.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/FileLock.h"

namespace tierlab {

// What this directory is to the volume recorded in its volume.json.
enum class VolumePlace {
  kHome,   // where the volume was last opened (or created)
  kMoved,  // elsewhere, and the recorded place no longer holds the volume
  kCopy,   // elsewhere, and the recorded place still holds the same volume
};

struct VolumeInfo {
  std::string name;
  std::string dir;  // absolute, canonical: where volume.json was found
  std::string uuid;
  std::uint64_t created_unix = 0;
  nlohmann::json layout;  // effective, with capacities and absolute device paths
  std::uint64_t metadata_reserve = 0;
  // Cache slots per run on each cache device (SlotPlacement.h), as the
  // superblock records it; 1 for volumes whose volume.json predates it.
  std::uint32_t placement_run = 1;
  std::vector<std::string> created_files;   // absolute
  std::vector<std::string> cache_paths;     // cache tier devices; [0] holds the journal
  std::vector<std::string> all_paths;       // every device, in tier order
  std::vector<std::uint64_t> device_bytes;  // per all_paths: size at create (0: unknown)
  std::string recorded_dir;                 // the place volume.json records
  VolumePlace place = VolumePlace::kHome;
  bool place_stale = false;  // the record does not describe this directory
};

// $TIERLAB_VOLUMES or ./tierlab-volumes.
std::string DefaultVolumeRoot();
// A directory holding volume.json, or NAME under the default root.
Expected<std::string> ResolveVolumeDir(std::string_view name_or_dir);
// Reads volume.json and tells where the directory stands (VolumePlace).
// Errors (exit 2) name the file and the field: a missing field, a relative
// path that leaves the directory, a format newer than this tierlab.
Expected<VolumeInfo> ReadVolumeInfo(const std::string& dir);
// True if `path` lies inside the volume directory.
bool InVolumeDir(const VolumeInfo& info, const std::string& path);
// An error for a copy (kCopy), saying how to give it its own identity.
Expected<void> RequireOwnPlace(const VolumeInfo& info);

// Creates the volume directory, sized sparse files for tiers without paths
// (cache devices grown by the metadata area), the superblock on every cache
// device, an empty checkpoint and then volume.json. Devices that belong to a
// volume (a tierlab superblock) or are in use are refused. On failure
// everything it made is removed again. Errors: exit 2 for a bad layout or an
// existing volume, 1 for a device in use or of a volume, 3 for I/O.
Expected<VolumeInfo> CreateVolume(const LayoutSpec& layout, const std::string& name,
                                  const std::string& dir);

// The volume lock, held for a whole command. `command` is written into the
// lock file for `status` to show. Busy: exit 1, naming the holder.
Expected<FileLock> LockVolume(const VolumeInfo& info, std::string_view command);

// Who holds the volume lock now, found by testing the lock (never taking
// it); pid -1 when it is held but the holder did not say who.
struct VolumeUser {
  bool locked = false;
  int pid = 0;
  std::string command;  // "serve", "flush", "check --repair", "destroy", ...
};
VolumeUser VolumeLockHolder(const VolumeInfo& info);
// The pid of the `serve` process holding the volume, or 0 if none.
int VolumeServerPid(const VolumeInfo& info);

// Shared locks on every existing device of the volume, for the offline
// commands that read or rewrite metadata without opening the stack: no
// server, benchmark or `create` can hold a device meanwhile. Busy: exit 1.
Expected<std::vector<FileLock>> LockVolumeDevices(const VolumeInfo& info);

// Writes volume.json again with this directory as the volume's place (after
// a move). Needs the volume lock.
Expected<void> RecordVolumePlace(VolumeInfo& info);

// Gives the volume in `info.dir` (a copy) a new UUID, and `new_name` if not
// empty: rewrites the superblocks on its cache devices, a fresh checkpoint
// under the new UUID (dirty lines and checksums kept) and volume.json.
// Refused (exit 1) when a device lies outside the directory (the copy shares
// it with the original), when the volume is in use or its metadata is
// inconsistent. Takes the lock itself.
Expected<VolumeInfo> ReidentifyVolume(const VolumeInfo& info, const std::string& new_name);

// What `destroy` did with each file.
struct DestroyReport {
  std::vector<std::string> removed;
  std::vector<std::string> wiped;  // superblock zeroed, device left in place
  std::vector<std::string> kept;   // with the reason
  std::vector<std::string> errors;
};
// Removes the files the volume created inside its directory, wipes the
// superblock of every other device that carries the volume's UUID (removing
// it if the volume created it; never for a copy, whose outside devices are
// the original's), then volume.json, the status files and the lock file,
// and the directory if empty. volume.json stays when a device could not be
// handled, so `destroy` can be run again. Needs the volume lock and the
// device locks.
DestroyReport RemoveVolumeFiles(const VolumeInfo& info);

// `tierlab destroy`: the volume lock and the device locks for the whole
// removal, then RemoveVolumeFiles. Without `force`, a volume whose metadata
// cannot be read, or that has dirty lines, is refused (kInconsistent: the
// state destroy needs does not hold; the message says "run tierlab flush
// FLUSH_HINT first"). Lock errors as LockVolume's and LockVolumeDevices'.
Expected<DestroyReport> DestroyVolume(const VolumeInfo& info, bool force,
                                      const std::string& flush_hint);

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
  friend Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine&, const VolumeInfo&,
                                                            std::string_view);
  OpenedVolume() = default;
  VolumeInfo info_;
  RecoveryReport recovery_;
  FileLock lock_;
  bool closed_ = false;
  // Destroyed in reverse order: wrapper, journal (detaches), then the stack.
  Volume volume_;
  std::unique_ptr<CacheJournal> journal_;
  std::unique_ptr<BlockDevice> fua_;
  BlockDevice* top_ = nullptr;
};

// `command` ("serve", "flush") is what the lock file says. Errors: exit 1 if
// the volume or a device is in use, the directory is a copy, a device is
// short or of another volume, or the metadata is beyond recovery; 2 for a
// bad volume.json; 3 for I/O.
Expected<std::unique_ptr<OpenedVolume>> OpenVolume(RealEngine& engine, const VolumeInfo& info,
                                                   std::string_view command);

// Offline metadata of a closed (or crashed) volume, without opening the
// devices for I/O. `volume_lines` checks line numbers (0: from the superblock).
Expected<RecoveredMetadata> ReadVolumeMetadata(const VolumeInfo& info);

}  // namespace tierlab
