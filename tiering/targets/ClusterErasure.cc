// ClusterTarget's erasure-coded request path: stripes of k data and m parity
// chunks across nodes (the scheme is described in ClusterTarget.h).

#include <algorithm>
#include <array>
#include <bit>

#include "tiering/targets/ClusterTarget.h"

namespace tierlab {
namespace {

// dst ^= src over `len` bytes: the change a write makes to a data chunk.
void XorInto(std::byte* dst, const std::byte* src, std::uint64_t len) {
  for (std::uint64_t i = 0; i < len; ++i) dst[i] ^= src[i];
}

// A buffer of at least `bytes`, kept from earlier writes where it is large
// enough (the pool's contexts keep theirs).
void Reserve(AlignedBuffer& b, std::uint64_t bytes) {
  if (b.size() < bytes) b = AlignedBuffer(bytes);
}

}  // namespace

void ClusterTarget::SubmitErasure(std::uint32_t client, SplitIo* s, const IoRequest& req) {
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint64_t stripe_bytes = chunk * data_chunks_;
  for (std::uint64_t off = req.offset; off < req.end();) {
    const std::uint64_t stripe = off / stripe_bytes;
    const std::uint64_t at = off % stripe_bytes;
    std::byte* data = req.data == nullptr ? nullptr : req.data + (off - req.offset);
    if (req.op == IoOp::kRead) {
      const std::uint64_t within = at % chunk;
      const std::uint64_t len = std::min(req.end() - off, chunk - within);
      ++s->remaining;
      Read* r = reads_in_flight_.Acquire();
      r->done = [this, s](Status st) { ChildDone(s, st); };
      r->req = IoRequest{req.op, req.flags, within, len, data};
      r->extent = stripe;
      r->client = client;
      r->copy = static_cast<std::uint32_t>(at / chunk);
      r->tries = 0;
      SubmitRead(r);
      off += len;
      continue;
    }
    MarkWritten(stripe);
    const std::uint64_t end = at + std::min(req.end() - off, stripe_bytes - at);
    const std::uint64_t first = at / chunk;
    const std::uint64_t last = (end - 1) / chunk;
    if (last == first + 1 && end - last * chunk <= at - first * chunk) {
      // Two chunks whose columns do not meet: two independent updates.
      const std::uint64_t split = last * chunk;
      AddStripeWrite(client, s, req.flags, stripe, at, split, data);
      AddStripeWrite(client, s, req.flags, stripe, split, end,
                     data == nullptr ? nullptr : data + (split - at));
    } else {
      AddStripeWrite(client, s, req.flags, stripe, at, end, data);
    }
    off += end - at;
  }
}

void ClusterTarget::AddStripeWrite(std::uint32_t client, SplitIo* s, std::uint32_t flags,
                                   std::uint64_t stripe, std::uint64_t begin, std::uint64_t end,
                                   std::byte* data) {
  StripeWrite* w = stripe_writes_in_flight_.Reuse();  // keeps its buffers
  w->self = this;
  w->parent = s;
  w->stripe = stripe;
  w->begin = begin;
  w->end = end;
  w->data = data;
  w->flags = flags;
  w->client = client;
  w->remaining = 0;
  w->status = Status::kOk;
  w->attempts = 0;
  ++s->remaining;
  const auto [lo, hi] = Columns(*w);
  if (ranges_.Acquire(stripe, lo, hi, [w] { w->self->StartStripeWrite(w); })) {
    StartStripeWrite(w);
  }
}

std::pair<std::uint64_t, std::uint64_t> ClusterTarget::Columns(const StripeWrite& w) const {
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint64_t first = w.begin / chunk;
  if ((w.end - 1) / chunk != first) return {0, chunk};
  return {w.begin - first * chunk, w.end - first * chunk};
}

void ClusterTarget::StartStripeWrite(StripeWrite* w) {
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint32_t k = data_chunks_;
  const std::uint32_t m = placement_.copies() - k;
  const auto [lo, hi] = Columns(*w);
  const std::uint64_t columns = hi - lo;
  const bool full = w->begin == 0 && w->end == chunk * k;
  w->degraded = false;
  if (unavailable_ != 0) {
    // A chunk it must read but cannot (a node down, a stale chunk): read
    // what can be read and compute parity afresh. A full-stripe write
    // reads nothing and writes the chunks that are up.
    const std::uint32_t unreadable = UnreadablePieces(w->stripe);
    std::uint32_t needed = ((1u << m) - 1) << k;  // the parities
    for (std::uint64_t d = w->begin / chunk; d <= (w->end - 1) / chunk; ++d) needed |= 1u << d;
    // More than m lost: refused there (data unavailable).
    const auto lost = static_cast<std::uint32_t>(std::popcount(unreadable));
    if (lost > m || (!full && (unreadable & needed) != 0)) {
      StartDegradedStripeWrite(w);
      return;
    }
  }
  if (w->data != nullptr) Reserve(w->parity, m * columns);
  std::array<std::byte*, 3> parity{};  // ParityCode's m <= 3
  for (std::uint32_t j = 0; j < m && w->data != nullptr; ++j) {
    parity[j] = w->parity.data() + j * columns;
  }
  if (full) {
    ++stripe_writes_.full_stripe;
    if (w->data != nullptr) {
      std::vector<std::byte*> data(k);
      for (std::uint32_t d = 0; d < k; ++d) data[d] = w->data + d * chunk;
      code_->Encode(chunk, data, std::span<std::byte* const>(parity.data(), m));
    }
    WriteStripe(w);
    return;
  }
  ++stripe_writes_.read_modify_write;
  if (w->data != nullptr) Reserve(w->old, w->end - w->begin);
  // Nothing below completes inside Submit, so counting as we go is safe.
  for (std::uint64_t a = w->begin; a < w->end;) {
    const std::uint64_t d = a / chunk;
    const std::uint64_t b = std::min(w->end, (d + 1) * chunk);
    const ClusterPlacement::Copy c = PieceAt(w->stripe, static_cast<std::uint32_t>(d));
    std::byte* into = w->data == nullptr ? nullptr : w->old.data() + (a - w->begin);
    ++w->remaining;
    SendTo(w->client, c.node, IoRequest{IoOp::kRead, 0, c.offset + a - d * chunk, b - a, into},
           [w](Status st) { w->self->StripeReadDone(w, st); });
    a = b;
  }
  for (std::uint32_t j = 0; j < m; ++j) {
    const ClusterPlacement::Copy c = PieceAt(w->stripe, k + j);
    ++w->remaining;
    SendTo(w->client, c.node, IoRequest{IoOp::kRead, 0, c.offset + lo, columns, parity[j]},
           [w](Status st) { w->self->StripeReadDone(w, st); });
  }
}

void ClusterTarget::StripeReadDone(StripeWrite* w, Status st) {
  if (w->status == Status::kOk && st != Status::kOk) w->status = st;
  if (--w->remaining != 0) return;
  if (w->status != Status::kOk && unavailable_ != 0 && w->attempts < placement_.copies()) {
    // A node went down under its reads: again, degraded, with what is left.
    ++w->attempts;
    w->status = Status::kOk;
    StartDegradedStripeWrite(w);
    return;
  }
  if (w->status != Status::kOk) {
    // Without the old bytes the parity cannot follow the data: write nothing.
    w->remaining = 1;
    StripeWriteDone(w, kNoNode, w->status);
    return;
  }
  if (w->degraded) {
    FinishDegradedStripeWrite(w);
    return;
  }
  if (w->data != nullptr) {
    const std::uint64_t chunk = placement_.extent_bytes();
    const std::uint32_t m = placement_.copies() - data_chunks_;
    const auto [lo, hi] = Columns(*w);
    for (std::uint64_t a = w->begin; a < w->end;) {
      const std::uint64_t d = a / chunk;
      const std::uint64_t b = std::min(w->end, (d + 1) * chunk);
      std::byte* delta = w->old.data() + (a - w->begin);
      XorInto(delta, w->data + (a - w->begin), b - a);
      std::array<std::byte*, 3> parity{};
      for (std::uint32_t j = 0; j < m; ++j) {
        parity[j] = w->parity.data() + j * (hi - lo) + (a - d * chunk - lo);
      }
      code_->Update(b - a, static_cast<int>(d), delta,
                    std::span<std::byte* const>(parity.data(), m));
      a = b;
    }
  }
  WriteStripe(w);
}

void ClusterTarget::WriteStripe(StripeWrite* w) {
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint32_t k = data_chunks_;
  const std::uint32_t m = placement_.copies() - k;
  const auto [lo, hi] = Columns(*w);
  w->remaining = 0;
  w->status = Status::kOk;
  for (std::uint64_t a = w->begin; a < w->end;) {
    const std::uint64_t d = a / chunk;
    const std::uint64_t b = std::min(w->end, (d + 1) * chunk);
    const ClusterPlacement::Copy c = PieceAt(w->stripe, static_cast<std::uint32_t>(d));
    std::byte* from = w->data == nullptr ? nullptr : w->data + (a - w->begin);
    const IoRequest q{IoOp::kWrite, w->flags, c.offset + a - d * chunk, b - a, from};
    a = b;
    if (down_[c.node] != 0) {
      MarkStale(c.node, w->stripe);  // parity holds it; resynced when the node is back
      continue;
    }
    ++w->remaining;
    const std::uint32_t node = c.node;
    SendTo(w->client, c.node, q, [w, node](Status st) { w->self->StripeWriteDone(w, node, st); });
  }
  for (std::uint32_t j = 0; j < m; ++j) {
    const ClusterPlacement::Copy c = PieceAt(w->stripe, k + j);
    if (down_[c.node] != 0) {
      MarkStale(c.node, w->stripe);
      continue;
    }
    std::byte* from = w->data == nullptr ? nullptr : w->parity.data() + j * (hi - lo);
    ++w->remaining;
    const std::uint32_t node = c.node;
    SendTo(w->client, c.node, IoRequest{IoOp::kWrite, w->flags, c.offset + lo, hi - lo, from},
           [w, node](Status st) { w->self->StripeWriteDone(w, node, st); });
  }
  if (w->remaining == 0) {  // every piece it writes is down
    w->remaining = 1;
    w->status = Status::kIoError;
    engine().Post([w] { w->self->StripeWriteDone(w, kNoNode, Status::kIoError); });
  }
}

void ClusterTarget::StripeWriteDone(StripeWrite* w, std::uint32_t node, Status st) {
  if (MissedOnDownNode(node, w->stripe, st)) st = Status::kOk;
  if (w->status == Status::kOk && st != Status::kOk) w->status = st;
  if (--w->remaining != 0) return;
  if (w->status == Status::kOk && unavailable_ != 0 &&
      static_cast<std::uint32_t>(std::popcount(UnreadablePieces(w->stripe))) >
          placement_.copies() - data_chunks_) {
    w->status = Status::kIoError;  // nodes went down under it: more than m lost
  }
  const auto [lo, hi] = Columns(*w);
  SplitIo* parent = w->parent;
  const Status status = w->status == Status::kShutdown ? Status::kIoError : w->status;
  const std::uint64_t stripe = w->stripe;
  stripe_writes_in_flight_.Release(w);
  ranges_.Release(stripe, lo, hi);  // may start the next write of these columns
  ChildDone(parent, status);
}

std::uint64_t ClusterTarget::WarmErasure(const IoRequest& req) {
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint64_t stripe_bytes = chunk * data_chunks_;
  const std::uint32_t pieces = placement_.copies();
  std::uint64_t placed = 0;
  for (std::uint64_t off = req.offset; off < req.end();) {
    const std::uint64_t stripe = off / stripe_bytes;
    const std::uint64_t at = off % stripe_bytes;
    const std::uint64_t d = at / chunk;
    const std::uint64_t within = at % chunk;
    const std::uint64_t len = std::min(req.end() - off, chunk - within);
    const ClusterPlacement::Copy c = PieceAt(stripe, static_cast<std::uint32_t>(d));
    placed += children_[c.node]->Warm(IoRequest{req.op, req.flags, c.offset + within, len});
    if (req.op != IoOp::kRead) {
      MarkWritten(stripe);
      // Its parity columns too. (The read-modify-write's reads are not
      // warmed: they would read what this writes.)
      for (std::uint32_t j = data_chunks_; j < pieces; ++j) {
        const ClusterPlacement::Copy p = PieceAt(stripe, j);
        placed += children_[p.node]->Warm(IoRequest{req.op, req.flags, p.offset + within, len});
      }
    }
    off += len;
  }
  return placed;
}

}  // namespace tierlab
