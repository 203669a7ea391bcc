#pragma once
// Synchronous reads and writes of the metadata area on a path (pread/pwrite
// + fdatasync), for create, open, close and the offline commands; the
// running volume writes through CacheJournal instead. The format is in
// MetadataFormat.h.
//
// Metadata goes through O_DIRECT like the devices' own I/O (FileDevice), so
// no stale page-cache copy of a region written with O_DIRECT is ever read
// back; buffered only where the filesystem refuses O_DIRECT (FileDevice
// falls back the same way). Buffers are 4 KiB aligned, sizes and offsets
// multiples of 4 KiB.
//
// Synchronous I/O on a path (pread/pwrite + fdatasync), for create, open,
// close and the offline commands. Errors name the path and, for content,
// the field ("cache0.img: superblock slots: ..."); a file too short for a
// region says so ("reading the checkpoints: file is N bytes, needs M").
// Content errors are kInconsistent (exit 1), I/O errors kIo (exit 3).
//
// Threading: any thread; one caller per path at a time.

#include <cstdint>
#include <string>
#include <vector>

#include "cachedev/MetadataFormat.h"
#include "tiering/core/Expected.h"

namespace tierlab {

Expected<Superblock> ReadSuperblock(const std::string& path);
// The superblock of cache device 0 against the volume's devices, before
// anything is sized by it: device_count and device_index, the metadata area
// inside device 0, slots of line_size inside the cache devices, origin_bytes
// inside the other devices (`origin_paths`). Devices whose size cannot be
// read (missing) skip the size checks; `tierlab check` reports them.
Expected<void> CheckSuperblockAgainstDevices(const Superblock& sb,
                                             const std::vector<std::string>& cache_paths,
                                             const std::vector<std::string>& origin_paths);
Expected<void> WriteSuperblock(const std::string& path, const Superblock& sb);
// Writes checkpoint `generation` (to copy generation % 2) with `dirty`, the
// data checksums `crc` (empty: none known) and first journal seq `next_seq`,
// after an fdatasync of the file (data first). `clean`: the data on the
// devices matches the checksums exactly (a clean close).
Expected<void> WriteCheckpoint(const std::string& path, const Superblock& sb,
                               std::uint64_t generation, std::uint64_t next_seq,
                               const std::vector<std::uint32_t>& dirty,
                               const std::vector<std::uint32_t>& crc, bool clean = false);

// ---- The pieces, for the readers of other regions (MetadataRecovery) ----

// A file descriptor closed on destruction.
class MetadataFd {
 public:
  explicit MetadataFd(int fd) : fd_(fd) {}
  ~MetadataFd();
  MetadataFd(const MetadataFd&) = delete;
  MetadataFd& operator=(const MetadataFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// open(2) of `path` with O_DIRECT (buffered where refused) and O_CLOEXEC.
int OpenMetadata(const std::string& path, int flags);
// Bytes of a file or block device, 0 if it cannot be opened.
std::uint64_t PathBytes(const std::string& path);
// "path: what: strerror(errno)".
std::string ErrnoMessage(const std::string& path, const char* what);
// Checked before a region's buffer is allocated: the sizes come from the
// superblock, and a device too small for them is damage (exit 1).
Expected<void> NeedBytes(int fd, const std::string& path, const char* what, std::uint64_t end);
// pread of [off, off + len). At the end of the file pread returns 0 and
// leaves errno alone, so a short file is reported by its size.
Expected<void> ReadRegion(int fd, const std::string& path, const char* what, std::byte* p,
                          std::size_t len, std::uint64_t off);

}  // namespace tierlab
