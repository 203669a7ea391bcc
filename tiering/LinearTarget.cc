#include "tiering/LinearTarget.h"

#include <algorithm>

namespace tierlab {

LinearTarget::LinearTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children)
    : FanOutTarget(engine, std::move(name), std::move(children)) {
  for (const auto& c : children_) {
    starts_.push_back(size_);
    size_ += c->Size();
  }
}

void LinearTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    SubmitToAll(req, std::move(done));
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
  // Index of the child holding req.offset: the last start <= offset.
  std::size_t i =
      std::upper_bound(starts_.begin(), starts_.end(), req.offset) - starts_.begin() - 1;
  std::uint64_t off = req.offset;
  std::uint64_t left = req.length;
  while (left > 0) {
    const std::uint64_t in_child = off - starts_[i];
    const std::uint64_t n = std::min(left, children_[i]->Size() - in_child);
    IoRequest piece = req;
    piece.offset = in_child;
    piece.length = n;
    if (req.data != nullptr) piece.data = req.data + (off - req.offset);
    SubmitPiece(s, i, piece);
    off += n;
    left -= n;
    ++i;
  }
}

}  // namespace tierlab
