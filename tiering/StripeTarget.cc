#include "tiering/StripeTarget.h"

#include <algorithm>
#include <limits>

namespace tierlab {

StripeTarget::StripeTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children,
                           std::uint64_t chunk_bytes)
    : FanOutTarget(engine, std::move(name), std::move(children)), chunk_(chunk_bytes) {
  if (children_.empty() || chunk_ == 0) return;  // size 0: every request fails EINVAL
  std::uint64_t per_child = std::numeric_limits<std::uint64_t>::max();
  for (const auto& c : children_) per_child = std::min(per_child, c->Size());
  per_child -= per_child % chunk_;
  size_ = per_child * children_.size();
}

void StripeTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    SubmitToAll(req, std::move(done));
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
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
    IoRequest piece = req;
    piece.offset = (chunk / n) * chunk_ + in_chunk;
    piece.length = len;
    if (req.data != nullptr) piece.data = req.data + (off - req.offset);
    SubmitPiece(s, chunk % n, piece);
    off += len;
    left -= len;
  }
}

}  // namespace tierlab
