#include "tiering/nbd/NbdServer.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "tiering/core/QuotedText.h"

namespace tierlab {

namespace {

// After EMFILE/ENFILE the listener stays readable; retry accepting later
// instead of spinning.
constexpr Nanos kAcceptRetry = 100 * kMilli;
// Refusals logged one by one per second; past that they are counted.
constexpr std::uint32_t kRefusalLines = 10;

// The client at the other end of `fd`, for log lines.
std::string PeerName(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "unknown peer";
  char host[INET6_ADDRSTRLEN] = "?";
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    return std::string("tcp:") + host + ":" + std::to_string(ntohs(a->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    return std::string("tcp:[") + host + "]:" + std::to_string(ntohs(a->sin6_port));
  }
  ucred cred{};
  socklen_t clen = sizeof cred;
  if (ss.ss_family == AF_UNIX && ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
    return "unix pid " + std::to_string(cred.pid) + " uid " + std::to_string(cred.uid);
  }
  return "unix peer";
}

std::string Errno(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

}  // namespace

Expected<NbdEndpoint> ParseNbdEndpoint(std::string_view spec) {
  const auto bad = [&](const std::string& why) {
    return MakeError("endpoint " + QuotedText(spec) + ": " + why);
  };
  NbdEndpoint ep;
  if (spec.starts_with("unix:")) {
    ep.kind = NbdEndpoint::Kind::kUnix;
    ep.path = std::string(spec.substr(5));
    if (ep.path.empty()) return bad("empty socket path");
    // The kernel would read the path only up to the NUL.
    if (ep.path.find('\0') != std::string::npos) return bad("socket path holds a NUL byte");
    if (ep.path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      return bad("socket path longer than " + std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) +
                 " bytes");
    }
    return ep;
  }
  if (!spec.starts_with("tcp:")) return bad("expected unix:PATH, tcp:HOST:PORT or tcp:PORT");
  ep.kind = NbdEndpoint::Kind::kTcp;
  std::string_view rest = spec.substr(4);
  std::string_view port_str;
  if (rest.starts_with("[")) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos || close + 1 >= rest.size() || rest[close + 1] != ':') {
      return bad("expected tcp:[ADDR]:PORT");
    }
    ep.host = std::string(rest.substr(1, close - 1));
    if (ep.host.empty()) return bad("empty address between [ and ]");
    port_str = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) {
      ep.host = "127.0.0.1";
      port_str = rest;
    } else {
      ep.host = std::string(rest.substr(0, colon));
      if (ep.host.empty()) ep.host = "127.0.0.1";
      port_str = rest.substr(colon + 1);
    }
  }
  unsigned port = 0;
  const auto [ptr, ec] = std::from_chars(port_str.data(), port_str.data() + port_str.size(), port);
  if (port_str.empty() || ec != std::errc() || ptr != port_str.data() + port_str.size() ||
      port > 65535) {
    return bad("port must be 0..65535, got " + QuotedText(port_str));
  }
  ep.port = static_cast<std::uint16_t>(port);
  return ep;
}

NbdServer::NbdServer(RealEngine& engine, BlockDevice& device, NbdServerOptions options)
    : engine_(engine),
      device_(device),
      options_(std::move(options)),
      pool_(std::make_shared<NbdBufferPool>(engine, options_.memory_limit)),
      env_{engine,
           device,
           info_,
           pool_,
           options_.timeouts,
           [this](const std::string& line) { Log(line); }} {
  info_.name = options_.export_name;
  info_.description = options_.description;
  info_.size = device.Size();
  info_.min_block = std::max<std::uint32_t>(1, device.BlockSize());
  info_.preferred_block = std::max<std::uint32_t>(4096, info_.min_block);
  info_.max_payload =
      std::max(info_.min_block, options_.max_payload / info_.min_block * info_.min_block);
  info_.tx_flags = nbd::kTxHasFlags | nbd::kTxSendFlush | nbd::kTxSendFua | nbd::kTxSendTrim |
                   nbd::kTxSendWriteZeroes | nbd::kTxCanMultiConn;
  // A tenth of the shortest timeout, within [20 ms, 1 s].
  Nanos shortest = kSecond * 10;
  for (const Nanos t : {options_.timeouts.handshake, options_.timeouts.option_idle,
                        options_.timeouts.stall, options_.timeouts.idle}) {
    if (t > 0) shortest = std::min(shortest, t);
  }
  sweep_period_ = std::clamp<Nanos>(shortest / 10, 20 * kMilli, kSecond);
}

