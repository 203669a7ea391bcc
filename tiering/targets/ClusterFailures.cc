// ClusterTarget with nodes down: stale pieces, degraded erasure-coded reads
// and writes, and the resync of a node that is back (ClusterTarget.h).

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "tiering/targets/ClusterTarget.h"

namespace tierlab {
namespace {

constexpr std::uint64_t kResyncWindow = 1 << 20;

}  // namespace

void ClusterTarget::SetNodeDown(std::uint32_t n, bool down, bool host_down) {
  if ((down_[n] != 0) == down || retired_[n] != 0) return;  // a retired node stays out
  down_[n] = down ? 1 : 0;
  if (down) {
    ++unavailable_;
    down_since_[n] = engine().Now();
    noticed_by_ = std::max(noticed_by_, Noticed(n));
    if (client_restart_ != 0 && host_down) clients_back_[n] = Noticed(n) + client_restart_;
    // A piece its resync is copying may miss writes while it is down: the
    // resync starts that piece over when it is back (ResyncWindow).
    ++epoch_[n];
    NotifyState(n);
    return;
  }
  --unavailable_;
  // Back: this node resyncs what it missed, and any resync that stopped
  // for want of a source may go on now.
  for (auto& r : resyncs_) {
    if (!r->running) ResyncNext(r.get());
  }
  NotifyState(n);
}

void ClusterTarget::ReplaceNode(std::uint32_t n) {
  if (retired_[n] != 0) return;  // its pieces live on the others
  SetNodeDown(n, true);
  // What it missed, or lost with a device, or was to copy in, is part of
  // what it rebuilds.
  stale_count_ -= stale_[n].size();
  unavailable_ -= stale_[n].size();
  stale_[n].clear();
  copying_in_[n].clear();
  lost_pieces_at_[n].clear();
  repair_hold_[n] = 0;
  if (rebuild_at_[n] == SparseBitmap::kNone) ++unavailable_;
  rebuild_at_[n] = 0;
  for (std::uint32_t d = 0; d < repair_devices_; ++d) RebuildCursor(n, d) = 0;
  ++epoch_[n];  // a resync in flight for the node it replaces starts over
  SetNodeDown(n, false);
}

std::uint64_t ClusterTarget::RetireNode(std::uint32_t n) {
  SetNodeDown(n, true);
  if (retired_[n] != 0) return stranded_[n];
  retired_[n] = 1;
  ++retired_count_;
  ++epoch_[n];  // a resync in flight on it stops
  if (rebuild_at_[n] != SparseBitmap::kNone) {
    rebuild_at_[n] = SparseBitmap::kNone;  // a replacement's rebuild: its pieces move instead
    --unavailable_;
  }
  copying_in_[n].clear();  // pieces moved to it and not yet copied move on, below
  for (std::uint64_t u = written_.NextSet(0); u < units_; u = written_.NextSet(u + 1)) {
    const std::uint32_t i = PieceOn(n, u);
    if (i != kNoNode && !MovePiece(u, i, n, true)) ++stranded_[n];
  }
  // The nodes that took pieces are rebuilding now.
  for (std::uint32_t t = 0; t < placement_.nodes(); ++t) NotifyState(t);
  return stranded_[n];
}

std::uint64_t ClusterTarget::LosePieces(
    std::uint32_t n, const std::function<bool(std::uint64_t, std::uint64_t)>& lost,
    Nanos repair_at) {
  if (retired_[n] != 0) return 0;
  repair_hold_[n] = std::max(repair_hold_[n], repair_at);
  ++device_losses_[n];
  ++device_losses_total_;
  std::uint64_t count = 0;
  for (std::uint64_t u = written_.NextSet(0); u < units_; u = written_.NextSet(u + 1)) {
    const std::uint32_t i = PieceOn(n, u);
    if (i == kNoNode || !lost(PieceAt(u, i).offset, placement_.extent_bytes())) continue;
    ++count;
    copying_in_[n].insert(u);  // a rebuilt piece, as one moved to the node
    lost_pieces_at_[n].push_back(PieceAt(u, i).offset);
    MarkStale(n, u);
  }
  std::vector<std::uint64_t>& at = lost_pieces_at_[n];
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  // A resync in flight on a lost piece has copied into the device that
  // failed: the piece starts over.
  ++epoch_[n];
  for (const auto& w : ResyncsOf(n)) {
    if (!w->running) ResyncNext(w.get());
  }
  NotifyState(n);
  return count;
}

void ClusterTarget::MoveOffRetired(std::uint64_t unit) {
  for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
    const std::uint32_t node = PieceAt(unit, i).node;
    if (retired_[node] != 0 && !MovePiece(unit, i, node, false)) {
      ++stranded_[node];
      NotifyState(node);  // down again: the unit is degraded
    }
  }
}

