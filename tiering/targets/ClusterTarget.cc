#include "tiering/targets/ClusterTarget.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "tiering/targets/CarryMessage.h"

namespace tierlab {

// Client i's volume: forwards to the cluster with the client's number.
class ClusterTarget::View final : public BlockDevice {
 public:
  View(ClusterTarget& cluster, std::uint32_t client)
      : BlockDevice(cluster.engine(), cluster.name() + ".client" + std::to_string(client)),
        cluster_(cluster),
        client_(client) {}

  std::uint64_t Size() const override { return cluster_.Size(); }
  std::uint32_t BlockSize() const override { return cluster_.BlockSize(); }
  bool RequiresData() const override { return cluster_.RequiresData(); }
  std::string Kind() const override { return "cluster-client"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    Pending* p = pending_.Acquire();
    p->view = this;
    p->done = std::move(done);
    cluster_.SubmitFrom(client_, req, [p](Status st) {
      View* v = p->view;
      v->Finish(p->done, st);
      v->pending_.Release(p);
    });
  }
  std::uint64_t WarmImpl(const IoRequest& req) override { return cluster_.WarmFrom(client_, req); }

 private:
  struct Pending {
    View* view;
    IoCallback done;
  };
  ClusterTarget& cluster_;
  std::uint32_t client_;
  ObjectPool<Pending> pending_;
};

ClusterTarget::ClusterTarget(Engine& engine, std::string name,
                             std::vector<std::unique_ptr<BlockDevice>> stacks,
                             std::vector<Ports> node_ports, std::vector<Client> clients,
                             ClusterPlacement placement, ReadCopy reads, std::uint32_t data_chunks,
                             std::uint32_t spare_percent)
    : FanOutTarget(engine, std::move(name), std::move(stacks)),
      node_ports_(std::move(node_ports)),
      clients_(std::move(clients)),
      placement_(std::move(placement)),
      reads_(reads),
      data_chunks_(data_chunks) {
  std::uint64_t smallest = children_.empty() ? 0 : std::numeric_limits<std::uint64_t>::max();
  for (const auto& n : children_) smallest = std::min(smallest, n->Size());
  // The spare room stays out of the volume: whole groups of what is left.
  spare_percent = std::min(spare_percent, 100u);
  size_ = placement_.VolumeBytes(smallest - smallest / 100 * spare_percent);
  used_per_node_ = size_ / placement_.nodes() * placement_.copies();
  if (data_chunks_ > 0) {
    // Each placement extent is a stripe holding k chunks of data.
    size_ *= data_chunks_;
    code_ = std::make_unique<ParityCode>(static_cast<int>(data_chunks_),
                                         static_cast<int>(placement_.copies() - data_chunks_));
  }
  size_ -= size_ % max_block_size_;
  for (std::uint32_t i = 0; i < clients_.size(); ++i) {
    views_.push_back(std::make_unique<View>(*this, i));
  }
  down_.assign(children_.size(), 0);
  down_since_.assign(children_.size(), 0);
  clients_back_.assign(children_.size(), 0);
  node_client_.assign(children_.size(), kNoNode);
  for (std::uint32_t i = clients_.size(); i-- > 0;) {
    if (clients_[i].node >= 0) node_client_[clients_[i].node] = i;
  }
  stale_.resize(children_.size());
  const std::uint64_t unit_bytes = placement_.extent_bytes() * std::max(data_chunks_, 1u);
  units_ = (size_ + unit_bytes - 1) / unit_bytes;
  rebuild_at_.assign(children_.size(), SparseBitmap::kNone);
  rebuild_next_.assign(children_.size(), 0);
  repair_next_.assign(children_.size(), 0);
  epoch_.assign(children_.size(), 0);
  retired_.assign(children_.size(), 0);
  spare_used_.assign(children_.size(), 0);
  copying_in_.resize(children_.size());
  repair_hold_.assign(children_.size(), 0);
  device_losses_.assign(children_.size(), 0);
  lost_pieces_at_.resize(children_.size());
  stranded_.assign(children_.size(), 0);
  for (const auto& n : children_) {
    spare_slots_.push_back(
        spare_percent == 0 ? 0 : (n->Size() - used_per_node_) / placement_.extent_bytes());
  }
  SetRepairDepth(1);
}

void ClusterTarget::SetRepairDepth(std::uint32_t pieces) {
  repair_depth_ = std::max(pieces, 1u);
  MakeResyncWorkers();
}

void ClusterTarget::SetRepairDevices(std::uint32_t devices,
                                     std::function<std::uint32_t(std::uint64_t)> device_of) {
  repair_devices_ = device_of ? std::max(devices, 1u) : 1;
  device_of_ = std::move(device_of);
  rebuild_next_.assign(children_.size() * repair_devices_, 0);
  MakeResyncWorkers();
}

void ClusterTarget::MakeResyncWorkers() {
  resyncs_.clear();
  for (std::uint32_t n = 0; n < children_.size(); ++n) {
    for (std::uint32_t d = 0; d < repair_devices_; ++d) {
      for (std::uint32_t j = 0; j < repair_depth_; ++j) {
        resyncs_.push_back(std::make_unique<Resync>());
        resyncs_.back()->self = this;
        resyncs_.back()->node = n;
        resyncs_.back()->device = d;
      }
    }
  }
}

ClusterTarget::~ClusterTarget() = default;

void ClusterTarget::SetNodeCpus(std::vector<std::unique_ptr<NodeCpu>> cpus) {
  cpus_ = std::move(cpus);
}

BlockDevice& ClusterTarget::ClientView(std::size_t i) {
  return *views_[i];
}

void ClusterTarget::SubmitFrom(std::uint32_t client, const IoRequest& req, IoCallback done) {
  // Submit calls SubmitImpl at once (or completes an invalid request without
  // it), so the client number reaches exactly this request.
  origin_ = client;
  Submit(req, std::move(done));
  origin_ = 0;
}

std::uint32_t ClusterTarget::Running(std::uint32_t client) const {
  const int home = clients_[client].node;
  if (home < 0 || down_[home] == 0) return client;
  const auto nodes = static_cast<std::uint32_t>(down_.size());
  for (std::uint32_t i = 1; i < nodes; ++i) {
    const std::uint32_t n = (static_cast<std::uint32_t>(home) + i) % nodes;
    if (down_[n] == 0 && node_client_[n] != kNoNode) return node_client_[n];
  }
  return client;  // no node up: its requests fail where they go
}

std::uint32_t ClusterTarget::ReadCopyOf(std::uint32_t client, std::uint64_t extent) const {
  const int home = clients_[client].node;
  if (reads_ == ReadCopy::kLocal && home >= 0) {
    for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
      const std::uint32_t node = PieceAt(extent, i).node;
      if (node == static_cast<std::uint32_t>(home) && Readable(node, extent)) return i;
    }
  }
  // The primary, or the first copy after it that can be read.
  if (unavailable_ == 0) return 0;
  for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
    if (Readable(PieceAt(extent, i).node, extent)) return i;
  }
  return 0;
}

