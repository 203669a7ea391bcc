#pragma once
// Whole-file locks that keep two users off one device file, and off one
// volume directory (its `lock` file): open-file-description locks
// (fcntl F_OFD_SETLK over the whole file).
//
// Why OFD locks: they belong to the open file description, like flock(2),
// so closing another descriptor of the same file (the metadata code opens a
// device path on its own) does not drop them, as it would a POSIX record
// lock; they go away when the last descriptor of the description closes,
// also when the process dies. Unlike flock, a lock can be tested without
// taking it (F_OFD_GETLK), so `tierlab status` never holds a lock that a
// starting server would trip over. They conflict with POSIX record locks
// (QEMU's image locks are OFD locks too), not with flock(2).
//
// Two descriptions conflict even inside one process: a layout naming one
// file twice is refused as a second process would be.
//
// The lock is on the inode: a hard link or a symlink to a locked file is
// the same file; another device node for the same block device (mknod) is
// not. Advisory: a program that takes no lock is not kept out.
//
// Threading: any thread. Errors name the path.

#include <cstdint>
#include <string>
#include <utility>

#include "tiering/core/Expected.h"

namespace tierlab {

enum class LockMode { kShared, kExclusive };

// Locks the whole file open on `fd`. An exclusive lock needs `fd` open for
// writing. Busy (another description holds a conflicting lock): retried
// every 5 ms for up to `wait_ms`, then kInUse, "PATH: in use by another
// process (locked)". A wait is for a holder that is already gone: a process
// killed with io_uring requests in flight keeps its files open until the
// kernel has finished them, some milliseconds after it was reaped.
Expected<void> LockWholeFile(int fd, const std::string& path, LockMode mode,
                             std::uint32_t wait_ms = 0);

// True if another open file description holds a lock conflicting with
// `mode` on the file open on `fd`. Takes nothing.
Expected<bool> WholeFileLocked(int fd, const std::string& path,
                               LockMode mode = LockMode::kExclusive);

// A descriptor holding a whole-file lock, released on destruction.
// Move-only.
class FileLock {
 public:
  FileLock() = default;
  // Opens `path` with `open_flags` (O_CLOEXEC is added; O_CREAT creates it
  // with mode 0600) and locks it. Errors: the open's errno (OpenErrorKind:
  // kInput or kIo), or busy (kInUse).
  static Expected<FileLock> Acquire(const std::string& path, LockMode mode, int open_flags);
  FileLock(FileLock&& o) noexcept;
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

  bool held() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  void Release();

 private:
  FileLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

// What an open(2) errno says went wrong: kInput for what the user named
// wrongly (a missing file, a directory, no permission), else kIo.
ErrorKind OpenErrorKind(int err);

}  // namespace tierlab