bool ClusterTarget::MovePiece(std::uint64_t unit, std::uint32_t i, std::uint32_t from, bool copy) {
  // The least filled node that is up, has room and holds none of the
  // unit's other pieces; ties go round the nodes, unit by unit.
  const std::uint32_t nodes = placement_.nodes();
  std::uint32_t best = kNoNode;
  for (std::uint32_t j = 0; j < nodes; ++j) {
    const auto t = static_cast<std::uint32_t>((unit + j) % nodes);
    if (t == from || down_[t] != 0 || spare_used_[t] >= spare_slots_[t]) continue;
    if (PieceOn(t, unit) != kNoNode) continue;
    if (best == kNoNode || spare_used_[t] < spare_used_[best]) best = t;
  }
  if (best == kNoNode) return false;
  if (stale_[from].erase(unit) != 0) {
    --stale_count_;
    --unavailable_;
  }
  const std::uint64_t offset = used_per_node_ + spare_used_[best]++ * placement_.extent_bytes();
  moved_[unit * kMaxPieces + i] = ClusterPlacement::Copy{best, offset};
  if (copy) {
    copying_in_[best].insert(unit);
    MarkStale(best, unit);  // its resync copies it from the unit's other pieces
  }
  return true;
}

ClusterTarget::NodeState ClusterTarget::node_state(std::uint32_t n) const {
  if (retired_[n] != 0) return stranded_[n] != 0 ? NodeState::kDown : NodeState::kGone;
  if (down_[n] != 0) return NodeState::kDown;
  if (!copying_in_[n].empty() && engine().Now() < repair_hold_[n]) return NodeState::kDown;
  if (rebuild_at_[n] != SparseBitmap::kNone || !copying_in_[n].empty()) {
    return NodeState::kRebuilding;
  }
  if (!stale_[n].empty()) return NodeState::kResyncing;
  return NodeState::kHealthy;
}

bool ClusterTarget::IsStale(std::uint32_t node, std::uint64_t unit) const {
  return (stale_count_ != 0 && stale_[node].contains(unit)) ||
         (unit >= rebuild_at_[node] && written_.Test(unit));
}

std::uint32_t ClusterTarget::PieceOn(std::uint32_t node, std::uint64_t unit) const {
  for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
    if (PieceAt(unit, i).node == node) return i;
  }
  return kNoNode;
}

void ClusterTarget::MarkStale(std::uint32_t node, std::uint64_t unit) {
  // A write that a retired node refused, of a piece that has moved since:
  // the piece's new home is stale until its resync, which waits for that
  // write's lock, so it gets the write too.
  if (retired_[node] != 0 && PieceOn(node, unit) == kNoNode) return;
  if (!stale_[node].insert(unit).second) return;
  ++stale_count_;
  ++unavailable_;
  // A node up whose resync has stopped (it came back before a write it
  // refused completed) resyncs this piece too.
  if (down_[node] != 0) return;
  for (const auto& w : ResyncsOf(node)) {
    Resync* r = w.get();
    if (r->running || r->restart_posted) continue;
    r->restart_posted = true;
    engine().Post([r] {
      r->restart_posted = false;
      if (!r->running) r->self->ResyncNext(r);
    });
  }
}

bool ClusterTarget::MissedOnDownNode(std::uint32_t node, std::uint64_t unit, Status st) {
  if (st != Status::kShutdown || node >= down_.size()) return false;
  MarkStale(node, unit);
  return true;
}

