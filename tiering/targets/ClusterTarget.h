#pragma once
// A volume spread over the nodes of a cluster: each node is a device stack
// of its own, the volume's extents have copies on distinct nodes
// (ClusterPlacement.h), and every request comes from a client, either a
// node itself (hyper-converged: the load runs on the nodes, as S2D, vSAN
// and ScaleIO's SDC beside its SDS) or a separate host with ports of its
// own (a file server's clients).
//
//   - A write (or discard) goes to every copy and completes when all have
//     (overlapping writes in the order they came, RangeLocks.h, so every
//     copy ends with the same data, as a primary orders them):
//     a copy on the client's own node directly, any other over the network
//     (the client's port to the node's port: a header and the data; the
//     answer: a header), as NetworkHopTarget models a hop (CarryMessage.h).
//   - A read goes to one copy: the client's own node when it holds one and
//     reads are `kLocal` (S2D reads its local copy), otherwise the primary
//     (vSAN reads each range from one fixed replica; ScaleIO from its
//     primary). A failed read tries the next copy.
//   - A flush goes to every node.
// Requests split at extent boundaries. A client with several ports (NICs)
// uses them in turn, request by request (SMB multichannel).
//
// With node CPUs (SetNodeCpus, NodeCpu.h), a request waits for its node's
// CPU before its stack takes it: a remote one once it has arrived, a local
// one at once.
//
// Erasure coding (`data_chunks` k >= 2; ClusterErasure.cc): each placement
// extent is a stripe of k data chunks and m = copies - k parity chunks, the
// placement's pieces 0..k-1 and k..k+m-1, each on its own node; the volume
// is the stripes' data, chunk after chunk (stripe s holds volume bytes
// s * k * chunk onwards). The client computes parity (ParityCode.h, ISA-L)
// and sends every piece itself, as vSAN's DOM owner on the VM's host does:
//
//   - A read goes to the node holding its data chunk (no copy to choose).
//   - A write covering a stripe's data is a full-stripe write: k data and m
//     freshly computed parity chunks, no reads.
//   - Any other write is a read-modify-write, whose reads and writes cross
//     the network like any other: read the old data it replaces and the m
//     parities over the columns its chunks cover, parity += the code's
//     coefficient x (old ^ new), write the data and the m parities. A 4k
//     write costs RAID-5 (m = 1) 2 reads + 2 writes, RAID-6 3 + 3, as
//     vSAN's partial-stripe writes do (../shared/research/CLUSTER-MODELS.md).
//     Reconstruct-write (reading the chunks a write does not replace), which
//     md prefers where it reads less, is not modelled: vSAN does not use it.
//     A write over two chunks whose columns do not meet (a small write
//     across a chunk boundary) is two such updates, as their parity columns
//     are disjoint.
//   - Writes of a stripe whose columns overlap are serialised (RangeLocks,
//     keyed by stripe, over the columns) from the first read to the last
//     write, so parity never mixes two of them.
//   - A discard completes kNotSupported, as ParityTarget's does: a dropped
//     chunk could read back other bytes than its parity was computed from.
//   - A read or write that meets an error completes with it (a write's RMW
//     reads failing: nothing is written); degraded reads and writes come
//     with failures.
//
// Nodes down (SetNodeDown; ClusterFailures.cc). A node that is down takes
// nothing: a request sent to it fails, and one in flight when it went down
// fails when it arrives. Not at once when SetFailureDetection gives the
// time the cluster takes to notice (a client's timeout, vSAN's pause of a
// host's objects while they are re-evaluated): until then a guest request
// touching a unit with a piece on the node waits, and one sent to it fails
// only then. The volume goes on degraded:
//   - a mirror reads another copy; a write goes to the copies that are up
//     and succeeds if one did; the down node's copies it missed are stale;
//   - erasure coding reads a chunk on a down node by reading its columns
//     from k other chunks and decoding (under the stripe's lock); a write
//     whose read-modify-write needs a chunk it cannot read reads every
//     readable chunk over its columns, decodes what is missing, computes
//     every parity afresh and writes the chunks that are up; those it
//     could not write are stale;
//   - a stripe or extent with no readable copy or fewer than k readable
//     chunks has no answer: its reads and writes complete kIoError, never
//     wrong data.
// A client on a node that is down runs on the next node up (vSphere HA
// restarting a host's VMs elsewhere): at once, or, with SetClientRestart,
// that long after the cluster noticed the node down; until then its guest
// requests wait (its VMs are down, then booting), even if the node is back
// sooner (they went down with it).
// A stale piece is written like any other (so what is resynced stays
// current) but never read. When the node is back (SetNodeDown(n, false))
// it resyncs only its stale pieces, a window (up to 1 MiB of a piece) at a
// time under the piece's lock, pulling the data from the copies or chunks
// that are current over its own port: vSAN's resync of what changed while
// a host was absent. A node copies SetRepairDepth pieces at once, each a
// window at a time (ScaleIO's concurrent rebuild I/O limit: 1 by default),
// or that many per device group (SetRepairDevices: ScaleIO counts it per
// device).
// Until a guest write has carried bytes (a timing-only run) a repair moves
// the same I/Os at the same times but copies no bytes: the volume starts
// empty, so there is nothing to copy, and a node holds no windows.
//
// Rebuild (ReplaceNode). A node whose data is gone (failed, or absent past
// its repair delay) is replaced by an empty one in its place, which takes
// writes at once and rebuilds every piece it holds of the units the volume
// has written (thin, as vSAN and ScaleIO rebuild what is allocated), in
// unit order, the same way a resync copies a piece. A repair copies at
// most SetRepairRate's bytes per second per node, as vSAN's resync
// throttle and ScaleIO's rebuild throttle do.
//
// Pieces lost with a device (LosePieces): a node whose device failed and
// was replaced by an empty one, where the device held only some of its
// pieces (a linear tier's device, a stripe narrower than a piece), stays
// up; the written pieces whose addresses on it meet the device's are
// stale at once (never read again) and rebuilt onto the replacement by
// the node's resync, from when the repair may start. A read sent to the
// node before the device failed and answered after fails (kShutdown, as on
// a node gone down) and is read elsewhere where it meets a lost piece: it
// may have read the empty device.
//
// Rebuild onto the others' spare room (RetireNode; with `spare_percent`
// of every node kept out of the volume: ScaleIO's spare capacity, vSAN's
// host rebuild reserve). A node whose data is gone leaves the cluster for
// good, and each piece it held of a written unit moves to a node that is
// up, holds none of the unit's other pieces and has spare room (the least
// filled), where it is stale until that node's resync has copied it: every
// node rebuilds its share at once, ScaleIO's many-to-many forward rebuild.
// A unit first written later moves its piece then, with nothing to copy.
// A piece that finds no room stays on the node that left: its unit is
// degraded for good. Where a piece lives is then a table of the moved
// pieces over the placement (PieceAt).
//
// Ownership: owns the node stacks (children) and its client views; shares
// the ports. Threading: the engine's thread.

