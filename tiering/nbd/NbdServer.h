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
// Clients are independent: a client that misbehaves or hangs up loses its own
// connection only. At most `max_connections` clients at once; more are
// accepted and closed at once.
//
// Threading: create, use and destroy on the engine's thread (or while the
// engine is not running). Ownership: borrows the engine and the device, which
// must outlive the server; requests still in flight when the server is
// destroyed complete into orphaned contexts, so keep the engine running until
// the device is idle before destroying the device.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/BlockDevice.h"
#include "tiering/Expected.h"
#include "tiering/RealEngine.h"
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
};

struct NbdServerStats {
  std::uint64_t accepted = 0;
  std::uint64_t refused = 0;  // over max_connections
  std::uint64_t closed = 0;
};

class NbdServer {
 public:
  // Binds and listens on `endpoint`, watching it on `engine`. Errors (bad
  // spec, address in use, permissions) come back as an Error with kExitIo or
  // kExitUsage.
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

 private:
  NbdServer(RealEngine& engine, BlockDevice& device, NbdServerOptions options);
  Expected<void> Bind(const NbdEndpoint& ep);
  void OnAcceptReady();
  void OnConnectionClosed(NbdConnection* conn);
  void Reap();

  RealEngine& engine_;
  BlockDevice& device_;
  NbdServerOptions options_;
  nbd::ExportInfo info_;
  NbdBufferPool pool_;
  int listen_fd_ = -1;
  std::string unix_path_;  // to unlink
  std::string endpoint_;
  std::vector<std::unique_ptr<NbdConnection>> conns_;
  std::vector<NbdConnection*> dead_;  // closed, destroyed by Reap()
  bool reap_scheduled_ = false;
  TimerId reap_timer_ = 0;
  bool accept_paused_ = false;
  TimerId resume_timer_ = 0;
  NbdServerStats stats_;
};

}  // namespace tierlab
