#pragma once
// An NBD server that exports one BlockDevice, on a RealEngine.
//
// Endpoints:
//   unix:PATH           a Unix socket, created with mode 0600. A stale socket
//                       file (nobody listening) is replaced; a live one is an
//                       error. The file is removed when the server goes away.
//   tcp:HOST:PORT       TCP on HOST (numeric IPv4, [IPv6], or a name);
//   tcp:PORT            TCP on 127.0.0.1 (loopback unless asked otherwise).
//                       Port 0 picks a free port; endpoint() tells which.
//
// The export: the device's size; minimum block = the device's logical block
// size, preferred 4096 (or the block size if larger), maximum payload 32 MiB.
// Transmission flags: FLUSH, FUA, TRIM, WRITE_ZEROES, and CAN_MULTI_CONN
// (every connection submits to the same device, so a flush on one covers
// writes acknowledged on any other).
//
// Structured replies and the base:allocation meta context are offered
// (NbdConnection.h): holes of the device (BlockDevice::QueryAllocation) are
// reported to `nbdinfo --map`, `qemu-img map`, and copy tools that skip them.
//
// Clients are independent: a client that misbehaves or hangs up loses its own
// connection only. Limits (NbdServerOptions, defaults there):
//   - at most `max_connections` clients at once; more are accepted and closed
//     at once, each refusal logged (at most 10 lines a second, then a count);
//   - the handshake must finish within `timeouts.handshake`, without a gap of
//     `timeouts.option_idle`, or the connection is dropped: clients that
//     connect and say nothing cannot hold the connection slots;
//   - read replies and write payloads of all connections share
//     `memory_limit` bytes of buffers (NbdBufferPool.h); a connection whose
//     next request does not fit waits, unread, until buffers come back, and
//     one whose client does not read its replies stops being served and is
//     dropped after `timeouts.stall` without progress;
//   - `timeouts.idle` (off by default) drops connections with nothing going
//     on, for exports whose clients come and go.
// Every refusal and drop is one line through `log` naming the peer
// ("tcp:127.0.0.1:40312" or "unix pid 812 uid 0"). When the last connection
// is gone the buffers kept for reuse are freed.
//
// Threading: create, use and destroy on the engine's thread (or while the
// engine is not running). Ownership: borrows the engine and the device, which
// must outlive the server; requests still in flight when the server is
// destroyed complete into orphaned contexts, so keep the engine running until
// the device is idle before destroying the device.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/Expected.h"
#include "tiering/core/RealEngine.h"
#include "tiering/nbd/NbdConnection.h"
#include "tiering/nbd/NbdProtocol.h"

namespace tierlab {

struct NbdEndpoint {
  enum class Kind { kUnix, kTcp };
  Kind kind = Kind::kUnix;
  std::string path;  // kUnix
  std::string host;  // kTcp: as given, without brackets
  std::uint16_t port = 0;
};
// Parses "unix:PATH", "tcp:HOST:PORT", "tcp:[V6]:PORT" or "tcp:PORT".
Expected<NbdEndpoint> ParseNbdEndpoint(std::string_view spec);

struct NbdServerOptions {
  std::string export_name;
  std::string description;  // NBD_INFO_DESCRIPTION, if non-empty
  std::size_t max_connections = 64;
  std::uint32_t max_payload = 32u << 20;
  // Buffers for read replies and write payloads of all connections together;
  // at least max_payload rounded up to a power of two.
  std::size_t memory_limit = 256u << 20;
  // Handshake 10 s, 5 s between handshake bytes,
  // 30 s without progress while holding memory, no idle limit.
  NbdTimeouts timeouts;
  // Where refusals and drops go, one line each without a newline; empty:
  // stderr, prefixed "tierlab: nbd: ".
  std::function<void(const std::string&)> log;
};

struct NbdServerStats {
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;  // over max_connections
  std::uint64_t closed = 0;
};

class NbdServer {
 public:
  // Binds and listens on `endpoint`, watching it on `engine`. Errors (bad
  // spec, address in use, permissions) come back as an Error of kind kIo or
  // kInput.
  static Expected<std::unique_ptr<NbdServer>> Listen(RealEngine& engine, BlockDevice& device,
                                                     std::string_view endpoint,
                                                     std::string export_name);
  static Expected<std::unique_ptr<NbdServer>> Listen(RealEngine& engine, BlockDevice& device,
                                                     std::string_view endpoint,
                                                     NbdServerOptions options);
  NbdServer(const NbdServer&) = delete;
  NbdServer& operator=(const NbdServer&) = delete;
  // Closes the listener and every connection; unlinks a Unix socket.
  ~NbdServer();

  // The bound endpoint in Listen() syntax, with the real port for tcp:...:0.
  const std::string& endpoint() const { return endpoint_; }
  const nbd::ExportInfo& export_info() const { return info_; }
  std::size_t connections() const { return conns_.size(); }
  const NbdServerStats& stats() const { return stats_; }
  const NbdBufferPool& buffers() const { return *pool_; }

 private:
  NbdServer(RealEngine& engine, BlockDevice& device, NbdServerOptions options);
  Expected<void> Bind(const NbdEndpoint& ep);
  void OnAcceptReady();
  void Refuse(int fd);
  void OnConnectionClosed(NbdConnection* conn);
  void Reap();
  void ArmSweep();
  void Sweep();
  void Log(const std::string& line) const;
  void FlushRefusalCount(Nanos now);

  RealEngine& engine_;
  BlockDevice& device_;
  NbdServerOptions options_;
  nbd::ExportInfo info_;
  std::shared_ptr<NbdBufferPool> pool_;
  NbdConnectionEnv env_;
  int listen_fd_ = -1;
  std::string unix_path_;  // to unlink
  std::string endpoint_;
  std::vector<std::unique_ptr<NbdConnection>> conns_;
  std::vector<NbdConnection*> dead_;  // closed, destroyed by Reap()
  bool reap_scheduled_ = false;
  TimerId reap_timer_ = 0;
  bool accept_paused_ = false;
  TimerId resume_timer_ = 0;
  // Timeouts are checked every sweep_period_ while connections exist.
  Nanos sweep_period_ = 0;
  bool sweep_armed_ = false;
  TimerId sweep_timer_ = 0;
  // Refusal lines: at most kRefusalLines per second, the rest counted.
  Nanos refusal_window_ = 0;
  std::uint32_t refusal_lines_ = 0;
  std::uint64_t refusals_unlogged_ = 0;
  NbdServerStats stats_;
};

}  // namespace tierlab
