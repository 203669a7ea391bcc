#pragma once
// A remote block device one network hop away (an NVMe-oF or iSCSI target, a
// cluster node's copy): each request crosses from the client's port to the
// server's as a message (a header, and a write's data), the child (the
// server's stack) serves it, and the answer crosses back (a header, and a
// read's data), every message queued on the ports it uses, a segment at a
// time (CarryMessage.h, NicModel.h). The
// ports are shared: every hop that names a port queues on it, so links
// saturate, full duplex, where traffic converges (two clients on one server
// port, a node that both sends and serves).
//
// Timing only: the data itself passes through untouched, so the hop works
// with data and without, in simulated and in real time (the engine's timers
// hold each request and answer for its network time, as DelayTarget does).
// Flush and discard cross as header-only messages.
//
// Ownership: owns the child; shares the ports (std::shared_ptr) with every
// other hop that uses them. Threading: the engine's thread.

#include <memory>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"
#include "tiering/targets/NicModel.h"

namespace tierlab {

class NetworkHopTarget final : public ForwardingTarget {
 public:
  // `client` sends requests and receives answers; `server` the other way.
  NetworkHopTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                   std::shared_ptr<NicModel> client, std::shared_ptr<NicModel> server);

  std::string Kind() const override { return "network-hop"; }
  const NicModel& client_port() const { return *client_; }
  const NicModel& server_port() const { return *server_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct InFlight {
    NetworkHopTarget* self;
    IoRequest req;
    IoCallback done;
    Status status = Status::kOk;
  };
  // The bytes of a request's message and of its answer's.
  std::uint64_t RequestBytes(const IoRequest& req) const;
  std::uint64_t AnswerBytes(const IoRequest& req) const;
  void Serve(InFlight* f);

  std::shared_ptr<NicModel> client_;
  std::shared_ptr<NicModel> server_;
  ObjectPool<InFlight> in_flight_;
};

}  // namespace tierlab
