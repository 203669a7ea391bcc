#include "layouts/AtomicFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tierlab {
namespace {

Error Fail(const std::string& what, const std::string& step, int e) {
  return MakeError(what + ": " + step + ": " + std::strerror(e), ErrorKind::kIo);
}

}  // namespace

Expected<void> WriteFileAtomically(const std::string& path, std::string_view content,
                                   bool durable) {
  const std::string tmp = path + ".tmp";
  // A leftover from an earlier failure is ours to replace; a fresh inode
  // (O_EXCL) keeps a file someone linked there from being written through.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Fail(tmp, "create", errno);
  auto abandon = [&](const char* step, int e, bool close_fd) {
    if (close_fd) ::close(fd);
    ::unlink(tmp.c_str());
    return Fail(tmp, step, e);
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return abandon("write", n < 0 ? errno : ENOSPC, true);
    done += static_cast<std::size_t>(n);
  }
  if (durable && ::fsync(fd) != 0) return abandon("fsync", errno, true);
  if (::close(fd) != 0) return abandon("close", errno, false);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    return Fail(path, "rename", e);
  }
  if (durable) {
    std::string dir = std::filesystem::path(path).parent_path().string();
    if (dir.empty()) dir = ".";
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return Fail(dir, "open the directory to sync it", errno);
    const int rc = ::fsync(dfd);
    const int e = errno;
    ::close(dfd);
    if (rc != 0) return Fail(dir, "fsync", e);
  }
  return {};
}

}  // namespace tierlab
