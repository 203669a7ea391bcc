#include "tiering/targets/FaultTarget.h"

namespace tierlab {

FaultTarget::FaultTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                         std::uint64_t seed)
    : ForwardingTarget(engine, std::move(name), std::move(child)), rng_(seed) {}

void FaultTarget::FailAll(bool on) {
  rules_.clear();
  if (on) rules_.push_back(FaultRule{});
}

FaultRule* FaultTarget::Match(const IoRequest& req) {
  for (FaultRule& r : rules_) {
    if ((r.op_mask & (1u << static_cast<int>(req.op))) == 0) continue;
    if (r.triggered >= r.max_triggers) continue;
    if (req.op != IoOp::kFlush) {
      const std::uint64_t end = r.end == 0 ? ~0ull : r.end;
      if (req.end() <= r.start || req.offset >= end) continue;
    }
    if (r.probability < 1.0 &&
        std::uniform_real_distribution<double>(0, 1)(rng_) >= r.probability) {
      continue;
    }
    ++r.triggered;
    return &r;
  }
  return nullptr;
}

void FaultTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  FaultRule* rule = Match(req);
  if (rule != nullptr && rule->action == FaultAction::kFail) {
    FinishAsync(std::move(done), rule->status);
    return;
  }
  if (rule != nullptr && rule->action == FaultAction::kLoseWrite && req.op == IoOp::kWrite) {
    FinishAsync(std::move(done), Status::kOk);
    return;
  }
  Ctx* c = pool_.Acquire();
  c->done = std::move(done);
  c->req = req;
  c->faulted = rule != nullptr;
  c->action = rule != nullptr ? rule->action : FaultAction::kFail;
  IoRequest sent = req;
  if (c->faulted && c->action == FaultAction::kTearWrite && req.op == IoOp::kWrite) {
    const std::uint64_t bs = BlockSize();
    sent.length = std::max<std::uint64_t>(bs, (req.length / 2) / bs * bs);
  }
  child().Submit(sent, [this, c](Status st) {
    if (st == Status::kOk && c->faulted && c->action == FaultAction::kCorruptRead &&
        c->req.op == IoOp::kRead && c->req.data != nullptr) {
      for (std::uint64_t o = 0; o < c->req.length; o += 512) c->req.data[o] ^= std::byte{0x5a};
    }
    Finish(c->done, st);
    pool_.Release(c);
  });
}

}  // namespace tierlab