#include <functional>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/core/SparseBitmap.h"
#include "tiering/targets/ClusterPlacement.h"
#include "tiering/targets/FanOutTarget.h"
#include "tiering/targets/NicModel.h"
#include "tiering/targets/NodeCpu.h"
#include "tiering/targets/ParityCode.h"
#include "tiering/targets/RangeLocks.h"

namespace tierlab {

class ClusterTarget final : public FanOutTarget {
 public:
  enum class ReadCopy : std::uint8_t { kLocal, kPrimary };
  using Ports = std::vector<std::shared_ptr<NicModel>>;
  struct Client {
    int node = -1;  // the node it runs on, or -1: a host of its own
    Ports ports;    // a host's; a node's client uses its node's
  };

  // `stacks[i]` is node i's device stack and `node_ports[i]` its ports (at
  // least one each); placement.nodes() == stacks.size(). Clients: at least
  // one. Size: whole placement groups of the smallest node.
  ClusterTarget(Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> stacks,
                std::vector<Ports> node_ports, std::vector<Client> clients,
                ClusterPlacement placement, ReadCopy reads, std::uint32_t data_chunks = 0,
                std::uint32_t spare_percent = 0);
  ~ClusterTarget() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return max_block_size_; }
  std::string Kind() const override { return "cluster"; }