void ClusterTarget::FailLater(Read* r) {
  engine().Post([this, r] {
    IoCallback done = std::move(r->done);
    reads_in_flight_.Release(r);
    done(Status::kIoError);
  });
}

std::uint32_t ClusterTarget::UnreadablePieces(std::uint64_t stripe) const {
  std::uint32_t mask = 0;
  for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
    if (!Readable(PieceAt(stripe, i).node, stripe)) mask |= 1u << i;
  }
  return mask;
}

bool ClusterTarget::PickSources(std::uint64_t stripe, std::uint32_t skip,
                                std::uint32_t* out) const {
  const std::uint32_t unreadable = skip | UnreadablePieces(stripe);
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < placement_.copies() && n < data_chunks_; ++i) {
    if ((unreadable & (1u << i)) == 0) out[n++] = i;
  }
  return n == data_chunks_;
}

// --- Degraded reads: a chunk decoded from k others ---------------------

void ClusterTarget::StartDegradedRead(Read* r) {
  DegradedRead* g = degraded_reads_.Reuse();  // keeps its buffers
  g->self = this;
  g->read = r;
  g->remaining = 0;
  g->attempts = 0;
  g->status = Status::kOk;
  // Under the stripe's lock over these columns: a read-modify-write in
  // between would leave the sources disagreeing (data new, parity old).
  const std::uint64_t lo = r->req.offset;
  if (ranges_.Acquire(r->extent, lo, lo + r->req.length, [g] { g->self->IssueDegradedRead(g); })) {
    IssueDegradedRead(g);
  }
}

void ClusterTarget::IssueDegradedRead(DegradedRead* g) {
  Read* r = g->read;
  const std::uint64_t len = r->req.length;
  if (!PickSources(r->extent, 1u << r->copy, g->sources)) {
    g->remaining = 1;  // fewer than k chunks readable: data unavailable
    g->attempts = placement_.copies();
    engine().Post([g] { g->self->DegradedReadDone(g, Status::kIoError); });
    return;
  }
  if (r->req.data != nullptr && g->buffers.size() < data_chunks_ * len) {
    g->buffers = AlignedBuffer(data_chunks_ * len);
  }
  // Nothing below completes inside Submit, so counting as we go is safe.
  for (std::uint32_t i = 0; i < data_chunks_; ++i) {
    const ClusterPlacement::Copy c = PieceAt(r->extent, g->sources[i]);
    std::byte* into = r->req.data == nullptr ? nullptr : g->buffers.data() + i * len;
    ++g->remaining;
    SendTo(r->client, c.node, IoRequest{IoOp::kRead, 0, c.offset + r->req.offset, len, into},
           [g](Status st) { g->self->DegradedReadDone(g, st); });
  }
}

void ClusterTarget::DegradedReadDone(DegradedRead* g, Status st) {
  if (g->status == Status::kOk && st != Status::kOk) g->status = st;
  if (--g->remaining != 0) return;
  Read* r = g->read;
  const std::uint64_t len = r->req.length;
  if (g->status != Status::kOk && g->attempts < placement_.copies()) {
    // A source's node went down under it: again from what is left.
    ++g->attempts;
    g->status = Status::kOk;
    IssueDegradedRead(g);
    return;
  }
  if (g->status == Status::kOk && r->req.data != nullptr) {
    std::array<std::byte*, 16> src{};
    std::array<int, 16> roles{};
    for (std::uint32_t i = 0; i < data_chunks_; ++i) {
      src[i] = g->buffers.data() + i * len;
      roles[i] = static_cast<int>(g->sources[i]);
    }
    const int wanted = static_cast<int>(r->copy);
    std::byte* out = r->req.data;
    if (!code_->Decode(len, std::span<const int>(roles.data(), data_chunks_),
                       std::span<std::byte* const>(src.data(), data_chunks_),
                       std::span<const int>(&wanted, 1), std::span<std::byte* const>(&out, 1))) {
      g->status = Status::kIoError;
    }
  }
  const Status status = g->status;
  const std::uint64_t stripe = r->extent;
  const std::uint64_t lo = r->req.offset;
  degraded_reads_.Release(g);
  IoCallback done = std::move(r->done);
  reads_in_flight_.Release(r);
  ranges_.Release(stripe, lo, lo + len);
  done(status == Status::kOk ? Status::kOk : Status::kIoError);
}

