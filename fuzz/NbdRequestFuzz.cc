// libFuzzer target for the NBD server's input side. See fuzz/README.md.
//
// The first byte picks a mode; the rest is what a client sends:
//   even: the pure codec (tiering/nbd/NbdProtocol.h) walks the bytes as the
//         server would frame them: client flags, options until GO or
//         EXPORT_NAME (INFO/GO and meta-context data parsed; STRUCTURED_REPLY
//         and SET_META_CONTEXT shape the session), then request headers
//         checked against an export, skipping WRITE payloads. Invariants: a
//         request CheckRequest admits lies inside the export (aligned and
//         within the payload cap, except BLOCK_STATUS, which needs a
//         selected context); decoded data re-encodes to the same bytes.
//   odd:  the real NbdConnection on a RealEngine, fed the bytes through a
//         socketpair (then the client half-closes), exporting a 1 MiB
//         RamDevice. Must not crash, leak (ASan) or hang; afterwards the
//         device must have no request in flight.

#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "tiering/core/RealEngine.h"
#include "tiering/devices/RamDevice.h"
#include "tiering/nbd/NbdConnection.h"
#include "tiering/nbd/NbdProtocol.h"

namespace {

using namespace tierlab::nbd;  // NOLINT(google-build-using-namespace)

ExportInfo TestExport() {
  ExportInfo e;
  e.name = "fuzz";
  e.size = 1 << 20;
  e.min_block = 512;
  e.preferred_block = 4096;
  e.max_payload = 256 << 10;
  e.tx_flags =
      kTxHasFlags | kTxSendFlush | kTxSendFua | kTxSendTrim | kTxSendWriteZeroes | kTxCanMultiConn;
  return e;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

// Decoded option data re-encodes to the same bytes.
void CheckSame(const Bytes& again, ByteView data) {
  Check(again.size() == data.size() && std::memcmp(again.data(), data.data(), data.size()) == 0);
}

void FuzzCodec(ByteView in) {
  const ExportInfo info = TestExport();
  Session session;
  std::size_t pos = 0;
  auto rest = [&] { return in.subspan(pos); };
  if (!ParseClientFlags(rest()).ok()) return;
  pos += kClientFlagsSize;
  // Options.
  while (true) {
    auto h = ParseOptionHeader(rest());
    if (!h) {
      Check(!h.error().message.empty());
      return;
    }
    pos += kOptionHeaderSize;
    if (h->length > rest().size()) return;
    const ByteView data = rest().subspan(0, h->length);
    pos += h->length;
    if (h->option == kOptInfo || h->option == kOptGo) {
      auto r = ParseInfoRequest(data);
      if (r) {
        Check(r->name.size() <= kMaxStringLength);
        Bytes again;
        AppendInfoRequestData(again, r->name, r->infos);
        CheckSame(again, data);
      }
    }
    if (h->option == kOptStructuredReply) session.structured_replies = true;
    if (h->option == kOptListMetaContext || h->option == kOptSetMetaContext) {
      auto r = ParseMetaContextRequest(data);
      if (r) {
        Check(r->name.size() <= kMaxStringLength);
        Bytes again;
        AppendMetaContextRequestData(again, r->name, r->queries);
        CheckSame(again, data);
        if (h->option == kOptSetMetaContext && session.structured_replies) {
          session.base_allocation = false;
          for (const auto& q : r->queries) {
            if (q == kBaseAllocation) session.base_allocation = true;
          }
        }
      }
    }
    if (h->option == kOptGo || h->option == kOptExportName) break;
    if (h->option == kOptAbort) return;
  }
  // Transmission.
  while (true) {
    auto h = ParseRequestHeader(rest());
    if (!h) return;
    Bytes again;
    AppendRequest(again, *h);
    Check(std::memcmp(again.data(), rest().data(), kRequestHeaderSize) == 0);
    pos += kRequestHeaderSize;
    const std::uint32_t err = CheckRequest(*h, info, session);
    if (err == 0 && h->type != kCmdFlush && h->type != kCmdDisc) {
      Check(h->offset <= info.size && h->length <= info.size - h->offset);
      if (h->type == kCmdBlockStatus) {
        Check(session.base_allocation && h->length > 0);
      } else {
        Check(h->offset % info.min_block == 0 && h->length % info.min_block == 0);
      }
      if (h->type == kCmdRead || h->type == kCmdWrite) Check(h->length <= info.max_payload);
    }
    if (HasPayload(*h)) {
      if (h->length > rest().size()) return;
      pos += h->length;
    }
    if (h->type == kCmdDisc) return;
  }
}

struct Server {
  tierlab::RealEngine engine;
  tierlab::RamDevice device{engine, "ram", 1 << 20, 512};
  ExportInfo info = TestExport();
  tierlab::NbdConnectionEnv env{
      engine, device, info, std::make_shared<tierlab::NbdBufferPool>(engine, 8u << 20), {}, {}};
};

void FuzzConnection(ByteView in) {
  static Server* s = new Server;  // reused across inputs; never destroyed
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) return;
  bool closed = false;
  auto conn = std::make_unique<tierlab::NbdConnection>(
      s->env, sv[0], "fuzz", [&closed](tierlab::NbdConnection*) { closed = true; });
  if (!conn->Start()) {
    ::close(sv[1]);
    return;
  }
  std::size_t sent = 0;
  bool half_closed = false;
  char sink[1 << 16];
  for (int turn = 0; turn < 2000 && !(closed && s->device.in_flight() == 0); ++turn) {
    if (sent < in.size()) {
      const ssize_t w = ::send(sv[1], in.data() + sent, in.size() - sent, MSG_NOSIGNAL);
      if (w > 0) sent += static_cast<std::size_t>(w);
    } else if (!half_closed) {
      ::shutdown(sv[1], SHUT_WR);
      half_closed = true;
    }
    while (::recv(sv[1], sink, sizeof sink, 0) > 0) {
    }
    s->engine.RunUntil(s->engine.Now() + 200 * tierlab::kMicro);
  }
  conn.reset();
  // Orphaned requests complete and free themselves.
  for (int i = 0; i < 100 && s->device.in_flight() > 0; ++i) {
    s->engine.RunUntil(s->engine.Now() + tierlab::kMilli);
  }
  ::close(sv[1]);
  Check(s->device.in_flight() == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const ByteView in(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  if ((data[0] & 1) == 0) {
    FuzzCodec(in);
  } else {
    FuzzConnection(in);
  }
  return 0;
}
