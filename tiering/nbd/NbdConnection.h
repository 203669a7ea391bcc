#pragma once
// One NBD client: the handshake and transmission state machine over a
// non-blocking socket, driven by a RealEngine.
//
// Pipelining: the connection keeps reading requests while earlier ones are in
// flight on the device; replies go out in completion order (the protocol
// matches them by cookie). A WRITE is submitted only once its whole payload
// has arrived. Replies produced in one engine turn leave in one sendmsg.
//
// Bounded memory: per connection at most kMaxInFlight requests and
// kMaxBufferedBytes of request/reply data (one request larger than the budget
// is still admitted alone; requests are capped at ExportInfo::max_payload),
// and at most kMaxQueuedReplies replies waiting for a slow reader. When a
// limit is hit the connection stops reading its socket (TCP backpressure)
// until completions and sends make room.
//
// Bad input: a request the export cannot serve (unknown command, bad flags,
// misaligned, past the end, too long) gets an error reply and the connection
// goes on; an oversized WRITE's payload is read and dropped. Input that makes
// the stream unparseable (bad magic, unknown client flags, unknown export in
// NBD_OPT_EXPORT_NAME) closes the connection, as the spec allows.
//
// Threading: everything runs on the engine thread.
//
// Ownership: owns the socket. In-flight device requests keep their buffers in
// heap contexts; if the connection is destroyed first, they are orphaned and
// free themselves when the device completes them, so the device (and the
// engine) must keep running until the device has no request in flight before
// they are destroyed. The connection never deletes itself: when it is done it
// calls the `on_closed` hook, and the owner destroys it from a later task.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "tiering/BlockDevice.h"
#include "tiering/RealEngine.h"
#include "tiering/nbd/NbdProtocol.h"

namespace tierlab {

// Recycles aligned I/O buffers by power-of-two size class, so the steady state
// of a connection allocates nothing. Buffers are aligned to 4096 bytes
// (O_DIRECT devices need it). Not thread-safe.
class NbdBufferPool {
 public:
  static constexpr std::size_t kAlignment = 4096;
  NbdBufferPool() = default;
  NbdBufferPool(const NbdBufferPool&) = delete;
  NbdBufferPool& operator=(const NbdBufferPool&) = delete;
  ~NbdBufferPool();

  // A buffer of at least `size` bytes (contents undefined); `*capacity`
  // receives its size class, to be passed back to Release.
  std::byte* Acquire(std::size_t size, std::size_t* capacity);
  void Release(std::byte* p, std::size_t capacity);
  // Frees a buffer without a pool (orphaned requests).
  static void Free(std::byte* p);

 private:
  static constexpr int kClasses = 27;  // up to 64 MiB
  static constexpr std::size_t kMaxCachedBytes = 64u << 20;
  std::vector<std::byte*> free_[kClasses];
  std::size_t cached_bytes_ = 0;
};

struct NbdConnectionStats {
  std::uint64_t requests = 0;       // transmission requests received
  std::uint64_t error_replies = 0;  // replies with a nonzero error
  std::uint64_t bytes_read = 0;     // payload bytes sent to the client
  std::uint64_t bytes_written = 0;  // payload bytes received from the client
};

class NbdConnection {
 public:
  static constexpr std::size_t kMaxInFlight = 256;
  static constexpr std::size_t kMaxBufferedBytes = 64u << 20;
  static constexpr std::size_t kMaxQueuedReplies = 4096;
  // Option data above this is drained and refused with NBD_REP_ERR_TOO_BIG.
  static constexpr std::uint32_t kMaxOptionData = 16u << 10;

  using ClosedHook = InlineFunction<void(NbdConnection*), 32>;

  // Takes ownership of `fd`, a connected stream socket (made non-blocking
  // here). `info` describes the export; `pool` must outlive the connection.
  NbdConnection(RealEngine& engine, BlockDevice& device, const nbd::ExportInfo& info,
                NbdBufferPool& pool, int fd, ClosedHook on_closed);
  NbdConnection(const NbdConnection&) = delete;
  NbdConnection& operator=(const NbdConnection&) = delete;
  // Closes the socket if still open; orphans in-flight requests.
  ~NbdConnection();

  // Sends the greeting and starts watching the socket. False (and closed) if
  // the engine refuses the descriptor.
  bool Start();
  // Closes the socket now (no more replies). Calls the hook once.
  void Close(std::string reason);

  bool closed() const { return fd_ < 0; }
  bool in_transmission() const { return state_ == State::kTransmission; }
  std::size_t in_flight() const { return in_flight_; }
  // Why the connection closed ("" while open; "client disconnected", ...).
  const std::string& close_reason() const { return close_reason_; }
  const NbdConnectionStats& stats() const { return stats_; }

 private:
  struct Op;
  enum class State { kClientFlags, kOptions, kTransmission, kClosing };
  struct OutItem {
    std::byte header[nbd::kSimpleReplySize];
    Op* op = nullptr;  // owns the payload (READ data) if non-null
    std::size_t payload_len = 0;
  };

  void OnEvents(std::uint32_t events);
  void ReadSocket();
  // Parses whole messages from in_buf_; returns false if the connection closed.
  bool ProcessInput();
  bool HandleClientFlags();
  bool HandleOption(const nbd::OptionHeader& h, nbd::ByteView data);
  void HandleInfoOrGo(std::uint32_t option, nbd::ByteView data);
  // Handles one request header; may consume payload bytes from in_buf_.
  bool HandleRequest(const nbd::RequestHeader& h);
  void SubmitOp(Op* op);
  static void OnDeviceDone(Op* op, Status s);
  void CompleteOp(Op* op);
  void QueueReply(std::uint32_t error, std::uint64_t cookie, Op* data_op, std::size_t len);
  void ReleaseOp(Op* op);

  void ScheduleFlush();
  void FlushOutput();
  bool OutputEmpty() const { return hs_sent_ == hs_out_.size() && out_.empty(); }
  bool OverLimits() const;
  // True if the socket should be read now.
  bool WantInput() const;
  void UpdateInterest();
  void MaybeFinish();

  RealEngine& engine_;
  BlockDevice& device_;
  const nbd::ExportInfo& info_;
  NbdBufferPool& pool_;
  int fd_;
  ClosedHook on_closed_;
  State state_ = State::kClientFlags;
  bool no_zeroes_ = false;
  bool disconnecting_ = false;  // NBD_CMD_DISC received
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
};

}  // namespace tierlab
