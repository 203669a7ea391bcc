#include "tiering/devices/FileLock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace tierlab {
namespace {

struct flock WholeFile(LockMode mode) {
  struct flock l {};
  l.l_type = mode == LockMode::kExclusive ? F_WRLCK : F_RDLCK;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 0;  // to the end, however the file grows
  l.l_pid = 0;  // required by F_OFD_*
  return l;
}

}  // namespace

ErrorKind OpenErrorKind(int err) {
  return err == ENOENT || err == EACCES || err == EPERM || err == EISDIR || err == ENOTDIR ||
                 err == ELOOP || err == ENAMETOOLONG || err == EROFS
             ? ErrorKind::kInput
             : ErrorKind::kIo;
}

Expected<void> LockWholeFile(int fd, const std::string& path, LockMode mode,
                             std::uint32_t wait_ms) {
  struct flock l = WholeFile(mode);
  constexpr std::uint32_t kRetryMs = 5;
  std::uint32_t waited_ms = 0;
  for (;;) {
    if (::fcntl(fd, F_OFD_SETLK, &l) == 0) return {};
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EACCES) && waited_ms < wait_ms) {
      ::usleep(kRetryMs * 1000);
      waited_ms += kRetryMs;
      continue;
    }
    if (errno == EAGAIN || errno == EACCES) {
      return MakeError(path + ": in use by another process (locked)", ErrorKind::kInUse);
    }
    return MakeError(path + ": cannot lock: " + std::strerror(errno), ErrorKind::kIo);
  }
}

Expected<bool> WholeFileLocked(int fd, const std::string& path, LockMode mode) {
  struct flock l = WholeFile(mode);
  if (::fcntl(fd, F_OFD_GETLK, &l) != 0) {
    return MakeError(path + ": cannot test the lock: " + std::strerror(errno), ErrorKind::kIo);
  }
  return l.l_type != F_UNLCK;
}

Expected<FileLock> FileLock::Acquire(const std::string& path, LockMode mode, int open_flags) {
  const int fd = ::open(path.c_str(), open_flags | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    return MakeError(path + ": cannot open: " + std::strerror(e), OpenErrorKind(e));
  }
  FileLock lock(fd, path);
  if (auto r = LockWholeFile(fd, path, mode); !r.ok()) return r.error();
  return lock;
}

FileLock::FileLock(FileLock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    Release();
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

FileLock::~FileLock() {
  Release();
}

void FileLock::Release() {
  if (fd_ >= 0) ::close(fd_);  // the lock goes with the description
  fd_ = -1;
}

}  // namespace tierlab