  // The volume as client `i` sees it: requests submitted there come from
  // that client (Submit on the cluster itself comes from client 0). Every
  // view's requests are counted in the cluster's own stats too.
  BlockDevice& ClientView(std::size_t i);
  std::size_t client_count() const { return clients_.size(); }
  const Client& client(std::size_t i) const { return clients_[i]; }
  const Ports& node_ports(std::size_t n) const { return node_ports_[n]; }
  const ClusterPlacement& placement() const { return placement_; }
  // Where piece `i` of `unit` (extent or stripe) lives now: the
  // placement's, or where a rebuild onto spare room moved it.
  ClusterPlacement::Copy PieceAt(std::uint64_t unit, std::uint32_t i) const {
    if (moved_.empty()) return placement_.Locate(unit, i);
    const auto it = moved_.find(unit * kMaxPieces + i);
    return it == moved_.end() ? placement_.Locate(unit, i) : it->second;
  }
  // Erasure coding's data chunks per stripe, or 0: every piece is a copy.
  std::uint32_t data_chunks() const { return data_chunks_; }
  // Erasure coding: the writes that went each way, to explain the devices'
  // and links' load (full-stripe writes read nothing).
  struct StripeWriteStats {
    std::uint64_t full_stripe = 0;
    std::uint64_t read_modify_write = 0;
    std::uint64_t degraded = 0;  // with a chunk it needed unreadable: parity afresh
  };
  const StripeWriteStats& stripe_writes() const { return stripe_writes_; }
  ReadCopy reads() const { return reads_; }
  // Takes node n out (`down`) or brings it back, which starts its resync.
  // `host_down`: its host went down with it, so the clients on it (VMs)
  // are gone for the restart time (SetClientRestart); false when only its
  // storage is out (a failed device) and they keep running.
  void SetNodeDown(std::uint32_t n, bool down, bool host_down = true);
  bool node_down(std::uint32_t n) const { return down_[n] != 0; }
  // Pieces (a copy of an extent, a chunk of a stripe) that missed a write
  // while their node was down and wait for a resync, over all nodes.
  std::uint64_t stale_pieces() const { return stale_count_; }
  struct ResyncStats {
    std::uint64_t pieces = 0;  // resynced or rebuilt
    std::uint64_t bytes = 0;   // written by resync or rebuild
    std::uint64_t rebuilt_pieces = 0;
    std::uint64_t rebuilt_bytes = 0;
  };
  const ResyncStats& resync_stats() const { return resync_stats_; }
  // The bytes the repair workers hold for their windows, over all nodes
  // (none until a guest write carries data: see data_written_).
  std::uint64_t repair_buffer_bytes() const;
  // Node n, which is down, is replaced by an empty node that comes up and
  // rebuilds every written piece it holds (see the header).
  void ReplaceNode(std::uint32_t n);
  // Node n, which is down, leaves the cluster for good and its pieces are
  // rebuilt on the others' spare room (see the header). Returns the pieces
  // of written units that found no room.
  std::uint64_t RetireNode(std::uint32_t n);
  bool node_retired(std::uint32_t n) const { return retired_[n] != 0; }
  // Node n, up, lost the written pieces for which `lost(offset, length)`
  // (their bytes on the node) is true, with a device that an empty one has
  // replaced (see the header); their rebuild starts at `repair_at` (engine
  // time) or at once. Returns how many pieces it lost.
  std::uint64_t LosePieces(std::uint32_t n,
                           const std::function<bool(std::uint64_t, std::uint64_t)>& lost,
                           Nanos repair_at);
  // Node n's spare room, in pieces, and how much of it moved pieces took.
  std::uint64_t spare_pieces(std::uint32_t n) const { return spare_slots_[n]; }
  std::uint64_t spare_used(std::uint32_t n) const { return spare_used_[n]; }
  enum class NodeState : std::uint8_t { kHealthy, kDown, kResyncing, kRebuilding, kGone };
  // kResyncing: up with stale pieces (some may wait for a source).
  // kRebuilding: rebuilding its pieces, or the pieces moved to it or lost
  // with a device. kDown also: pieces lost with a device, waiting for
  // their repair to start (the volume is degraded).
  // kGone: retired, every written piece it held moved (one that could not
  // move leaves it kDown: its units stay degraded).
  NodeState node_state(std::uint32_t n) const;
  // Called with a node's number whenever its state may have changed.
  void SetStateListener(std::function<void(std::uint32_t)> listener) {
    state_listener_ = std::move(listener);
  }
  // The most each node copies per second in its resync or rebuild; 0: as
  // fast as its devices and links allow.
  void SetRepairRate(std::uint64_t bytes_per_second) { repair_rate_ = bytes_per_second; }
  // How many pieces each node copies at once in its resync or rebuild,
  // each one window at a time (at least 1, the default). Before any node
  // goes down.
  void SetRepairDepth(std::uint32_t pieces);
  // Per device instead (ScaleIO counts its limit per device): a node's
  // pieces fall in `devices` groups, each copied SetRepairDepth at once; a
  // piece's group is `device_of` its address on the node (< devices).
  // Before any node goes down.
  void SetRepairDevices(std::uint32_t devices,
                        std::function<std::uint32_t(std::uint64_t)> device_of);
  // How long after a node goes down the cluster notices (see the header);
  // 0, the default: at once.
  void SetFailureDetection(Nanos delay) { detect_ = delay; }
  // How long a down node's clients are gone before they run on the next
  // node up, from when the cluster notices (see the header); 0: at once.
  void SetClientRestart(Nanos delay) { client_restart_ = delay; }
  // When client `i` runs again: its node's failure noticed plus the
  // restart; 0 if it runs now (on a host, no restart, or restarted).
  Nanos ClientBackAt(std::uint32_t i) const;
  // Node n is down and the cluster has not noticed yet.
  bool node_unnoticed(std::uint32_t n) const {
    return down_[n] != 0 && engine().Now() < Noticed(n);
  }
  // One CPU per node (cpus.size() == nodes), before the first request; none
  // (the default): a node's stack takes a request as it arrives.
  void SetNodeCpus(std::vector<std::unique_ptr<NodeCpu>> cpus);
  // Node n's CPU, or nullptr when CPUs are not modelled.
  const NodeCpu* node_cpu(std::size_t n) const {
    return n < cpus_.size() ? cpus_[n].get() : nullptr;
  }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  class View;
  static constexpr std::uint32_t kNoNode = ~0u;    // a completion not from a node
  static constexpr std::uint64_t kMaxPieces = 16;  // a unit's, for the moved pieces' keys
  // A request to one node's stack from a client, over the network unless
  // the client runs on that node; `done` runs when the answer is back.
  struct Hop {
    ClusterTarget* self;
    IoRequest req;  // in the node's addresses
    IoCallback done;
    NicModel* client_port;  // nullptr: the client runs on the node
    NicModel* node_port;
    std::uint32_t node;
    Status status = Status::kOk;
    std::uint64_t device_losses = 0;  // the node's when the request was sent
  };
  struct Read {
    IoCallback done;
    IoRequest req;  // in the node's addresses
    std::uint64_t extent;
    std::uint32_t client;
    std::uint32_t copy;
    std::uint32_t tries;
  };

