#pragma once
// A network port (one NIC of a node) as two independent FIFO queues, one per
// direction (full duplex), of message segments (up to 64 KiB of payload:
// CarryMessage.h), for message-level models of a cluster's network
// (../shared/research/CLUSTER-MODELS.md, "Network links"; DESIGN.md,
// "Clusters"): a message costs
//
//   per-message CPU (sender) + size / payload rate (sender's TX queue)
//   + one-way latency (wire and switch)
//   + size / payload rate again only if the receiver's RX queue is busy
//     (several senders converging: incast) + per-message CPU (receiver)
//
// so an uncontended message pays its size once, and every queue is a
// bottleneck where traffic converges on it. The switch is non-blocking.
// Per-message CPU is a queue of its own per port and direction (one core
// each), beside the wire's: the CPU works on the next message while the wire
// carries this one. A node CPU shared by every port is the cluster model's
// (issue 18), not this one's.
//
// Presets (NicSpec::Find): 1, 10, 25, 40 and 100 GbE over TCP and RDMA.
// Payload rates: 1 GbE TCP carries 110-120 MB/s (measured, Virtuozzo), so
// 0.94 of the line rate (1448 payload bytes per 1538 on the wire at a 1500
// MTU); TCP at higher rates 0.92-0.93; RDMA 0.97. One-way latencies and
// per-message CPU are order-of-magnitude starting points (the research
// notes' table, marked inference there): TCP 8-30 us and 5-15 us, RDMA 3 us
// and 1.5 us. They are a preset's defaults, to be fitted (S2D's RDMA vs TCP
// figures; the user's own ping and iperf).
//
// Threading: the engine's thread. Time is the caller's (Engine::Now()).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Engine.h"

namespace tierlab {

struct NicSpec {
  std::string name;                 // "25gbe-rdma"
  double line_rate_bps = 0;         // bits per second on the wire
  double efficiency = 1;            // payload bytes / wire bytes
  Nanos one_way_latency = 0;        // wire, switch and stack, per message
  Nanos cpu_per_message = 0;        // each side (send, receive)
  std::uint32_t header_bytes = 64;  // a request or response's own bytes

  double PayloadBytesPerNs() const { return line_rate_bps * efficiency / 8e9; }
  // The catalog entry, or nullopt.
  static std::optional<NicSpec> Find(std::string_view name);
  static const std::vector<NicSpec>& Catalog();
};

class NicModel {
 public:
  struct Direction {
    Nanos wire_free_at = 0;   // when the wire's last message is through
    Nanos cpu_free_at = 0;    // when the CPU's last message is through
    Nanos wire_busy = 0;      // total time the wire carried messages
    Nanos cpu_busy = 0;       // total time the CPU spent on messages
    std::uint64_t bytes = 0;  // payload and headers
    std::uint64_t messages = 0;
  };

  NicModel(std::string name, NicSpec spec) : name_(std::move(name)), spec_(std::move(spec)) {}

  // The most payload a message puts on the wire at once (the first segment
  // also carries its header): the unit a sender's messages take turns in.
  // Linux builds TCP's send buffers into GSO segments of at most 64 KiB
  // (GSO_LEGACY_MAX_SIZE, include/linux/netdevice.h) and its qdiscs
  // interleave flows segment by segment; CarryMessage.h sends by it.
  static constexpr std::uint64_t kSegmentPayload = 64 * 1024;

  // The sender's CPU takes a message at `now`: the time it is done with it
  // (behind the messages before), when its bytes may go on the wire.
  Nanos SendCpu(Nanos now);
  // Puts `bytes` of a message on this port's wire at `now`: the time their
  // last byte has left, behind what is already on it. Call it when the
  // bytes are ready (after SendCpu, or when the segment before has left):
  // a slot taken ahead, for a message still in the CPU's queue, would hold
  // the wire idle meanwhile against segments that are ready. Ahead is
  // right only while no send is deferred (below): the wire then takes
  // messages in the CPU's order.
  Nanos Send(Nanos now, std::uint64_t bytes);
  // Sends whose wire slots are taken when their bytes are ready
  // (CarryMessage.h): a message of several segments until its last has
  // left, any other message until the CPU is done with it. While there
  // are any, a slot taken ahead would put its message on the wire before
  // the deferred ones the CPU finished first.
  void BeginDeferredSend() { ++deferred_sends_; }
  void EndDeferredSend() { --deferred_sends_; }
  bool SendsDeferred() const { return deferred_sends_ != 0; }
  // Receives on this port `bytes` whose last byte left its sender at
  // `sent` with `latency` to cover: the time the receiver has them (their
  // last byte in, behind earlier arrivals). `closes`: the last (or only)
  // segment of a message, which the receiver's CPU then takes (the time
  // returned is then when it is done) and which counts as a message.
  // Call it at `sent`, not when the message is sent: the port takes
  // messages in the order of the calls, and a message called in behind a
  // long send queue would hold the port for a slot in the future, ahead of
  // messages from idle senders that arrive before it (one busy sender then
  // starved the others of a shared receiver).
  Nanos Receive(Nanos sent, Nanos latency, std::uint64_t bytes, bool closes = true);

  const std::string& name() const { return name_; }
  const NicSpec& spec() const { return spec_; }
  const Direction& tx() const { return tx_; }
  const Direction& rx() const { return rx_; }
  // The wire's busy time over `elapsed`, per direction.
  double TxUtilisation(Nanos elapsed) const { return Share(tx_.wire_busy, elapsed); }
  double RxUtilisation(Nanos elapsed) const { return Share(rx_.wire_busy, elapsed); }

 private:
  static double Share(Nanos busy, Nanos elapsed) {
    return elapsed > 0 ? static_cast<double>(busy) / static_cast<double>(elapsed) : 0;
  }
  Nanos WireNs(std::uint64_t bytes) const;

  std::string name_;
  NicSpec spec_;
  Direction tx_;
  Direction rx_;
  std::uint32_t deferred_sends_ = 0;
};

}  // namespace tierlab
