#include "tiering/targets/FanOutTarget.h"

#include <algorithm>

namespace tierlab {

FanOutTarget::FanOutTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children)
    : BlockDevice(engine, std::move(name)), children_(std::move(children)) {
  for (const auto& c : children_) max_block_size_ = std::max(max_block_size_, c->BlockSize());
  RefreshRequiresData();
}

void FanOutTarget::RefreshRequiresData() {
  requires_data_ = std::any_of(children_.begin(), children_.end(),
                               [](const auto& c) { return c->RequiresData(); });
}

std::vector<BlockDevice*> FanOutTarget::Children() const {
  std::vector<BlockDevice*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

SplitIo* FanOutTarget::StartSplit(IoCallback done) {
  SplitIo* s = pool_.Acquire();
  s->done = std::move(done);
  s->remaining = 0;
  s->status = Status::kOk;
  return s;
}

void FanOutTarget::ChildDone(SplitIo* s, Status st) {
  if (s->ChildDone(st)) {
    Finish(s->done, s->status);
    pool_.Release(s);
  }
}

void FanOutTarget::SubmitPiece(SplitIo* s, std::size_t i, const IoRequest& piece) {
  // Children never complete inside Submit, so counting as we go is safe.
  ++s->remaining;
  children_[i]->Submit(piece, [this, s](Status st) { ChildDone(s, st); });
}

void FanOutTarget::SubmitToAll(const IoRequest& req, IoCallback done) {
  if (children_.empty()) {
    FinishAsync(std::move(done), Status::kOk);
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
  for (std::size_t i = 0; i < children_.size(); ++i) SubmitPiece(s, i, req);
}

}  // namespace tierlab
