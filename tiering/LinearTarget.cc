#include "tiering/LinearTarget.h"

#include <algorithm>

namespace tierlab {

LinearTarget::LinearTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children)
    : BlockDevice(engine, std::move(name)), children_(std::move(children)) {
  for (const auto& c : children_) {
    starts_.push_back(size_);
    size_ += c->Size();
    block_size_ = std::max(block_size_, c->BlockSize());
  }
}

bool LinearTarget::RequiresData() const {
  return std::any_of(children_.begin(), children_.end(),
                     [](const auto& c) { return c->RequiresData(); });
}

std::vector<BlockDevice*> LinearTarget::Children() const {
  std::vector<BlockDevice*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

void LinearTarget::ChildDone(SplitIo* s, Status st) {
  if (s->ChildDone(st)) {
    Finish(s->done, s->status);
    pool_.Release(s);
  }
}

void LinearTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (children_.empty()) {  // size 0: only a flush gets here, and has nothing to do
    FinishAsync(std::move(done), Status::kOk);
    return;
  }
  SplitIo* s = pool_.Acquire();
  s->done = std::move(done);
  if (req.op == IoOp::kFlush) {
    s->remaining = static_cast<std::uint32_t>(children_.size());
    for (auto& c : children_) c->Submit(req, [this, s](Status st) { ChildDone(s, st); });
    return;
  }
  // Index of the child holding req.offset: the last start <= offset.
  std::size_t i =
      std::upper_bound(starts_.begin(), starts_.end(), req.offset) - starts_.begin() - 1;
  std::uint64_t off = req.offset;
  std::uint64_t left = req.length;
  // Children never complete inside Submit, so counting as we go is safe.
  while (left > 0) {
    const std::uint64_t in_child = off - starts_[i];
    const std::uint64_t n = std::min(left, children_[i]->Size() - in_child);
    IoRequest child = req;
    child.offset = in_child;
    child.length = n;
    if (req.data != nullptr) child.data = req.data + (off - req.offset);
    ++s->remaining;
    children_[i]->Submit(child, [this, s](Status st) { ChildDone(s, st); });
    off += n;
    left -= n;
    ++i;
  }
}

}  // namespace tierlab
