#include "cachedev/SuperblockLabel.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/devices/FileLock.h"

namespace tierlab {
namespace {

constexpr char kMagic[8] = {'T', 'L', 'V', 'O', 'L', 'S', 'B', '1'};
constexpr std::size_t kUuidOffset = 16;

std::string Errno(const std::string& path, const char* what, int e) {
  return path + ": " + what + ": " + std::strerror(e);
}

}  // namespace

std::optional<VolumeUuid> SuperblockLabel(const std::byte* head, std::size_t n) {
  if (n < kSuperblockLabelBytes || std::memcmp(head, kMagic, sizeof kMagic) != 0) {
    return std::nullopt;
  }
  VolumeUuid u;
  std::memcpy(u.data(), head + kUuidOffset, u.size());
  return u;
}

Expected<std::optional<VolumeUuid>> ReadSuperblockLabel(const std::string& path) {
  // Buffered: a small read, and no O_DIRECT alignment rules to meet.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return MakeError(Errno(path, "cannot open", e), OpenErrorKind(e));
  }
  std::byte head[kSuperblockLabelBytes];
  ssize_t n;
  do {
    n = ::pread(fd, head, sizeof head, 0);
  } while (n < 0 && errno == EINTR);
  const int e = errno;
  ::close(fd);
  if (n < 0) return MakeError(Errno(path, "reading the superblock", e), OpenErrorKind(e));
  return SuperblockLabel(head, static_cast<std::size_t>(n));
}

Expected<void> WipeSuperblock(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return MakeError(Errno(path, "cannot open", e), OpenErrorKind(e));
  }
  // Never longer than the device (a short file is not extended).
  const off_t end = ::lseek(fd, 0, SEEK_END);
  const std::size_t len =
      end < 0 ? 0 : std::min<std::size_t>(MetadataGeometry::kSuperblockBytes, end);
  const AlignedBuffer zeros(MetadataGeometry::kSuperblockBytes);
  std::size_t done = 0;
  int e = end < 0 ? errno : 0;
  while (e == 0 && done < len) {
    const ssize_t n = ::pwrite(fd, zeros.data() + done, len - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      e = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (e == 0 && ::fsync(fd) != 0) e = errno;
  ::close(fd);
  if (e != 0) return MakeError(Errno(path, "wiping the superblock", e), ErrorKind::kIo);
  return {};
}

}  // namespace tierlab
