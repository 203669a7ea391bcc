#include "tiering/targets/LinearTarget.h"

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

template <class F>
void LinearTarget::ForEachPiece(const IoRequest& req, F&& f) const {
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
    f(i, piece);
    off += n;
    left -= n;
    ++i;
  }
}

void LinearTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    SubmitToAll(req, std::move(done));
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
  ForEachPiece(req, [this, s](std::size_t i, const IoRequest& piece) { SubmitPiece(s, i, piece); });
}

std::uint64_t LinearTarget::WarmImpl(const IoRequest& req) {
  if (req.op == IoOp::kFlush) return 0;
  std::uint64_t placed = 0;
  ForEachPiece(req, [this, &placed](std::size_t i, const IoRequest& piece) {
    placed += children_[i]->Warm(piece);
  });
  return placed;
}

void LinearTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                  std::size_t max_extents, AllocationMap& out) const {
  std::size_t i = std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin() - 1;
  std::uint64_t off = offset;
  std::uint64_t left = length;
  AllocationMap piece;
  while (left > 0 && out.size() <= max_extents) {
    const std::uint64_t in_child = off - starts_[i];
    const std::uint64_t n = std::min(left, children_[i]->Size() - in_child);
    if (children_[i]->QueryAllocation(in_child, n, max_extents + 1 - out.size(), &piece) !=
        Status::kOk) {
      return;  // cannot happen for a valid query; the caller pads with data
    }
    for (const AllocationExtent& e : piece) AppendExtent(out, e.length, e.hole);
    const std::uint64_t covered = CoveredBytes(piece);
    if (covered < n) return;  // the child answered a prefix: so do we
    off += n;
    left -= n;
    ++i;
  }
}

}  // namespace tierlab
