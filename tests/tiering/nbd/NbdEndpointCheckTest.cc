// CheckNbdEndpointFree: what NbdServer::Listen would refuse, found before a
// volume's recovery, with the kind the CLI turns into its exit code.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "tests/support/TempDir.h"
#include "tiering/nbd/NbdEndpointCheck.h"

namespace tierlab {
namespace {

NbdEndpoint Unix(const std::string& path) {
  NbdEndpoint ep;
  ep.kind = NbdEndpoint::Kind::kUnix;
  ep.path = path;
  return ep;
}

TEST(NbdEndpointCheckTest, UnixSocketPathIsCheckedForItsDirectoryAndWhatIsThere) {
  testing::TempDir dir("tierlab-nbdcheck");
  EXPECT_TRUE(CheckNbdEndpointFree(Unix(dir.Path("a.sock"))).ok());

  auto missing = CheckNbdEndpointFree(Unix(dir.Path("no/a.sock")));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kInput);
  EXPECT_EQ(missing.error().message, dir.Path("no/a.sock") + ": no directory " + dir.Path("no"));

  std::ofstream(dir.Path("file")) << "x";
  auto file = CheckNbdEndpointFree(Unix(dir.Path("file")));
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().kind, ErrorKind::kIo);
  EXPECT_EQ(file.error().message, dir.Path("file") + " exists and is not a socket");

  // A socket someone listens on is in the way; a stale one is not.
  const std::string sock = dir.Path("live.sock");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, sock.data(), sock.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  auto live = CheckNbdEndpointFree(Unix(sock));
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.error().kind, ErrorKind::kIo);
  EXPECT_EQ(live.error().message, sock + ": a server is already listening");
  ::close(fd);
  EXPECT_TRUE(CheckNbdEndpointFree(Unix(sock)).ok()) << "a stale socket is replaced by Listen";
}

TEST(NbdEndpointCheckTest, TcpHostMustResolveAndThePortBind) {
  NbdEndpoint ep;
  ep.kind = NbdEndpoint::Kind::kTcp;
  ep.host = "no-such-host.invalid";
  ep.port = 10809;
  auto bad = CheckNbdEndpointFree(ep);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
  EXPECT_EQ(bad.error().message.rfind("cannot resolve 'no-such-host.invalid': ", 0), 0u)
      << bad.error().message;

  // A port bound (and listened on) here cannot be bound again.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  ep.host = "127.0.0.1";
  ep.port = ntohs(a.sin_port);
  auto busy = CheckNbdEndpointFree(ep);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().kind, ErrorKind::kIo);
  EXPECT_EQ(busy.error().message.rfind("bind 127.0.0.1:" + std::to_string(ep.port) + ": ", 0), 0u)
      << busy.error().message;
  ::close(fd);
}

}  // namespace
}  // namespace tierlab