  // One extent's part of a write or discard, to every copy.
  struct WritePiece {
    ClusterTarget* self;
    SplitIo* parent;
    IoRequest req;  // offsets within the extent
    std::uint64_t extent;
    std::uint32_t client;
    std::uint32_t remaining;
    Status status;
    std::uint32_t current;  // the copies readable when it was sent (bits)
    std::uint32_t refused;  // copies whose node was down when it arrived
    bool landed;            // a current copy took it
  };

  // One stripe's part of an erasure-coded write, over chunks whose parity
  // columns meet (ClusterErasure.cc).
  struct StripeWrite {
    ClusterTarget* self;
    SplitIo* parent;
    std::uint64_t stripe;
    std::uint64_t begin, end;  // within the stripe's data: 0 .. k * chunk
    std::byte* data;           // the request's bytes of [begin, end), or nullptr
    std::uint32_t flags;       // the request's (FUA)
    std::uint32_t client;
    std::uint32_t remaining;
    Status status;
    bool degraded;           // reads every readable chunk and recomputes parity
    std::uint32_t attempts;  // degraded retries after a node went down under it
    std::uint32_t unread;    // degraded: the pieces it could not read
    AlignedBuffer old;       // RMW with data: the bytes replaced, as [begin, end);
                             // degraded: every piece over the columns
    AlignedBuffer parity;    // with data: the m parities over the columns
  };
  // A guest request waiting for a node's failure to be noticed, or for its
  // client to run again.
  struct Held {
    ClusterTarget* self;
    IoRequest req;
    IoCallback done;
    std::uint32_t client;
  };
  // A read of a chunk its node cannot serve, from k others.
  struct DegradedRead {
    ClusterTarget* self;
    Read* read;
    std::uint32_t sources[16];  // the pieces read (k of them)
    std::uint32_t remaining;
    std::uint32_t attempts;  // retries after a source's node went down under it
    Status status;
    AlignedBuffer buffers;  // with data: k x the read's length
  };
  // One of a node's resync workers: a piece, copied one window at a time.
  struct Resync {
    ClusterTarget* self;
    std::uint32_t node;
    std::uint32_t device = 0;  // the group it copies pieces of (SetRepairDevices)
    bool running = false;
    std::uint64_t unit = 0;  // extent (mirror) or stripe (erasure coding)
    std::uint64_t at = 0;    // the window's first byte within the piece
    std::uint64_t window = 0;
    std::uint32_t remaining = 0;
    Status status = Status::kOk;
    bool rebuild = false;         // the unit is the rebuild's, not a stale one
    bool moved = false;           // the piece is one to copy in (copying_in_)
    bool restart_posted = false;  // MarkStale has posted a ResyncNext
    std::uint64_t epoch = 0;      // the node's epoch its piece began in
    std::uint32_t sources[16] = {};
    bool with_data = false;  // the window in flight copies bytes (data_written_)
    AlignedBuffer buffers;   // with data: the sources' windows, then the piece's
  };