void NbdServer::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "tierlab: nbd: %s\n", line.c_str());
  }
}

Expected<std::unique_ptr<NbdServer>> NbdServer::Listen(RealEngine& engine, BlockDevice& device,
                                                       std::string_view endpoint,
                                                       std::string export_name) {
  NbdServerOptions o;
  o.export_name = std::move(export_name);
  return Listen(engine, device, endpoint, std::move(o));
}

Expected<std::unique_ptr<NbdServer>> NbdServer::Listen(RealEngine& engine, BlockDevice& device,
                                                       std::string_view endpoint,
                                                       NbdServerOptions options) {
  auto ep = ParseNbdEndpoint(endpoint);
  if (!ep) return ep.error();
  if (options.export_name.size() > nbd::kMaxStringLength) {
    return MakeError("export name longer than 4096 bytes");
  }
  if (options.memory_limit < NbdBufferPool::CapacityFor(options.max_payload)) {
    return MakeError("nbd: memory limit of " + std::to_string(options.memory_limit) +
                     " bytes cannot hold one " + std::to_string(options.max_payload) +
                     "-byte request (at least " +
                     std::to_string(NbdBufferPool::CapacityFor(options.max_payload)) + ")");
  }
  if (options.max_connections == 0) return MakeError("nbd: max connections must be at least 1");
  std::unique_ptr<NbdServer> s(new NbdServer(engine, device, std::move(options)));
  if (auto r = s->Bind(*ep); !r) return r.error();
  if (!engine.WatchFd(s->listen_fd_, EPOLLIN,
                      [p = s.get()](std::uint32_t) { p->OnAcceptReady(); })) {
    return MakeError(Errno("nbd: watching the listening socket"), ErrorKind::kIo);
  }
  return s;
}

Expected<void> NbdServer::Bind(const NbdEndpoint& ep) {
  if (ep.kind == NbdEndpoint::Kind::kUnix) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, ep.path.data(), ep.path.size());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return MakeError(Errno("nbd: socket"), ErrorKind::kIo);
    listen_fd_ = fd;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      if (errno != EADDRINUSE) return MakeError(Errno("nbd: bind " + ep.path), ErrorKind::kIo);
      // Replace the file only if it is a socket nobody listens on.
      struct stat st {};
      if (::lstat(ep.path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) {
        return MakeError("nbd: " + ep.path + " exists and is not a socket", ErrorKind::kIo);
      }
      const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      const bool live =
          probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
      if (probe >= 0) ::close(probe);
      if (live)
        return MakeError("nbd: " + ep.path + ": a server is already listening", ErrorKind::kIo);
      ::unlink(ep.path.c_str());
      if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        return MakeError(Errno("nbd: bind " + ep.path), ErrorKind::kIo);
      }
    }
    unix_path_ = ep.path;
    // No client can connect before listen(), so tightening now leaves no window.
    if (::chmod(ep.path.c_str(), 0600) != 0)
      return MakeError(Errno("nbd: chmod " + ep.path), ErrorKind::kIo);
    if (::listen(fd, SOMAXCONN) != 0) return MakeError(Errno("nbd: listen"), ErrorKind::kIo);
    endpoint_ = "unix:" + ep.path;
    return {};
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(ep.port);
  if (const int rc = ::getaddrinfo(ep.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return MakeError("nbd: cannot resolve '" + ep.host + "': " + gai_strerror(rc),
                     ErrorKind::kInput);
  }
  std::string last_error = "no address";
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_error = Errno("socket");
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      last_error = Errno("bind " + ep.host + ":" + port);
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
    break;
  }
  ::freeaddrinfo(res);
  if (listen_fd_ < 0) return MakeError("nbd: " + last_error, ErrorKind::kIo);
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
  char host[INET6_ADDRSTRLEN] = "?";
  std::uint16_t bound_port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    bound_port = ntohs(a->sin_port);
    endpoint_ = std::string("tcp:") + host + ":" + std::to_string(bound_port);
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    bound_port = ntohs(a->sin6_port);
    endpoint_ = std::string("tcp:[") + host + "]:" + std::to_string(bound_port);
  }
  return {};
}

