#pragma once
// One NBD client: the handshake and transmission state machine over a
// non-blocking socket, driven by a RealEngine.
//
// Pipelining: the connection keeps reading requests while earlier ones are in
// flight on the device; replies go out in completion order (the protocol
// matches them by cookie). A WRITE is submitted only once its whole payload
// has arrived. Replies produced in one engine turn leave in one sendmsg.
//
// Replies: simple replies unless the client negotiated structured replies;
// then a read is answered with one OFFSET_DATA chunk (so NBD_CMD_FLAG_DF is
// offered and free), every error with an ERROR chunk, and other successes
// with simple replies (which the spec allows). With base:allocation selected,
// NBD_CMD_BLOCK_STATUS is answered from BlockDevice::QueryAllocation (holes
// are HOLE|ZERO, data 0), at most kMaxBlockStatusExtents descriptors a reply
// (one with NBD_CMD_FLAG_REQ_ONE).
//
// Bounded memory: request and reply data live in buffers of the server's
// NbdBufferPool, whose budget all connections share. When the budget has no
// room for the next request, the connection stops reading its socket (TCP
// backpressure) until buffers come back, in arrival order. Per connection,
// besides: at most kMaxInFlight requests and kMaxBufferedBytes of buffers
// (one request larger than that is still admitted alone; requests are capped
// at ExportInfo::max_payload), at most kMaxQueuedReplies replies waiting for
// a slow reader, kInBufSize of input. A connection whose client does not read
// its replies therefore stops being served until it reads them, and is
// dropped when it moves no byte for NbdTimeouts::stall.
//
// Timeouts (CheckTimeouts, called by the server every tick): the handshake
// must finish within `handshake` of the connection, with no gap longer than
// `option_idle` between received bytes; in transmission a connection holding
// memory for a client that moves no byte (replies unread, a write payload
// unfinished) is dropped after `stall`; one with nothing at all going on,
// after `idle` (off by default). Each drop is one log line naming the peer.
//
// Bad input: a request the export cannot serve (unknown command, bad flags,
// misaligned, past the end, too long) gets an error reply and the connection
// goes on; an oversized WRITE's payload is read and dropped. Input that makes
// the stream unparseable (bad magic, unknown client flags, unknown export in
// NBD_OPT_EXPORT_NAME) drops the connection, as the spec allows.
//
// Threading: everything runs on the engine thread.
//
// Ownership: owns the socket. In-flight device requests keep their buffers in
// heap contexts; if the connection is destroyed first, they are orphaned and
// give their buffers back to the pool (which they keep alive) when the device
// completes them, so the device (and the engine) must keep running until the
// device has no request in flight before they are destroyed. The connection
// never deletes itself: when it is done it calls the `on_closed` hook, and
// the owner destroys it from a later task.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/RealEngine.h"
#include "tiering/nbd/NbdBufferPool.h"
#include "tiering/nbd/NbdProtocol.h"

namespace tierlab {

// A connection's time limits; 0 turns one off. Defaults: NbdServer.h.
struct NbdTimeouts {
  Nanos handshake = 10 * kSecond;   // from connect to the end of the handshake
  Nanos option_idle = 5 * kSecond;  // handshake: longest gap between received bytes
  Nanos stall = 30 * kSecond;       // transmission: holding memory, no byte moved
  Nanos idle = 0;                   // transmission: nothing received, sent or in flight
};

// What the connections of one server share. The server owns it; it outlives
// them.
struct NbdConnectionEnv {
  RealEngine& engine;
  BlockDevice& device;
  const nbd::ExportInfo& info;
  std::shared_ptr<NbdBufferPool> pool;
  NbdTimeouts timeouts;
  // One line per drop ("PEER: dropped: REASON"); may be empty (no logging).
  std::function<void(const std::string&)> log;
};

struct NbdConnectionStats {
  std::uint64_t requests = 0;       // transmission requests received
  std::uint64_t error_replies = 0;  // replies with a nonzero error
  std::uint64_t bytes_read = 0;     // payload bytes sent to the client
  std::uint64_t bytes_written = 0;  // payload bytes received from the client
};

class NbdConnection final : private NbdBufferPool::Waiter {
 public:
  static constexpr std::size_t kMaxInFlight = 256;
  static constexpr std::size_t kMaxBufferedBytes = 64u << 20;
  static constexpr std::size_t kMaxQueuedReplies = 4096;
  static constexpr std::size_t kInBufSize = 64u << 10;
  // Option data above this is drained and refused with NBD_REP_ERR_TOO_BIG.
  static constexpr std::uint32_t kMaxOptionData = 16u << 10;
  static constexpr std::size_t kMaxBlockStatusExtents = 1024;
  // The id of base:allocation in NBD_REP_META_CONTEXT and BLOCK_STATUS chunks.
  static constexpr std::uint32_t kBaseAllocationId = 1;

  using ClosedHook = InlineFunction<void(NbdConnection*), 32>;

  // Takes ownership of `fd`, a connected stream socket (made non-blocking
  // here); `peer` names the client in log lines. `env` must outlive the
  // connection.
  NbdConnection(const NbdConnectionEnv& env, int fd, std::string peer, ClosedHook on_closed);
  NbdConnection(const NbdConnection&) = delete;
  NbdConnection& operator=(const NbdConnection&) = delete;
  // Closes the socket if still open; orphans in-flight requests.
  ~NbdConnection();