  void SubmitFrom(std::uint32_t client, const IoRequest& req, IoCallback done);
  // When the cluster will have noticed every node down that `req` touches
  // (a piece of one of its units, or any node for a flush); a past time if
  // it has.
  Nanos NoticedAt(const IoRequest& req) const;
  // When the cluster notices that node n, down, is down.
  Nanos Noticed(std::uint32_t n) const { return down_since_[n] + detect_; }
  void SubmitErasure(std::uint32_t client, SplitIo* s, const IoRequest& req);
  void AddStripeWrite(std::uint32_t client, SplitIo* s, std::uint32_t flags, std::uint64_t stripe,
                      std::uint64_t begin, std::uint64_t end, std::byte* data);
  void StartStripeWrite(StripeWrite* w);
  void StripeReadDone(StripeWrite* w, Status st);
  void WriteStripe(StripeWrite* w);
  // `node`: the piece's, or kNoNode.
  void StripeWriteDone(StripeWrite* w, std::uint32_t node, Status st);
  // The within-chunk columns [first, second) a stripe write's chunks cover.
  std::pair<std::uint64_t, std::uint64_t> Columns(const StripeWrite& w) const;
  std::uint64_t WarmErasure(const IoRequest& req);
  // Warm as client `client`: a read warms the copy that client would read.
  std::uint64_t WarmFrom(std::uint32_t client, const IoRequest& req);
  void DispatchWrite(WritePiece* w);
  // `copy`: the copy's number, or kNoNode.
  void WriteCopyDone(WritePiece* w, std::uint32_t copy, Status st);
  void SendTo(std::uint32_t client, std::uint32_t node, const IoRequest& req, IoCallback done);
  // As SendTo, from node `from`'s own ports (resync traffic).
  void SendFromNode(std::uint32_t from, std::uint32_t node, const IoRequest& req, IoCallback done);
  void Send(const Ports& from_ports, bool local, std::uint32_t node, const IoRequest& req,
            IoCallback done);