Nanos ClusterTarget::NoticedAt(const IoRequest& req) const {
  Nanos at = 0;
  const auto nodes = static_cast<std::uint32_t>(down_.size());
  if (req.op == IoOp::kFlush) {
    for (std::uint32_t n = 0; n < nodes; ++n) {
      if (down_[n] != 0) at = std::max(at, Noticed(n));
    }
    return at;
  }
  const std::uint64_t unit_bytes = placement_.extent_bytes() * std::max(data_chunks_, 1u);
  for (std::uint64_t u = req.offset / unit_bytes; u * unit_bytes < req.end(); ++u) {
    for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
      const std::uint32_t n = PieceAt(u, i).node;
      if (down_[n] != 0) at = std::max(at, Noticed(n));
    }
  }
  return at;
}

Nanos ClusterTarget::ClientBackAt(std::uint32_t i) const {
  const int home = clients_[i].node;
  if (home < 0) return 0;
  const Nanos back = clients_back_[static_cast<std::uint32_t>(home)];
  return back > engine().Now() ? back : 0;
}

void ClusterTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kWrite && req.data != nullptr) data_written_ = true;
  const Nanos now = engine().Now();
  // A client whose node is down waits for its restart elsewhere; a request
  // touching a node gone down that the cluster has not noticed yet waits
  // until it has (nothing below completes inside Submit).
  Nanos wait = client_restart_ != 0 ? ClientBackAt(origin_) : 0;
  if (now < noticed_by_) wait = std::max(wait, NoticedAt(req));
  if (wait > now) {
    Held* h = held_.Acquire();
    *h = Held{this, req, std::move(done), origin_};
    engine().ScheduleAt(wait, [h] {
      ClusterTarget* self = h->self;
      IoCallback resume = std::move(h->done);
      const IoRequest r = h->req;
      self->origin_ = h->client;
      self->held_.Release(h);
      self->SubmitImpl(r, std::move(resume));
      self->origin_ = 0;
    });
    return;
  }
  const std::uint32_t client = unavailable_ == 0 ? origin_ : Running(origin_);
  if (data_chunks_ > 0 && req.op == IoOp::kDiscard) {
    FinishAsync(std::move(done), Status::kNotSupported);  // see the header
    return;
  }
  if (req.op == IoOp::kFlush && std::count(down_.begin(), down_.end(), 0) == 0) {
    FinishAsync(std::move(done), Status::kIoError);  // no node to flush
    return;
  }
  SplitIo* s = StartSplit(std::move(done));
  // Nothing below completes inside Submit, so counting as we go is safe.
  auto child_done = [this, s](Status st) { ChildDone(s, st); };
  if (req.op == IoOp::kFlush) {
    for (std::uint32_t n = 0; n < children_.size(); ++n) {
      if (down_[n] != 0) continue;  // it holds nothing current to flush
      ++s->remaining;
      // A node that goes down meanwhile has nothing to flush either.
      SendTo(client, n, req,
             [this, s](Status st) { ChildDone(s, st == Status::kShutdown ? Status::kOk : st); });
    }
    return;
  }
  if (data_chunks_ > 0) {
    SubmitErasure(client, s, req);
    return;
  }
  const std::uint64_t extent_bytes = placement_.extent_bytes();
  for (std::uint64_t off = req.offset; off < req.end();) {
    const std::uint64_t extent = off / extent_bytes;
    const std::uint64_t within = off % extent_bytes;
    const std::uint64_t len = std::min(req.end() - off, extent_bytes - within);
    std::byte* data = req.data == nullptr ? nullptr : req.data + (off - req.offset);
    ++s->remaining;
    if (req.op == IoOp::kRead) {
      Read* r = reads_in_flight_.Acquire();
      r->done = child_done;
      r->req = IoRequest{req.op, req.flags, within, len, data};
      r->extent = extent;
      r->client = client;
      r->copy = ReadCopyOf(client, extent);
      r->tries = 0;
      SubmitRead(r);
    } else {
      MarkWritten(extent);
      WritePiece* w = writes_.Acquire();
      w->self = this;
      w->parent = s;
      w->req = IoRequest{req.op, req.flags, within, len, data};
      w->extent = extent;
      w->client = client;
      w->remaining = 0;
      w->status = Status::kOk;
      if (ranges_.Acquire(extent, within, within + len, [w] { w->self->DispatchWrite(w); })) {
        DispatchWrite(w);
      }
    }
    off += len;
  }
}