  // Sends the greeting and starts watching the socket. False (and closed) if
  // the engine refuses the descriptor.
  bool Start();
  // Closes the socket now (no more replies). Calls the hook once.
  void Close(std::string reason);
  // Close, logged as a drop.
  void Drop(const std::string& reason);
  // Applies the timeouts at time `now` (drops the connection if one expired).
  void CheckTimeouts(Nanos now);

  bool closed() const { return fd_ < 0; }
  bool in_transmission() const { return state_ == State::kTransmission; }
  std::size_t in_flight() const { return in_flight_; }
  const std::string& peer() const { return peer_; }
  // Why the connection closed ("" while open; "client disconnected", ...).
  const std::string& close_reason() const { return close_reason_; }
  const NbdConnectionStats& stats() const { return stats_; }
  const nbd::Session& session() const { return session_; }

 private:
  struct Op;
  enum class State { kClientFlags, kOptions, kTransmission, kClosing };
  // Longest reply header: an OFFSET_DATA chunk's (chunk header + offset).
  static constexpr std::size_t kMaxReplyHeader = 32;
  struct OutItem {
    std::byte header[kMaxReplyHeader];
    std::uint8_t header_len = 0;
    Op* op = nullptr;  // owns the payload (read data, block status) if non-null
    std::size_t payload_len = 0;
  };

  void OnEvents(std::uint32_t events);
  void ReadSocket();
  // Parses whole messages from in_buf_; returns false if the connection closed.
  bool ProcessInput();
  bool HandleClientFlags();
  bool HandleOption(const nbd::OptionHeader& h, nbd::ByteView data);
  void HandleInfoOrGo(std::uint32_t option, nbd::ByteView data);
  void HandleMetaContext(std::uint32_t option, nbd::ByteView data);
  // Refuses `option` with NBD_REP_ERR_UNKNOWN unless `name` is our export
  // (or empty: the default); true if refused.
  bool RefuseUnknownExport(std::uint32_t option, const std::string& name);
  // Handles one request header, `err` its CheckRequest verdict and `buf`
  // its buffer (if it needs one); may consume payload bytes from in_buf_.
  bool HandleRequest(const nbd::RequestHeader& h, std::uint32_t err, std::byte* buf,
                     std::size_t cap);
  void AnswerBlockStatus(Op* op);
  Op* NewOp(const nbd::RequestHeader& h);
  void SubmitOp(Op* op);
  static void OnDeviceDone(Op* op, Status s);
  void CompleteOp(Op* op);
  // Replies: a success without data, an error (an ERROR chunk under
  // structured replies), and the data of a completed read.
  void QueueOk(std::uint64_t cookie);
  // Structured replies: a final NONE chunk (success, no data).
  void QueueDone(std::uint64_t cookie);
  void QueueError(std::uint32_t error, std::uint64_t cookie);
  void QueueReadData(Op* op);
  OutItem& PushReply();
  void ReleaseOp(Op* op);

  // NbdBufferPool::Waiter: the budget has room for the next request.
  void OnBufferAvailable() override;

  void ScheduleFlush();
  void FlushOutput();
  bool OutputEmpty() const { return hs_sent_ == hs_out_.size() && out_.empty(); }
  bool OverLimits() const;
  // True if the socket should be read now.
  bool WantInput() const;
  void UpdateInterest();
  void MaybeFinish();
  std::uint16_t TxFlags() const;

  const NbdConnectionEnv& env_;
  RealEngine& engine_;
  BlockDevice& device_;
  const nbd::ExportInfo& info_;
  NbdBufferPool& pool_;
  int fd_;
  std::string peer_;
  ClosedHook on_closed_;
  State state_ = State::kClientFlags;
  nbd::Session session_;
  bool no_zeroes_ = false;
  bool disconnecting_ = false;  // NBD_CMD_DISC received
  bool waiting_for_buffer_ = false;
  std::string close_reason_;

  // Input: headers and option data are parsed from in_buf_[in_pos_, in_len_);
  // a WRITE payload is received straight into its request's buffer.
  std::unique_ptr<std::byte[]> in_buf_;
  std::size_t in_pos_ = 0;
  std::size_t in_len_ = 0;
  Op* payload_op_ = nullptr;          // a WRITE waiting for the rest of its payload
  std::uint64_t discard_ = 0;         // payload bytes of a refused message to drop
  std::uint32_t discard_option_ = 0;  // option to refuse once its data is drained

  // Output: handshake bytes first, then transmission replies in queue order.
  nbd::Bytes hs_out_;
  std::size_t hs_sent_ = 0;
  std::deque<OutItem> out_;
  std::size_t out_offset_ = 0;  // bytes of out_.front() already sent
  bool flush_scheduled_ = false;
  TimerId flush_timer_ = 0;
  bool want_write_ = false;
  std::uint32_t interest_ = 0;

  std::vector<Op*> ops_;       // every live op, for orphaning
  std::vector<Op*> free_ops_;  // released ops, reused (at most kMaxInFlight)
  std::size_t in_flight_ = 0;
  std::size_t buffered_bytes_ = 0;
  NbdConnectionStats stats_;

  // Progress, for the timeouts: bytes moved so far, and when CheckTimeouts
  // last saw each count change (no clock read on the I/O path).
  Nanos started_at_;
  std::uint64_t rx_bytes_ = 0;
  std::uint64_t tx_bytes_ = 0;
  std::uint64_t seen_rx_ = 0;
  std::uint64_t seen_tx_ = 0;
  Nanos rx_at_;
  Nanos tx_at_;
};

}  // namespace tierlab