  // Failures (ClusterFailures.cc).
  bool Readable(std::uint32_t node, std::uint64_t unit) const {
    return unavailable_ == 0 || (down_[node] == 0 && !IsStale(node, unit));
  }
  bool IsStale(std::uint32_t node, std::uint64_t unit) const;
  void MarkWritten(std::uint64_t unit) {
    if (retired_count_ != 0 && !written_.Test(unit)) MoveOffRetired(unit);
    written_.Set(unit);
  }
  // A unit's first write: its pieces on retired nodes move, with nothing to copy.
  void MoveOffRetired(std::uint64_t unit);
  // Moves piece `i` of `unit` off node `from` to the spare room of the
  // best node; false if none has room. With `copy`, it is stale there
  // until that node's resync has copied it.
  bool MovePiece(std::uint64_t unit, std::uint32_t i, std::uint32_t from, bool copy);
  // The piece of `unit` on `node`, or kNoNode.
  std::uint32_t PieceOn(std::uint32_t node, std::uint64_t unit) const;
  // The node's next unit to rebuild, or false when its rebuild is done.
  bool NextRebuildUnit(Resync* r);
  // Worker r gives up its piece (down, no source, an error): a rebuild
  // unit not copied goes back to the node's cursor.
  void DropPiece(Resync* r);
  // A worker of `node` holds `unit`; some worker of it holds a rebuild unit.
  bool Claimed(std::uint32_t node, std::uint64_t unit) const;
  // Whether [offset, offset + length) on the node meets a piece lost with
  // one of its devices.
  bool LostOnNode(std::uint32_t node, std::uint64_t offset, std::uint64_t length) const;
  bool RebuildInFlight(std::uint32_t node) const;
  // The first unit the node has not rebuilt: the cursor, or a unit before
  // it that a worker is still copying.
  std::uint64_t RebuildFrontier(std::uint32_t node) const;
  std::span<const std::unique_ptr<Resync>> ResyncsOf(std::uint32_t node) const {
    const std::uint32_t per_node = repair_depth_ * repair_devices_;
    return {resyncs_.data() + std::size_t{node} * per_node, per_node};
  }
  void MakeResyncWorkers();
  // Whether the unit's piece on the worker's node is in its group.
  bool InGroup(const Resync* r, std::uint64_t unit) const;
  std::uint64_t& RebuildCursor(std::uint32_t node, std::uint32_t device) {
    return rebuild_next_[std::size_t{node} * repair_devices_ + device];
  }
  void NotifyState(std::uint32_t node) {
    if (state_listener_) state_listener_(node);
  }
  void MarkStale(std::uint32_t node, std::uint64_t unit);
  // A piece's write failed: stale if its node refused it for being down
  // (kShutdown, the status a down node answers with), and the write goes on.
  bool MissedOnDownNode(std::uint32_t node, std::uint64_t unit, Status st);
  void FailLater(Read* r);  // completes a read kIoError on the next turn
  void StartDegradedRead(Read* r);
  void IssueDegradedRead(DegradedRead* g);  // holding the stripe's columns
  void DegradedReadDone(DegradedRead* d, Status st);
  // The pieces of `stripe` that cannot be read, as a bit mask.
  std::uint32_t UnreadablePieces(std::uint64_t stripe) const;
  // k readable pieces of `stripe` other than those in `skip`, data first;
  // false if there are not k.
  bool PickSources(std::uint64_t stripe, std::uint32_t skip, std::uint32_t* out) const;
  void StartDegradedStripeWrite(StripeWrite* w);
  void FinishDegradedStripeWrite(StripeWrite* w);
  void ResyncNext(Resync* r);
  bool HasResyncSource(std::uint32_t node, std::uint64_t unit) const;
  void ResyncWindow(Resync* r);
  void ResyncRead(Resync* r);
  void ResyncReadDone(Resync* r, Status st);
  void ResyncWritten(Resync* r, Status st);
  // Sends `bytes` from one port to the other, then calls `then`.
  void Transfer(Hop* h, NicModel& from, NicModel& to, std::uint64_t bytes,
                void (ClusterTarget::*then)(Hop*));
  void Arrived(Hop* h);   // the request is at the node
  void Serve(Hop* h);     // the node's CPU is done with it: to its stack
  void Reply(Hop* h);     // the node's stack answered: back to the client
  void Answered(Hop* h);  // the answer is back
  void SubmitRead(Read* r);
  // Where client `client` runs now: itself, or, its node down, the client
  // of the next node up.
  std::uint32_t Running(std::uint32_t client) const;
  // The copy a read from `client` of `extent` starts with.
  std::uint32_t ReadCopyOf(std::uint32_t client, std::uint64_t extent) const;