void ClusterTarget::DispatchWrite(WritePiece* w) {
  w->current = 0;
  w->refused = 0;
  w->landed = false;
  const std::uint32_t copies = placement_.copies();
  std::array<ClusterPlacement::Copy, kMaxPieces> at;
  for (std::uint32_t i = 0; i < copies; ++i) {
    at[i] = PieceAt(w->extent, i);
    if (Readable(at[i].node, w->extent)) w->current |= 1u << i;
  }
  if (w->current == 0) {
    // No current copy up (every one down or stale): nothing could hold it,
    // data unavailable; nothing is written or marked.
    w->status = Status::kIoError;
    w->remaining = 1;
    engine().Post([w] { w->self->WriteCopyDone(w, kNoNode, Status::kIoError); });
    return;
  }
  // Nothing below completes inside Submit, so counting as we go is safe.
  for (std::uint32_t i = 0; i < copies; ++i) {
    const ClusterPlacement::Copy c = at[i];
    if (down_[c.node] != 0) {
      MarkStale(c.node, w->extent);  // resynced when the node is back
      continue;
    }
    IoRequest q = w->req;
    q.offset += c.offset;
    ++w->remaining;
    SendTo(w->client, c.node, q, [w, i](Status st) { w->self->WriteCopyDone(w, i, st); });
  }
}

