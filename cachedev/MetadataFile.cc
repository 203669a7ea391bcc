// Synchronous metadata I/O on a path (MetadataFile.h).

#include "cachedev/MetadataFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tiering/core/AlignedBuffer.h"

namespace tierlab {
namespace {

// pwrite until `len` bytes have moved; false on an error.
bool WriteAt(int fd, const std::byte* p, std::size_t len, std::uint64_t off) {
  while (len > 0) {
    const ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<std::size_t>(n);
    off += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Size of a file or block device (st_size is 0 for block devices).
std::uint64_t FileBytes(int fd) {
  const off_t end = ::lseek(fd, 0, SEEK_END);
  return end < 0 ? 0 : static_cast<std::uint64_t>(end);
}

}  // namespace

MetadataFd::~MetadataFd() {
  if (fd_ >= 0) ::close(fd_);
}

int OpenMetadata(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_DIRECT | O_CLOEXEC);
  if (fd < 0 && errno == EINVAL) fd = ::open(path.c_str(), flags | O_CLOEXEC);
  return fd;
}

std::uint64_t PathBytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const std::uint64_t n = FileBytes(fd);
  ::close(fd);
  return n;
}

std::string ErrnoMessage(const std::string& path, const char* what) {
  return path + ": " + what + ": " + std::strerror(errno);
}

Expected<void> NeedBytes(int fd, const std::string& path, const char* what, std::uint64_t end) {
  const std::uint64_t have = FileBytes(fd);
  if (have >= end) return {};
  return MakeError(path + ": " + what + ": file is " + std::to_string(have) + " bytes, needs " +
                       std::to_string(end),
                   ErrorKind::kInconsistent);
}

Expected<void> ReadRegion(int fd, const std::string& path, const char* what, std::byte* p,
                          std::size_t len, std::uint64_t off) {
  if (auto r = NeedBytes(fd, path, what, off + len); !r.ok()) return r;
  const std::uint64_t end = off + len;
  while (len > 0) {
    const ssize_t n = ::pread(fd, p, len, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return MakeError(ErrnoMessage(path, what), ErrorKind::kIo);
    if (n == 0) {  // shrunk meanwhile
      if (auto r = NeedBytes(fd, path, what, end); !r.ok()) return r;
      return MakeError(path + ": " + what + ": end of file before byte " + std::to_string(end),
                       ErrorKind::kInconsistent);
    }
    p += n;
    len -= static_cast<std::size_t>(n);
    off += static_cast<std::uint64_t>(n);
  }
  return {};
}

Expected<void> WriteSuperblock(const std::string& path, const Superblock& sb) {
  AlignedBuffer b(MetadataGeometry::kSuperblockBytes);
  if (auto r = EncodeSuperblock(sb, b.data()); !r.ok()) return r;
  const std::byte* p = b.data();
  MetadataFd fd(OpenMetadata(path, O_WRONLY));
  if (fd.get() < 0) return MakeError(ErrnoMessage(path, "open"), ErrorKind::kIo);
  if (!WriteAt(fd.get(), p, MetadataGeometry::kSuperblockBytes, 0) || ::fdatasync(fd.get()) != 0) {
    return MakeError(ErrnoMessage(path, "writing the superblock"), ErrorKind::kIo);
  }
  return {};
}

Expected<Superblock> ReadSuperblock(const std::string& path) {
  MetadataFd fd(OpenMetadata(path, O_RDONLY));
  if (fd.get() < 0) return MakeError(ErrnoMessage(path, "open"), ErrorKind::kIo);
  AlignedBuffer b(MetadataGeometry::kSuperblockBytes);
  if (auto r = ReadRegion(fd.get(), path, "reading the superblock", b.data(), b.size(), 0);
      !r.ok()) {
    return r.error();
  }
  return DecodeSuperblock(b.data(), path);
}

Expected<void> CheckSuperblockAgainstDevices(const Superblock& sb,
                                             const std::vector<std::string>& cache_paths,
                                             const std::vector<std::string>& origin_paths) {
  if (cache_paths.empty()) return MakeError("no cache device to check", ErrorKind::kInput);
  auto bad = [&](const char* field, const std::string& what) {
    return MakeError(cache_paths[0] + ": superblock " + field + ": " + what,
                     ErrorKind::kInconsistent);
  };
  if (sb.device_count != cache_paths.size()) {
    return bad("device_count", std::to_string(sb.device_count) + ", but the volume has " +
                                   std::to_string(cache_paths.size()) + " cache device(s)");
  }
  if (sb.device_index != 0) {
    return bad("device_index",
               std::to_string(sb.device_index) + " on the first cache device (a copy of another?)");
  }
  const MetadataGeometry& g = sb.geo;
  std::uint64_t lines = 0;
  std::uint64_t total = 0;
  bool known = true;
  for (std::size_t i = 0; i < cache_paths.size(); ++i) {
    const std::uint64_t n = PathBytes(cache_paths[i]);
    known = known && n != 0;
    lines += n / g.line_size;
    total += n;
    if (i == 0 && n != 0 && n < g.reserve) {
      return MakeError(cache_paths[0] + ": the metadata area: file is " + std::to_string(n) +
                           " bytes, needs " + std::to_string(g.reserve) +
                           " (superblock reserve for " + std::to_string(g.slots) + " slots of " +
                           std::to_string(g.line_size) + " bytes)",
                       ErrorKind::kInconsistent);
    }
  }
  if (known && g.slots > lines) {
    return bad("slots", std::to_string(g.slots) + " lines of " + std::to_string(g.line_size) +
                            " bytes need " + std::to_string(g.slots * g.line_size) +
                            " bytes, the cache devices hold " + std::to_string(total) +
                            " (a truncated device or a damaged superblock)");
  }
  std::uint64_t origin = 0;
  known = !origin_paths.empty();
  for (const auto& p : origin_paths) {
    const std::uint64_t n = PathBytes(p);
    known = known && n != 0;
    origin += n;
  }
  if (known && sb.origin_bytes > origin) {
    return bad("origin_bytes", std::to_string(sb.origin_bytes) + " exceeds the " +
                                   std::to_string(origin) + " bytes of the capacity devices");
  }
  return {};
}

Expected<void> WriteCheckpoint(const std::string& path, const Superblock& sb,
                               std::uint64_t generation, std::uint64_t next_seq,
                               const std::vector<std::uint32_t>& dirty,
                               const std::vector<std::uint32_t>& crc, bool clean) {
  const MetadataGeometry& g = sb.geo;
  AlignedBuffer b(g.checkpoint_bytes);
  EncodeCheckpoint(b.data(), g, sb.uuid, generation, next_seq, dirty, crc, clean);
  MetadataFd fd(OpenMetadata(path, O_WRONLY));
  if (fd.get() < 0) return MakeError(ErrnoMessage(path, "open"), ErrorKind::kIo);
  // The data the checkpoint names must be durable before the checkpoint.
  if (::fdatasync(fd.get()) != 0) return MakeError(ErrnoMessage(path, "fdatasync"), ErrorKind::kIo);
  const std::uint64_t off = g.checkpoint_offset + (generation % 2) * g.checkpoint_bytes;
  if (!WriteAt(fd.get(), b.data(), g.checkpoint_bytes, off) || ::fdatasync(fd.get()) != 0) {
    return MakeError(ErrnoMessage(path, "writing a checkpoint"), ErrorKind::kIo);
  }
  return {};
}

}  // namespace tierlab
