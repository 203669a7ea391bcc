#include "tiering/targets/StripeTarget.h"

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

template <class F>
void StripeTarget::ForEachPiece(const IoRequest& req, F&& f) const {
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
    f(chunk % n, piece);
    off += len;
    left -= len;
  }
}

void StripeTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    SubmitToAll(req, std::move(done));
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
  ForEachPiece(req, [this, s](std::size_t i, const IoRequest& piece) { SubmitPiece(s, i, piece); });
}

std::uint64_t StripeTarget::WarmImpl(const IoRequest& req) {
  if (req.op == IoOp::kFlush) return 0;
  std::uint64_t placed = 0;
  ForEachPiece(req, [this, &placed](std::size_t i, const IoRequest& piece) {
    placed += children_[i]->Warm(piece);
  });
  return placed;
}

void StripeTarget::AllocationImpl(std::uint64_t offset, std::uint64_t length,
                                  std::size_t max_extents, AllocationMap& out) const {
  const std::uint64_t n = children_.size();
  const std::uint64_t end = offset + length;
  const std::uint64_t first_chunk = offset / chunk_;
  const std::uint64_t last_chunk = (end - 1) / chunk_;
  // One answer per child, for the child range between its first and last
  // chunk in the query, walked with a cursor (child offsets only grow as the
  // volume offset does). Each answer starts exactly where the child's first
  // piece does, so every query makes progress.
  struct Cursor {
    AllocationMap map;
    std::size_t index = 0;
    std::uint64_t at = 0;   // child offset where map[index] starts
    std::uint64_t end = 0;  // child offset where the answer ends
  };
  std::vector<Cursor> cursors(n);
  for (std::uint64_t c = 0; c < n; ++c) {
    const std::uint64_t first = first_chunk + (c + n - first_chunk % n) % n;
    if (first > last_chunk) continue;  // the query does not touch this child
    const std::uint64_t last = last_chunk - (last_chunk % n + n - c) % n;
    Cursor& k = cursors[c];
    k.at = (first / n) * chunk_ + (first == first_chunk ? offset % chunk_ : 0);
    const std::uint64_t stop =
        (last / n) * chunk_ + (last == last_chunk ? end - last * chunk_ : chunk_);
    if (children_[c]->QueryAllocation(k.at, stop - k.at, max_extents + 1, &k.map) != Status::kOk) {
      k.map.clear();
    }
    k.end = k.at + CoveredBytes(k.map);
  }
  std::uint64_t off = offset;
  while (off < end && out.size() <= max_extents) {
    const std::uint64_t chunk = off / chunk_;
    const std::uint64_t in_chunk = off % chunk_;
    const std::uint64_t len = std::min(end - off, chunk_ - in_chunk);
    Cursor& k = cursors[chunk % n];
    std::uint64_t child_off = (chunk / n) * chunk_ + in_chunk;
    // Past what this child answered, the answer is a prefix ending there.
    const std::uint64_t child_end = std::min(child_off + len, k.end);
    while (child_off < child_end) {
      while (k.at + k.map[k.index].length <= child_off) {
        k.at += k.map[k.index].length;
        ++k.index;
      }
      const AllocationExtent& e = k.map[k.index];
      const std::uint64_t take = std::min(child_end, k.at + e.length) - child_off;
      AppendExtent(out, take, e.hole);
      child_off += take;
    }
    if (child_end < (chunk / n) * chunk_ + in_chunk + len) return;
    off += len;
  }
}

}  // namespace tierlab