void ClusterTarget::WriteCopyDone(WritePiece* w, std::uint32_t copy, Status st) {
  if (copy != kNoNode && st == Status::kShutdown) {
    w->refused |= 1u << copy;  // its node went down on the way
    st = Status::kOk;
  } else if (copy != kNoNode && st == Status::kOk && (w->current & (1u << copy)) != 0) {
    w->landed = true;
  }
  if (w->status == Status::kOk && st != Status::kOk) w->status = st;
  if (--w->remaining != 0) return;
  if (w->landed) {
    // Those that missed it are stale.
    for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
      if ((w->refused & (1u << i)) != 0) MarkStale(PieceAt(w->extent, i).node, w->extent);
    }
  } else if (w->status == Status::kOk) {
    // Only stale copies took it: it failed, and the current copies that
    // refused it still hold what was last acknowledged.
    w->status = Status::kIoError;
  }
  ranges_.Release(w->extent, w->req.offset, w->req.end());
  SplitIo* parent = w->parent;
  const Status status = w->status == Status::kShutdown ? Status::kIoError : w->status;
  writes_.Release(w);
  ChildDone(parent, status);
}

void ClusterTarget::SubmitRead(Read* r) {
  ClusterPlacement::Copy c = PieceAt(r->extent, r->copy);
  if (!Readable(c.node, r->extent)) {
    if (data_chunks_ > 0) return StartDegradedRead(r);
    // Another copy, if one is readable and not yet tried.
    while (r->tries < placement_.copies() && !Readable(c.node, r->extent)) {
      ++r->tries;
      r->copy = (r->copy + 1) % placement_.copies();
      c = PieceAt(r->extent, r->copy);
    }
    if (r->tries == placement_.copies()) return FailLater(r);
  }
  IoRequest q = r->req;
  q.offset += c.offset;
  SendTo(r->client, c.node, q, [this, r](Status st) {
    ++r->tries;
    if (data_chunks_ > 0 && st == Status::kShutdown && r->tries == 1) {
      StartDegradedRead(r);  // its node went down while the read was on its way
      return;
    }
    if (data_chunks_ == 0 && st != Status::kOk && st != Status::kInvalid &&
        r->tries < placement_.copies()) {
      r->copy = (r->copy + 1) % placement_.copies();  // another copy may still be good
      SubmitRead(r);
      return;
    }
    IoCallback done = std::move(r->done);
    reads_in_flight_.Release(r);
    done(st == Status::kShutdown ? Status::kIoError : st);  // no copy answered
  });
}

void ClusterTarget::SendTo(std::uint32_t client, std::uint32_t node, const IoRequest& req,
                           IoCallback done) {
  const Client& from = clients_[client];
  Send(from.node >= 0 ? node_ports_[from.node] : from.ports, from.node == static_cast<int>(node),
       node, req, std::move(done));
}

void ClusterTarget::SendFromNode(std::uint32_t from, std::uint32_t node, const IoRequest& req,
                                 IoCallback done) {
  Send(node_ports_[from], from == node, node, req, std::move(done));
}

void ClusterTarget::Send(const Ports& client_ports, bool local, std::uint32_t node,
                         const IoRequest& req, IoCallback done) {
  if (down_[node] != 0) {
    // Nothing answers: fail once the cluster notices, or on the next turn
    // (nothing completes inside Submit).
    if (Noticed(node) > engine().Now()) {
      engine().ScheduleAt(Noticed(node),
                          [done = std::move(done)]() mutable { done(Status::kShutdown); });
    } else {
      engine().Post([done = std::move(done)]() mutable { done(Status::kShutdown); });
    }
    return;
  }
  // A read goes through a hop (Serve) once a device has lost pieces: a
  // device loss under it must fail it.
  if (local && cpus_.empty() && (device_losses_total_ == 0 || req.op != IoOp::kRead)) {
    children_[node]->Submit(req, std::move(done));
    return;
  }
  Hop* h = hops_.Acquire();
  h->self = this;
  h->req = req;
  h->done = std::move(done);
  h->client_port = nullptr;
  h->node_port = nullptr;
  h->node = node;
  h->status = Status::kOk;
  h->device_losses = device_losses_[node];
  if (local) {
    Arrived(h);
    return;
  }
  const Ports& server_ports = node_ports_[node];
  const std::uint64_t message = next_message_++;
  h->client_port = client_ports[message % client_ports.size()].get();
  h->node_port = server_ports[message % server_ports.size()].get();
  const std::uint64_t bytes =
      h->client_port->spec().header_bytes + (req.op == IoOp::kWrite ? req.length : 0);
  Transfer(h, *h->client_port, *h->node_port, bytes, &ClusterTarget::Arrived);
}

