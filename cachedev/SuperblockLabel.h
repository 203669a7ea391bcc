#pragma once
// Whose device is this? The first bytes of a tierlab cache device name the
// volume it belongs to: the superblock's magic "TLVOLSB1" at offset 0 and
// the volume UUID at offset 16 (MetadataFormat.h has the whole format;
// SuperblockLabelTest checks that what WriteSuperblock writes is read back
// here). Only the magic is looked at, not the checksum or the version: a
// damaged or older superblock still marks a volume's device, which must not
// be taken for a blank one.
//
// Used before a device is opened for I/O: `create` and plain layouts refuse
// a device that belongs to a volume, a volume refuses a cache device of
// another volume, `destroy` wipes only the superblocks of its own volume.

#include <cstddef>
#include <optional>
#include <string>

#include "cachedev/MetadataFormat.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// Bytes needed to read a label.
inline constexpr std::size_t kSuperblockLabelBytes = 32;

// The UUID of the volume whose superblock starts `head`, if it does.
std::optional<VolumeUuid> SuperblockLabel(const std::byte* head, std::size_t n);

// The same from a file or block device (a short or empty file has none).
// Errors: the file cannot be opened or read (exit 2 for a missing file, a
// directory or no permission, else 3).
Expected<std::optional<VolumeUuid>> ReadSuperblockLabel(const std::string& path);

// Zeroes the superblock (the first 64 KiB) of `path` and syncs it, so the
// device no longer reads as a volume's. The rest is left as it is.
Expected<void> WipeSuperblock(const std::string& path);

}  // namespace tierlab
