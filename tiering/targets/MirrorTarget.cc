#include "tiering/targets/MirrorTarget.h"

#include <algorithm>
#include <limits>

namespace tierlab {

MirrorTarget::MirrorTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> legs)
    : FanOutTarget(engine, std::move(name), std::move(legs)) {
  size_ = children_.empty() ? 0 : std::numeric_limits<std::uint64_t>::max();
  for (const auto& l : children_) size_ = std::min(size_, l->Size());
  size_ -= size_ % max_block_size_;
}

std::size_t MirrorTarget::PickLeg() {
  const std::size_t n = children_.size();
  std::size_t best = next_ % n;
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t i = (next_ + k) % n;
    if (children_[i]->in_flight() < children_[best]->in_flight()) best = i;
  }
  next_ = best + 1;
  return best;
}

void MirrorTarget::SubmitRead(ReadCtx* r) {
  children_[r->leg]->Submit(r->req, [this, r](Status st) {
    ++r->tries;
    if (st != Status::kOk && st != Status::kInvalid && r->tries < children_.size()) {
      r->leg = (r->leg + 1) % children_.size();  // another copy may still be good
      SubmitRead(r);
      return;
    }
    Finish(r->done, st);
    reads_.Release(r);
  });
}

void MirrorTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kRead) {
    ReadCtx* r = reads_.Acquire();
    r->done = std::move(done);
    r->req = req;
    r->leg = PickLeg();
    r->tries = 0;
    SubmitRead(r);
    return;
  }
  SubmitToAll(req, std::move(done));  // writes, discards and flushes go to every leg
}

std::uint64_t MirrorTarget::WarmImpl(const IoRequest& req) {
  if (req.op == IoOp::kFlush || children_.empty()) return 0;
  if (req.op == IoOp::kRead) return children_.front()->Warm(req);
  std::uint64_t placed = 0;
  for (const auto& leg : children_) placed += leg->Warm(req);
  return placed;
}

}  // namespace tierlab