// --- Degraded writes: parity recomputed from every readable chunk ------

void ClusterTarget::StartDegradedStripeWrite(StripeWrite* w) {
  const std::uint32_t pieces = placement_.copies();
  const std::uint32_t unreadable = UnreadablePieces(w->stripe);
  const auto [lo, hi] = Columns(*w);
  const std::uint64_t columns = hi - lo;
  w->degraded = true;
  w->unread = unreadable;
  ++stripe_writes_.degraded;
  if (pieces - static_cast<std::uint32_t>(std::popcount(unreadable)) < data_chunks_) {
    w->status = Status::kIoError;  // fewer than k chunks readable: data unavailable
    w->attempts = placement_.copies();
    w->remaining = 1;
    engine().Post([w] { w->self->StripeReadDone(w, Status::kIoError); });
    return;
  }
  if (w->data != nullptr) {
    if (w->old.size() < pieces * columns) w->old = AlignedBuffer(pieces * columns);
  }
  // Nothing below completes inside Submit, so counting as we go is safe.
  for (std::uint32_t i = 0; i < pieces; ++i) {
    if ((unreadable & (1u << i)) != 0) continue;
    const ClusterPlacement::Copy c = PieceAt(w->stripe, i);
    std::byte* into = w->data == nullptr ? nullptr : w->old.data() + i * columns;
    ++w->remaining;
    SendTo(w->client, c.node, IoRequest{IoOp::kRead, 0, c.offset + lo, columns, into},
           [w](Status st) { w->self->StripeReadDone(w, st); });
  }
}

void ClusterTarget::FinishDegradedStripeWrite(StripeWrite* w) {
  if (w->data == nullptr) return WriteStripe(w);
  const std::uint64_t chunk = placement_.extent_bytes();
  const std::uint32_t k = data_chunks_;
  const std::uint32_t m = placement_.copies() - k;
  const auto [lo, hi] = Columns(*w);
  const std::uint64_t columns = hi - lo;
  std::array<std::byte*, 16> piece{};
  for (std::uint32_t i = 0; i < k + m; ++i) piece[i] = w->old.data() + i * columns;
  // The data chunks it could not read, decoded from k it did (as things
  // were when it read: a node back since holds nothing in these buffers).
  const std::uint32_t unreadable = w->unread;
  std::array<int, 16> missing{};
  std::array<std::byte*, 16> missing_out{};
  std::uint32_t n_missing = 0;
  for (std::uint32_t d = 0; d < k; ++d) {
    if ((unreadable & (1u << d)) != 0) {
      missing[n_missing] = static_cast<int>(d);
      missing_out[n_missing++] = piece[d];
    }
  }
  if (n_missing > 0) {
    std::array<int, 16> roles{};
    std::array<std::byte*, 16> src{};
    std::uint32_t n = 0;
    for (std::uint32_t i = 0; i < k + m && n < k; ++i) {
      if ((unreadable & (1u << i)) != 0) continue;
      roles[n] = static_cast<int>(i);
      src[n++] = piece[i];
    }
    if (n < k || !code_->Decode(columns, std::span<const int>(roles.data(), k),
                                std::span<std::byte* const>(src.data(), k),
                                std::span<const int>(missing.data(), n_missing),
                                std::span<std::byte* const>(missing_out.data(), n_missing))) {
      w->status = Status::kIoError;
      w->remaining = 1;
      StripeWriteDone(w, kNoNode, Status::kIoError);
      return;
    }
  }
  // The new data over the old, then every parity afresh.
  for (std::uint64_t a = w->begin; a < w->end;) {
    const std::uint64_t d = a / chunk;
    const std::uint64_t b = std::min(w->end, (d + 1) * chunk);
    std::memcpy(piece[d] + (a - d * chunk - lo), w->data + (a - w->begin), b - a);
    a = b;
  }
  if (w->parity.size() < m * columns) w->parity = AlignedBuffer(m * columns);
  std::array<std::byte*, 3> parity{};
  for (std::uint32_t j = 0; j < m; ++j) parity[j] = w->parity.data() + j * columns;
  code_->Encode(columns, std::span<std::byte* const>(piece.data(), k),
                std::span<std::byte* const>(parity.data(), m));
  WriteStripe(w);
}