NbdServer::~NbdServer() {
  if (reap_scheduled_) engine_.Cancel(reap_timer_);
  if (accept_paused_) engine_.Cancel(resume_timer_);
  if (sweep_armed_) engine_.Cancel(sweep_timer_);
  if (listen_fd_ >= 0) {
    engine_.UnwatchFd(listen_fd_);
    ::close(listen_fd_);
  }
  if (!unix_path_.empty()) ::unlink(unix_path_.c_str());
  conns_.clear();  // each closes its socket and orphans its in-flight requests
}

void NbdServer::OnAcceptReady() {
  while (true) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: stop watching for a while rather than spin.
        engine_.ModifyFd(listen_fd_, 0);
        accept_paused_ = true;
        resume_timer_ = engine_.ScheduleAfter(kAcceptRetry, [this] {
          accept_paused_ = false;
          engine_.ModifyFd(listen_fd_, EPOLLIN);
        });
      }
      return;  // EAGAIN: drained
    }
    if (conns_.size() >= options_.max_connections) {
      Refuse(fd);
      continue;
    }
    if (!unix_path_.empty()) {
      // nothing: Unix sockets have no Nagle
    } else {
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    ++stats_.accepted;
    auto conn = std::make_unique<NbdConnection>(
        env_, fd, PeerName(fd), [this](NbdConnection* c) { OnConnectionClosed(c); });
    NbdConnection* raw = conn.get();
    conns_.push_back(std::move(conn));
    pool_->SetKeep(true);
    ArmSweep();
    raw->Start();  // on failure it closed itself and called the hook
  }
}

void NbdServer::Refuse(int fd) {
  ++stats_.refused;
  const Nanos now = engine_.Now();
  FlushRefusalCount(now);
  if (refusal_lines_ < kRefusalLines) {
    ++refusal_lines_;
    Log(PeerName(fd) + ": refused: " + std::to_string(conns_.size()) + " connections open (limit " +
        std::to_string(options_.max_connections) + ")");
  } else {
    ++refusals_unlogged_;
  }
  ::close(fd);
}

void NbdServer::FlushRefusalCount(Nanos now) {
  if (now - refusal_window_ < kSecond) return;
  if (refusals_unlogged_ > 0) {
    Log("refused " + std::to_string(refusals_unlogged_) +
        " more connections in the last second (not logged one by one; limit " +
        std::to_string(options_.max_connections) + ")");
  }
  refusal_window_ = now;
  refusal_lines_ = 0;
  refusals_unlogged_ = 0;
}

void NbdServer::ArmSweep() {
  if (sweep_armed_) return;
  sweep_armed_ = true;
  sweep_timer_ = engine_.ScheduleAfter(sweep_period_, [this] { Sweep(); });
}

void NbdServer::Sweep() {
  sweep_armed_ = false;
  const Nanos now = engine_.Now();
  FlushRefusalCount(now);
  // A drop only queues the connection for Reap, so conns_ is stable here.
  for (const auto& c : conns_) c->CheckTimeouts(now);
  if (!conns_.empty() || refusals_unlogged_ > 0) ArmSweep();
}

void NbdServer::OnConnectionClosed(NbdConnection* conn) {
  ++stats_.closed;
  // The connection may be deep in its own call stack: destroy it later.
  dead_.push_back(conn);
  if (!reap_scheduled_) {
    reap_scheduled_ = true;
    reap_timer_ = engine_.Post([this] { Reap(); });
  }
}

void NbdServer::Reap() {
  reap_scheduled_ = false;
  for (NbdConnection* d : dead_) {
    auto it =
        std::find_if(conns_.begin(), conns_.end(), [d](const auto& c) { return c.get() == d; });
    if (it != conns_.end()) {
      std::swap(*it, conns_.back());
      conns_.pop_back();
    }
  }
  dead_.clear();
  // Nobody left: give the memory kept for reuse back, and what requests
  // still on the device bring back later.
  if (conns_.empty()) pool_->SetKeep(false);
}

}  // namespace tierlab
