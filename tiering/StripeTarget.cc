#include "tiering/StripeTarget.h"

#include <algorithm>
#include <limits>

namespace tierlab {

StripeTarget::StripeTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children,
                           std::uint64_t chunk_bytes)
    : BlockDevice(engine, std::move(name)), children_(std::move(children)), chunk_(chunk_bytes) {
  std::uint64_t per_child = std::numeric_limits<std::uint64_t>::max();
  for (const auto& c : children_) {
    per_child = std::min(per_child, c->Size());
    block_size_ = std::max(block_size_, c->BlockSize());
  }
  if (children_.empty() || chunk_ == 0) return;  // size 0: every request fails EINVAL
  per_child -= per_child % chunk_;
  size_ = per_child * children_.size();
}

bool StripeTarget::RequiresData() const {
  return std::any_of(children_.begin(), children_.end(),
                     [](const auto& c) { return c->RequiresData(); });
}

std::vector<BlockDevice*> StripeTarget::Children() const {
  std::vector<BlockDevice*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

void StripeTarget::ChildDone(SplitIo* s, Status st) {
  if (s->ChildDone(st)) {
    Finish(s->done, s->status);
    pool_.Release(s);
  }
}

void StripeTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
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
  const std::uint64_t n = children_.size();
  std::uint64_t off = req.offset;
  std::uint64_t left = req.length;
  // One child request per chunk touched. Adjacent chunks on the same child
  // are not contiguous there (N > 1), so there is nothing to merge until a
  // request spans a whole stripe row; keep it simple and exact.
  while (left > 0) {
    const std::uint64_t chunk = off / chunk_;
    const std::uint64_t in_chunk = off % chunk_;
    const std::uint64_t len = std::min(left, chunk_ - in_chunk);
    IoRequest child = req;
    child.offset = (chunk / n) * chunk_ + in_chunk;
    child.length = len;
    if (req.data != nullptr) child.data = req.data + (off - req.offset);
    ++s->remaining;
    children_[chunk % n]->Submit(child, [this, s](Status st) { ChildDone(s, st); });
    off += len;
    left -= len;
  }
}

}  // namespace tierlab