void ClusterTarget::Transfer(Hop* h, NicModel& from, NicModel& to, std::uint64_t bytes,
                             void (ClusterTarget::*then)(Hop*)) {
  CarryMessage(engine(), from, to, bytes, [h, then] { (h->self->*then)(h); });
}

void ClusterTarget::Arrived(Hop* h) {
  if (cpus_.empty()) {
    Serve(h);
    return;
  }
  const std::uint64_t bytes = h->req.op == IoOp::kFlush ? 0 : h->req.length;
  const bool write = h->req.op == IoOp::kWrite || h->req.op == IoOp::kDiscard;
  const Nanos done = cpus_[h->node]->Run(engine().Now(), bytes, write);
  if (done == engine().Now()) {
    Serve(h);
    return;
  }
  engine().ScheduleAt(done, [h] { h->self->Serve(h); });
}

void ClusterTarget::Serve(Hop* h) {
  if (down_[h->node] != 0) {  // it went down while the request was on its way
    h->status = Status::kShutdown;
    if (Noticed(h->node) > engine().Now()) {
      engine().ScheduleAt(Noticed(h->node), [h] { h->self->Answered(h); });
    } else {
      Answered(h);
    }
    return;
  }
  children_[h->node]->Submit(h->req, [h](Status st) {
    h->status = st;
    // A device of the node lost pieces since the read was sent: what it
    // read of them may be the empty replacement's, so it fails as a read of
    // a node gone down does, and the caller reads elsewhere.
    ClusterTarget& self = *h->self;
    if (st == Status::kOk && h->req.op == IoOp::kRead &&
        self.device_losses_[h->node] != h->device_losses &&
        self.LostOnNode(h->node, h->req.offset, h->req.length)) {
      h->status = Status::kShutdown;
    }
    // The node's host sees the completion once a core of it is back from
    // a stall, as a one-node host CPU's does (NodeCpu::Resume).
    if (self.cpus_.empty()) {
      self.Reply(h);
    } else {
      self.cpus_[h->node]->WhenBack(self.engine(), [h] { h->self->Reply(h); });
    }
  });
}

void ClusterTarget::Reply(Hop* h) {
  if (h->client_port == nullptr) {
    Answered(h);
    return;
  }
  const std::uint64_t bytes =
      h->node_port->spec().header_bytes + (h->req.op == IoOp::kRead ? h->req.length : 0);
  Transfer(h, *h->node_port, *h->client_port, bytes, &ClusterTarget::Answered);
}

void ClusterTarget::Answered(Hop* h) {
  IoCallback done = std::move(h->done);
  const Status status = h->status;
  hops_.Release(h);
  done(status);
}

std::uint64_t ClusterTarget::WarmFrom(std::uint32_t client, const IoRequest& req) {
  origin_ = client;
  const std::uint64_t placed = Warm(req);
  origin_ = 0;
  return placed;
}

std::uint64_t ClusterTarget::WarmImpl(const IoRequest& req) {
  if (req.op == IoOp::kFlush) return 0;
  const std::uint32_t client = unavailable_ == 0 ? origin_ : Running(origin_);
  if (data_chunks_ > 0) return WarmErasure(req);
  const std::uint64_t extent_bytes = placement_.extent_bytes();
  std::uint64_t placed = 0;
  for (std::uint64_t off = req.offset; off < req.end();) {
    const std::uint64_t extent = off / extent_bytes;
    const std::uint64_t within = off % extent_bytes;
    const std::uint64_t len = std::min(req.end() - off, extent_bytes - within);
    if (req.op == IoOp::kRead) {
      const ClusterPlacement::Copy c = PieceAt(extent, ReadCopyOf(client, extent));
      placed += children_[c.node]->Warm(IoRequest{req.op, req.flags, c.offset + within, len});
    } else {
      MarkWritten(extent);
      for (std::uint32_t i = 0; i < placement_.copies(); ++i) {
        const ClusterPlacement::Copy c = PieceAt(extent, i);
        placed += children_[c.node]->Warm(IoRequest{req.op, req.flags, c.offset + within, len});
      }
    }
    off += len;
  }
  return placed;
}

std::string_view ToString(ClusterTarget::ReadCopy r) {
  return r == ClusterTarget::ReadCopy::kLocal ? "local" : "primary";
}

}  // namespace tierlab