// --- Resync: a node back pulls what it missed --------------------------

void ClusterTarget::ResyncNext(Resync* r) {
  if (r->running) DropPiece(r);  // called with a piece unfinished: it was given up
  if (down_[r->node] != 0) return;
  if (const Nanos hold = repair_hold_[r->node]; engine().Now() < hold) {
    // Pieces lost with a device wait for their repair to start.
    if (!r->restart_posted) {
      r->restart_posted = true;
      engine().ScheduleAt(hold, [r] {
        r->restart_posted = false;
        if (!r->running) r->self->ResyncNext(r);
        r->self->NotifyState(r->node);
      });
    }
    return;
  }
  r->epoch = epoch_[r->node];
  const auto start = [this, r](std::uint64_t unit, bool rebuild) {
    r->running = true;
    r->unit = unit;
    r->rebuild = rebuild;
    r->moved = !rebuild && copying_in_[r->node].contains(unit);
    r->at = 0;
    ResyncWindow(r);
  };
  // The first stale piece no other worker holds with something current to
  // copy from (a piece with none waits for a node to come back), then the
  // rebuild's next.
  for (const std::uint64_t unit : stale_[r->node]) {
    if (InGroup(r, unit) && !Claimed(r->node, unit) && HasResyncSource(r->node, unit)) {
      return start(unit, false);
    }
  }
  if (NextRebuildUnit(r)) return start(r->unit, true);
  NotifyState(r->node);  // nothing left that it can copy now
}

bool ClusterTarget::NextRebuildUnit(Resync* r) {
  const std::uint32_t n = r->node;
  if (rebuild_at_[n] == SparseBitmap::kNone) return false;
  std::uint64_t& next = RebuildCursor(n, r->device);
  while (true) {
    const std::uint64_t unit = next < units_ ? written_.NextSet(next) : units_;
    if (unit >= units_) {
      next = units_;
      // Rebuilt once no worker of any group has a unit left or in flight.
      const std::uint64_t frontier = RebuildFrontier(n);
      if (frontier < units_) {
        rebuild_at_[n] = frontier;
      } else {
        rebuild_at_[n] = SparseBitmap::kNone;  // rebuilt
        --unavailable_;
      }
      return false;
    }
    next = unit + 1;
    // Not its piece or its group's, or another worker's (taken again after
    // a piece before it was given up).
    if (PieceOn(n, unit) == kNoNode || !InGroup(r, unit) || Claimed(n, unit)) continue;
    if (!HasResyncSource(n, unit)) {
      // Nothing current to copy from: it waits with the stale pieces.
      MarkStale(n, unit);
      continue;
    }
    r->unit = unit;
    rebuild_at_[n] = std::min(RebuildFrontier(n), unit);
    return true;
  }
}

void ClusterTarget::DropPiece(Resync* r) {
  if (r->rebuild) {
    std::uint64_t& next = RebuildCursor(r->node, r->device);
    next = std::min(next, r->unit);
  }
  r->running = false;
}

bool ClusterTarget::InGroup(const Resync* r, std::uint64_t unit) const {
  if (repair_devices_ == 1) return true;
  const std::uint32_t i = PieceOn(r->node, unit);
  return i != kNoNode && device_of_(PieceAt(unit, i).offset) == r->device;
}

bool ClusterTarget::LostOnNode(std::uint32_t node, std::uint64_t offset,
                               std::uint64_t length) const {
  // The last lost piece starting before the range's end meets it if it
  // ends after the range's start (pieces do not overlap on a node).
  const std::vector<std::uint64_t>& at = lost_pieces_at_[node];
  const auto after = std::upper_bound(at.begin(), at.end(), offset + length - 1);
  return after != at.begin() && *std::prev(after) + placement_.extent_bytes() > offset;
}

