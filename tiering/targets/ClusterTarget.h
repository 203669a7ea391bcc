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
//     answer: a header), as NetworkHopTarget models a hop (NicModel.h).
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
// Not modelled yet (issue 18): failures and rebuild.
//
// Ownership: owns the node stacks (children) and its client views; shares
// the ports. Threading: the engine's thread.

#include <memory>
#include <utility>
#include <vector>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/ObjectPool.h"
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
                ClusterPlacement placement, ReadCopy reads, std::uint32_t data_chunks = 0);
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
  // Erasure coding's data chunks per stripe, or 0: every piece is a copy.
  std::uint32_t data_chunks() const { return data_chunks_; }
  // Erasure coding: the writes that went each way, to explain the devices'
  // and links' load (full-stripe writes read nothing).
  struct StripeWriteStats {
    std::uint64_t full_stripe = 0;
    std::uint64_t read_modify_write = 0;
  };
  const StripeWriteStats& stripe_writes() const { return stripe_writes_; }
  ReadCopy reads() const { return reads_; }
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
    AlignedBuffer old;     // RMW with data: the bytes replaced, as [begin, end)
    AlignedBuffer parity;  // with data: the m parities over the columns
  };

  void SubmitFrom(std::uint32_t client, const IoRequest& req, IoCallback done);
  void SubmitErasure(std::uint32_t client, SplitIo* s, const IoRequest& req);
  void AddStripeWrite(std::uint32_t client, SplitIo* s, std::uint32_t flags, std::uint64_t stripe,
                      std::uint64_t begin, std::uint64_t end, std::byte* data);
  void StartStripeWrite(StripeWrite* w);
  void StripeReadDone(StripeWrite* w, Status st);
  void WriteStripe(StripeWrite* w);
  void StripeWriteDone(StripeWrite* w, Status st);
  // The within-chunk columns [first, second) a stripe write's chunks cover.
  std::pair<std::uint64_t, std::uint64_t> Columns(const StripeWrite& w) const;
  std::uint64_t WarmErasure(const IoRequest& req);
  // Warm as client `client`: a read warms the copy that client would read.
  std::uint64_t WarmFrom(std::uint32_t client, const IoRequest& req);
  void DispatchWrite(WritePiece* w);
  void WriteCopyDone(WritePiece* w, Status st);
  void SendTo(std::uint32_t client, std::uint32_t node, const IoRequest& req, IoCallback done);
  // Sends `bytes` from one port to the other, then calls `then`.
  void Transfer(Hop* h, NicModel& from, NicModel& to, std::uint64_t bytes,
                void (ClusterTarget::*then)(Hop*));
  void Arrived(Hop* h);   // the request is at the node
  void Serve(Hop* h);     // the node's CPU is done with it: to its stack
  void Answered(Hop* h);  // the answer is back
  void SubmitRead(Read* r);
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
};

std::string_view ToString(ClusterTarget::ReadCopy r);

}  // namespace tierlab
