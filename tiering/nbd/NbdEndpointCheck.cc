#include "tiering/nbd/NbdEndpointCheck.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

namespace tierlab {
namespace {

Expected<void> CheckUnix(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return MakeError(path + ": no directory " + dir, ErrorKind::kInput);
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return MakeError(path + ": cannot create a socket in " + dir + ": " + std::strerror(errno),
                     ErrorKind::kInput);
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return {};
  if (!S_ISSOCK(st.st_mode)) return MakeError(path + " exists and is not a socket", ErrorKind::kIo);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool live =
      probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (probe >= 0) ::close(probe);
  if (live) return MakeError(path + ": a server is already listening", ErrorKind::kIo);
  return {};
}

Expected<void> CheckTcp(const std::string& host, std::uint16_t port_number) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(port_number);
  if (const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return MakeError("cannot resolve '" + host + "': " + gai_strerror(rc), ErrorKind::kInput);
  }
  std::string error;
  bool bound = false;
  for (addrinfo* ai = res; ai != nullptr && !bound; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    bound = ::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    if (!bound) error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (!bound) return MakeError("bind " + host + ":" + port + ": " + error, ErrorKind::kIo);
  return {};
}

}  // namespace

Expected<void> CheckNbdEndpointFree(const NbdEndpoint& ep) {
  return ep.kind == NbdEndpoint::Kind::kUnix ? CheckUnix(ep.path) : CheckTcp(ep.host, ep.port);
}

}  // namespace tierlab