bool ClusterTarget::Claimed(std::uint32_t node, std::uint64_t unit) const {
  for (const auto& w : ResyncsOf(node)) {
    if (w->running && w->unit == unit) return true;
  }
  return false;
}

bool ClusterTarget::RebuildInFlight(std::uint32_t node) const {
  for (const auto& w : ResyncsOf(node)) {
    if (w->running && w->rebuild) return true;
  }
  return false;
}

std::uint64_t ClusterTarget::RebuildFrontier(std::uint32_t node) const {
  std::uint64_t frontier = units_;
  for (std::uint32_t d = 0; d < repair_devices_; ++d) {
    frontier = std::min(frontier, rebuild_next_[std::size_t{node} * repair_devices_ + d]);
  }
  for (const auto& w : ResyncsOf(node)) {
    if (w->running && w->rebuild) frontier = std::min(frontier, w->unit);
  }
  return frontier;
}

bool ClusterTarget::HasResyncSource(std::uint32_t node, std::uint64_t unit) const {
  std::uint32_t readable = 0;
  for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
    const std::uint32_t n = PieceAt(unit, i).node;
    readable += n != node && Readable(n, unit) ? 1 : 0;
  }
  return readable >= (data_chunks_ > 0 ? data_chunks_ : 1);
}

void ClusterTarget::ResyncWindow(Resync* r) {
  // Down (and perhaps back) since the piece began: the windows copied may
  // have missed writes, so the piece starts over.
  if (r->epoch != epoch_[r->node]) return ResyncNext(r);
  r->window = std::min(kResyncWindow, placement_.extent_bytes() - r->at);
  if (repair_rate_ != 0) {
    // Throttled: a window starts once the node's one before it has taken
    // its bytes' time at the rate (its workers take turns).
    const Nanos now = engine().Now();
    Nanos& next = repair_next_[r->node];
    if (now < next) {
      engine().ScheduleAt(next, [r] { r->self->ResyncWindow(r); });
      return;
    }
    next = now + static_cast<Nanos>(r->window * 1'000'000'000 / repair_rate_);
  }
  if (ranges_.Acquire(r->unit, r->at, r->at + r->window, [r] { r->self->ResyncRead(r); })) {
    ResyncRead(r);
  }
}

void ClusterTarget::ResyncRead(Resync* r) {
  const std::uint32_t need = data_chunks_ > 0 ? data_chunks_ : 1;
  const std::uint32_t own = PieceOn(r->node, r->unit);  // a stale piece's unit: one of them
  bool found = down_[r->node] == 0;
  if (found && data_chunks_ > 0) {
    found = PickSources(r->unit, 1u << own, r->sources);
  } else if (found) {
    found = false;
    for (std::uint32_t i = 0; i < placement_.copies() && !found; ++i) {
      const std::uint32_t node = PieceAt(r->unit, i).node;
      if (node != r->node && Readable(node, r->unit)) {
        r->sources[0] = i;
        found = true;
      }
    }
  }
  if (!found) {
    // Down again, or nothing current left to copy from: the piece stays
    // stale; on to another (SetNodeDown restarts a resync that stopped).
    ranges_.Release(r->unit, r->at, r->at + r->window);
    ResyncNext(r);
    return;
  }
  r->sources[need] = own;  // where the window goes
  r->remaining = 0;
  r->status = Status::kOk;
  // With bytes once any guest write has carried some: a resync is not a
  // guest request that says whether the stack keeps data, and one that does
  // must get them.
  r->with_data = data_written_;
  if (r->with_data) {
    const std::uint32_t buffers = data_chunks_ > 0 ? placement_.copies() + data_chunks_ : 1;
    // Sized for the widest window a piece has (its extent, at most 1 MiB):
    // a node's workers hold depth x this between them.
    const std::uint64_t widest = std::min(kResyncWindow, placement_.extent_bytes());
    if (r->buffers.size() < buffers * r->window) r->buffers = AlignedBuffer(buffers * widest);
  }
  for (std::uint32_t i = 0; i < need; ++i) {
    const ClusterPlacement::Copy c = PieceAt(r->unit, r->sources[i]);
    std::byte* into = r->with_data ? r->buffers.data() + i * r->window : nullptr;
    ++r->remaining;
    SendFromNode(r->node, c.node, IoRequest{IoOp::kRead, 0, c.offset + r->at, r->window, into},
                 [r](Status st) { r->self->ResyncReadDone(r, st); });
  }
}

void ClusterTarget::ResyncReadDone(Resync* r, Status st) {
  if (r->status == Status::kOk && st != Status::kOk) r->status = st;
  if (--r->remaining != 0) return;
  if (r->status != Status::kOk) {
    ranges_.Release(r->unit, r->at, r->at + r->window);
    if (r->status == Status::kShutdown) {
      ResyncNext(r);  // a source went down under it: on with what is left
    } else {
      DropPiece(r);  // a device error: this worker stops rather than retry forever
    }
    return;
  }
  const std::uint32_t need = data_chunks_ > 0 ? data_chunks_ : 1;
  const std::uint32_t own = r->sources[need];
  std::byte* out = r->with_data ? r->buffers.data() : nullptr;  // a mirror's copy as read
  {
    if (r->with_data && data_chunks_ > 0) {
      // Every data chunk (read or decoded), then the parities; the piece
      // is one of them.
      const std::uint32_t k = data_chunks_;
      const std::uint32_t m = placement_.copies() - k;
      std::array<std::byte*, 16> piece{};
      std::array<int, 16> roles{};
      std::array<std::byte*, 16> src{};
      for (std::uint32_t i = 0; i < k + m; ++i) {
        piece[i] = r->buffers.data() + (k + i) * r->window;
      }
      for (std::uint32_t i = 0; i < k; ++i) {
        roles[i] = static_cast<int>(r->sources[i]);
        src[i] = r->buffers.data() + i * r->window;
      }
      std::array<int, 16> all{};
      for (std::uint32_t d = 0; d < k; ++d) all[d] = static_cast<int>(d);
      code_->Decode(r->window, std::span<const int>(roles.data(), k),
                    std::span<std::byte* const>(src.data(), k), std::span<const int>(all.data(), k),
                    std::span<std::byte* const>(piece.data(), k));
      code_->Encode(r->window, std::span<std::byte* const>(piece.data(), k),
                    std::span<std::byte* const>(piece.data() + k, m));
      out = piece[own];
    }
  }
  const ClusterPlacement::Copy c = PieceAt(r->unit, own);
  SendFromNode(r->node, r->node, IoRequest{IoOp::kWrite, 0, c.offset + r->at, r->window, out},
               [r](Status st) { r->self->ResyncWritten(r, st); });
}

std::uint64_t ClusterTarget::repair_buffer_bytes() const {
  std::uint64_t bytes = 0;
  for (const auto& r : resyncs_) bytes += r->buffers.size();
  return bytes;
}

void ClusterTarget::ResyncWritten(Resync* r, Status st) {
  ranges_.Release(r->unit, r->at, r->at + r->window);
  if (r->epoch != epoch_[r->node]) return ResyncNext(r);  // down or replaced under it
  if (st == Status::kShutdown) return ResyncNext(r);      // down again (or back already)
  if (st != Status::kOk) {
    DropPiece(r);  // a device error: this worker stops rather than retry forever
    return;
  }
  resync_stats_.bytes += r->window;
  if (r->rebuild || r->moved) resync_stats_.rebuilt_bytes += r->window;
  r->at += r->window;
  const bool unit_done = r->at >= placement_.extent_bytes();
  if (unit_done) {
    if (stale_[r->node].erase(r->unit) != 0) {
      --stale_count_;
      --unavailable_;
    }
    r->running = false;
    if (r->rebuild) {
      rebuild_at_[r->node] = RebuildFrontier(r->node);
      ++resync_stats_.rebuilt_pieces;
    }
    if (r->moved && copying_in_[r->node].erase(r->unit) != 0) ++resync_stats_.rebuilt_pieces;
    ++resync_stats_.pieces;
    return ResyncNext(r);
  }
  ResyncWindow(r);
}

}  // namespace tierlab
