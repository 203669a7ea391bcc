#include "tiering/targets/NetworkHopTarget.h"

#include "tiering/targets/CarryMessage.h"

namespace tierlab {

NetworkHopTarget::NetworkHopTarget(Engine& engine, std::string name,
                                   std::unique_ptr<BlockDevice> child,
                                   std::shared_ptr<NicModel> client,
                                   std::shared_ptr<NicModel> server)
    : ForwardingTarget(engine, std::move(name), std::move(child)),
      client_(std::move(client)),
      server_(std::move(server)) {}

std::uint64_t NetworkHopTarget::RequestBytes(const IoRequest& req) const {
  return client_->spec().header_bytes + (req.op == IoOp::kWrite ? req.length : 0);
}

std::uint64_t NetworkHopTarget::AnswerBytes(const IoRequest& req) const {
  return server_->spec().header_bytes + (req.op == IoOp::kRead ? req.length : 0);
}

void NetworkHopTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  InFlight* f = in_flight_.Acquire();
  f->self = this;
  f->req = req;
  f->done = std::move(done);
  f->status = Status::kOk;
  CarryMessage(engine(), *client_, *server_, RequestBytes(req), [f] { f->self->Serve(f); });
}

void NetworkHopTarget::Serve(InFlight* f) {
  child().Submit(f->req, [f](Status st) {
    NetworkHopTarget* self = f->self;
    f->status = st;
    CarryMessage(self->engine(), *self->server_, *self->client_, self->AnswerBytes(f->req), [f] {
      NetworkHopTarget* t = f->self;
      t->Finish(f->done, f->status);
      t->in_flight_.Release(f);
    });
  });
}

}  // namespace tierlab
