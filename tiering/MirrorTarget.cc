#include "tiering/MirrorTarget.h"

#include <algorithm>
#include <limits>

namespace tierlab {

MirrorTarget::MirrorTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> legs)
    : BlockDevice(engine, std::move(name)), legs_(std::move(legs)) {
  size_ = legs_.empty() ? 0 : std::numeric_limits<std::uint64_t>::max();
  for (const auto& l : legs_) {
    size_ = std::min(size_, l->Size());
    block_size_ = std::max(block_size_, l->BlockSize());
  }
  size_ -= size_ % block_size_;
}

bool MirrorTarget::RequiresData() const {
  return std::any_of(legs_.begin(), legs_.end(), [](const auto& c) { return c->RequiresData(); });
}

std::vector<BlockDevice*> MirrorTarget::Children() const {
  std::vector<BlockDevice*> out;
  for (const auto& c : legs_) out.push_back(c.get());
  return out;
}

std::size_t MirrorTarget::PickLeg() {
  const std::size_t n = legs_.size();
  std::size_t best = next_ % n;
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t i = (next_ + k) % n;
    if (legs_[i]->in_flight() < legs_[best]->in_flight()) best = i;
  }
  next_ = best + 1;
  return best;
}

void MirrorTarget::ChildDone(SplitIo* s, Status st) {
  if (s->ChildDone(st)) {
    Finish(s->done, s->status);
    pool_.Release(s);
  }
}

void MirrorTarget::SubmitRead(ReadCtx* r) {
  legs_[r->leg]->Submit(r->req, [this, r](Status st) {
    ++r->tries;
    if (st != Status::kOk && st != Status::kInvalid && r->tries < legs_.size()) {
      r->leg = (r->leg + 1) % legs_.size();  // another copy may still be good
      SubmitRead(r);
      return;
    }
    Finish(r->done, st);
    reads_.Release(r);
  });
}

void MirrorTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (legs_.empty()) {  // size 0: only a flush gets here, and has nothing to do
    FinishAsync(std::move(done), Status::kOk);
    return;
  }
  if (req.op == IoOp::kRead) {
    ReadCtx* r = reads_.Acquire();
    r->done = std::move(done);
    r->req = req;
    r->leg = PickLeg();
    r->tries = 0;
    SubmitRead(r);
    return;
  }
  SplitIo* s = pool_.Acquire();
  s->done = std::move(done);
  s->remaining = static_cast<std::uint32_t>(legs_.size());
  for (auto& l : legs_) l->Submit(req, [this, s](Status st) { ChildDone(s, st); });
}

}  // namespace tierlab
