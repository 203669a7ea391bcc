#include "tiering/targets/NetworkHopTarget.h"

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
  const std::uint64_t bytes = RequestBytes(req);
  const Nanos sent = client_->Send(engine().Now(), bytes);
  engine().ScheduleAt(sent, [f, sent, bytes] {
    NetworkHopTarget* self = f->self;
    const Nanos arrived =
        self->server_->Receive(sent, self->client_->spec().one_way_latency, bytes);
    self->engine().ScheduleAt(arrived, [f] { f->self->Serve(f); });
  });
}

void NetworkHopTarget::Serve(InFlight* f) {
  child().Submit(f->req, [f](Status st) {
    NetworkHopTarget* self = f->self;
    f->status = st;
    const std::uint64_t bytes = self->AnswerBytes(f->req);
    const Nanos sent = self->server_->Send(self->engine().Now(), bytes);
    self->engine().ScheduleAt(sent, [f, sent, bytes] {
      NetworkHopTarget* s = f->self;
      const Nanos arrived = s->client_->Receive(sent, s->server_->spec().one_way_latency, bytes);
      s->engine().ScheduleAt(arrived, [f] {
        NetworkHopTarget* t = f->self;
        t->Finish(f->done, f->status);
        t->in_flight_.Release(f);
      });
    });
  });
}

}  // namespace tierlab