  std::vector<Ports> node_ports_;
  std::vector<Client> clients_;
  std::vector<std::unique_ptr<View>> views_;
  std::vector<std::unique_ptr<NodeCpu>> cpus_;  // per node, or none
  ClusterPlacement placement_;
  ReadCopy reads_;
  std::uint64_t size_ = 0;
  std::uint32_t origin_ = 0;        // the client of the request being submitted
  std::uint64_t next_message_ = 0;  // turns over a client's and a node's ports
  ObjectPool<Hop> hops_;
  ObjectPool<Read> reads_in_flight_;
  ObjectPool<WritePiece> writes_;
  RangeLocks ranges_;  // writes in flight, per extent (erasure coding: per stripe)
  std::uint32_t data_chunks_ = 0;
  std::unique_ptr<ParityCode> code_;  // erasure coding only
  ObjectPool<StripeWrite> stripe_writes_in_flight_;
  StripeWriteStats stripe_writes_;
  // Failures: per node, down or not, and the units whose piece on it is
  // stale; unavailable_ counts both, so a healthy cluster checks nothing.
  std::vector<std::uint8_t> down_;
  std::vector<std::uint32_t> node_client_;  // per node: a client on it, or kNoNode
  std::vector<std::unordered_set<std::uint64_t>> stale_;
  std::uint64_t stale_count_ = 0;
  std::uint64_t unavailable_ = 0;
  // Per node, node by node: repair_depth_ workers per device group.
  std::vector<std::unique_ptr<Resync>> resyncs_;
  std::uint32_t repair_depth_ = 1;
  std::uint32_t repair_devices_ = 1;
  std::function<std::uint32_t(std::uint64_t)> device_of_;
  ResyncStats resync_stats_;
  // A guest write has carried bytes. Until one does the nodes hold nothing
  // to copy (a cluster volume starts empty), so a repair copies timing
  // only: no windows held, no erasure decoding.
  bool data_written_ = false;
  // Rebuild: the units ever written, and per node the first unit a
  // replacement has not rebuilt yet (kNone: not rebuilding), per device
  // group the next unit its workers take (units_ once every unit is
  // taken; RebuildCursor) and how many times
  // it has gone down or been replaced (a piece copied across either starts
  // over).
  SparseBitmap written_;
  std::uint64_t units_ = 0;
  std::vector<std::uint64_t> rebuild_at_;
  std::vector<std::uint64_t> rebuild_next_;
  std::vector<std::uint64_t> epoch_;
  std::uint64_t repair_rate_ = 0;
  std::vector<Nanos> repair_next_;  // per node, the rate's: when its next window may start
  // Failure detection: the delay, per node when it last went down, and the
  // latest time any node down is noticed (the fast path checks only this).
  Nanos detect_ = 0;
  std::vector<Nanos> down_since_;
  Nanos noticed_by_ = 0;
  // Client restart: the delay, and per node when its clients run again
  // (they stay gone that long even if the node is back sooner).
  Nanos client_restart_ = 0;
  std::vector<Nanos> clients_back_;
  ObjectPool<Held> held_;
  // Rebuild onto spare room: per node, retired or not, its spare room and
  // how much is taken (in pieces), the units whose moved piece it has not
  // copied yet, and the written pieces left on it when retired with no room
  // to move to; where the moved pieces live, by unit * kMaxPieces + piece.
  std::vector<std::uint8_t> retired_;
  std::uint32_t retired_count_ = 0;
  std::uint64_t used_per_node_ = 0;  // the placement's slots, from byte 0
  std::vector<std::uint64_t> spare_slots_;
  std::vector<std::uint64_t> spare_used_;
  // Per node: pieces it is to copy in from the others, moved to it from a
  // retired node (MovePiece) or lost with a device (LosePieces); a rebuild
  // of the whole node (ReplaceNode) covers them.
  std::vector<std::unordered_set<std::uint64_t>> copying_in_;
  std::vector<Nanos> repair_hold_;  // per node: no resync before (LosePieces' repair_at)
  // Device losses (LosePieces) per node and in all: a read sent to the
  // node before one and answered after fails where it meets a piece lost
  // (Serve, LostOnNode).
  std::vector<std::uint64_t> device_losses_;
  // Per node, sorted: the node addresses of the pieces lost with its
  // devices since it was last rebuilt whole.
  std::vector<std::vector<std::uint64_t>> lost_pieces_at_;
  std::uint64_t device_losses_total_ = 0;
  std::vector<std::uint64_t> stranded_;
  std::unordered_map<std::uint64_t, ClusterPlacement::Copy> moved_;
  std::function<void(std::uint32_t)> state_listener_;
  ObjectPool<DegradedRead> degraded_reads_;
};

std::string_view ToString(ClusterTarget::ReadCopy r);

}  // namespace tierlab
