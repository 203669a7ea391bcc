#include "tiering/nbd/NbdConnection.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tierlab {

using namespace nbd;  // NOLINT(google-build-using-namespace): protocol constants

namespace {

// The input buffer holds one option with its data, and many pipelined
// request headers per recv.
static_assert(NbdConnection::kInBufSize >= kOptionHeaderSize + NbdConnection::kMaxOptionData);
// Handshake output a client may leave unread before we stop reading options.
constexpr std::size_t kMaxHandshakeOut = 1u << 20;
constexpr int kMaxIov = 64;
// WRITE_ZEROES is written from one shared zero buffer in chunks of this size,
// a few chunks at a time.
constexpr std::size_t kZeroChunk = 1u << 20;
constexpr std::uint32_t kZeroParallel = 4;

const std::byte* ZeroBuffer() {
  // Never freed: orphaned requests may still be writing from it while the
  // process shuts down.
  static const std::byte* zeros = [] {
    void* p = std::aligned_alloc(NbdBufferPool::kAlignment, kZeroChunk);
    if (p == nullptr) std::abort();
    std::memset(p, 0, kZeroChunk);
    return static_cast<const std::byte*>(p);
  }();
  return zeros;
}

std::string Seconds(Nanos t) {
  const double s = static_cast<double>(t) / kSecond;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

}  // namespace

// ---- Op -----------------------------------------------------------------------

struct NbdConnection::Op {
  NbdConnection* conn = nullptr;  // null once orphaned
  // Set when orphaned: where the buffer goes back (kept alive by this).
  std::shared_ptr<NbdBufferPool> orphan_pool;
  RequestHeader hdr;
  std::byte* buf = nullptr;  // READ destination / WRITE source / block status reply
  std::size_t cap = 0;
  std::uint32_t got = 0;      // WRITE payload bytes received so far
  std::uint32_t pending = 0;  // device requests outstanding
  Status status = Status::kOk;
  bool flush_after = false;     // TRIM with FUA: flush once the discard is done
  std::uint64_t zero_next = 0;  // WRITE_ZEROES: next chunk to submit
  std::uint64_t zero_end = 0;
  std::size_t index = 0;  // position in conn->ops_
};

// ---- NbdConnection ----------------------------------------------------------

NbdConnection::NbdConnection(const NbdConnectionEnv& env, int fd, std::string peer,
                             ClosedHook on_closed)
    : env_(env),
      engine_(env.engine),
      device_(env.device),
      info_(env.info),
      pool_(*env.pool),
      fd_(fd),
      peer_(std::move(peer)),
      on_closed_(std::move(on_closed)),
      in_buf_(new std::byte[kInBufSize]),
      started_at_(env.engine.Now()),
      rx_at_(started_at_),
      tx_at_(started_at_) {
  const int fl = fcntl(fd_, F_GETFL);
  if (fl >= 0) fcntl(fd_, F_SETFL, fl | O_NONBLOCK);
}

NbdConnection::~NbdConnection() {
  on_closed_ = nullptr;  // the owner is destroying us; do not call back
  Close("connection destroyed");
  // Whatever is still on the device completes into an orphan that gives its
  // buffer back and frees itself.
  for (Op* op : ops_) {
    op->conn = nullptr;
    op->orphan_pool = env_.pool;
  }
  ops_.clear();
  for (Op* op : free_ops_) delete op;
}

bool NbdConnection::Start() {
  AppendGreeting(hs_out_, kFlagFixedNewstyle | kFlagNoZeroes);
  interest_ = EPOLLIN;
  if (!engine_.WatchFd(fd_, interest_, [this](std::uint32_t ev) { OnEvents(ev); })) {
    const std::string reason = std::string("epoll refused the socket: ") + std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    close_reason_ = reason;
    if (on_closed_) {
      ClosedHook hook = std::move(on_closed_);
      on_closed_ = nullptr;
      hook(this);
    }
    return false;
  }
  FlushOutput();
  return !closed();
}

void NbdConnection::Drop(const std::string& reason) {
  if (closed()) return;
  if (env_.log) env_.log(peer_ + ": dropped: " + reason);
  Close(reason);
}

void NbdConnection::CheckTimeouts(Nanos now) {
  if (closed()) return;
  if (rx_bytes_ != seen_rx_) {
    seen_rx_ = rx_bytes_;
    rx_at_ = now;
  }
  // Output that is empty is not late: the stall clock starts when a reply
  // is queued (within one tick).
  if (tx_bytes_ != seen_tx_ || OutputEmpty()) {
    seen_tx_ = tx_bytes_;
    tx_at_ = now;
  }
  const NbdTimeouts& t = env_.timeouts;
  if (state_ != State::kTransmission) {
    if (t.handshake > 0 && now - started_at_ >= t.handshake) {
      Drop("handshake not finished within " + Seconds(t.handshake));
    } else if (t.option_idle > 0 && now - rx_at_ >= t.option_idle) {
      Drop("nothing received for " + Seconds(t.option_idle) + " during the handshake");
    }
    return;
  }
  if (t.stall > 0 && !out_.empty() && now - tx_at_ >= t.stall) {
    Drop("read no reply for " + Seconds(t.stall) + " (" + std::to_string(out_.size()) +
         " replies, " + std::to_string(buffered_bytes_) + " buffered bytes held)");
  } else if (t.stall > 0 && payload_op_ != nullptr && now - rx_at_ >= t.stall) {
    Drop("sent nothing for " + Seconds(t.stall) + " in the middle of a " +
         std::to_string(payload_op_->hdr.length) + "-byte write");
  } else if (t.idle > 0 && in_flight_ == 0 && OutputEmpty() && payload_op_ == nullptr &&
             now - std::max(rx_at_, tx_at_) >= t.idle) {
    Drop("idle for " + Seconds(t.idle));
  }
}

void NbdConnection::Close(std::string reason) {
  if (closed()) return;
  close_reason_ = std::move(reason);
  pool_.CancelWait(this);
  waiting_for_buffer_ = false;
  engine_.UnwatchFd(fd_);
  ::close(fd_);
  fd_ = -1;
  if (flush_scheduled_) {
    engine_.Cancel(flush_timer_);
    flush_scheduled_ = false;
  }
  for (OutItem& it : out_) {
    if (it.op != nullptr) ReleaseOp(it.op);
  }
  out_.clear();
  hs_out_.clear();
  hs_sent_ = 0;
  if (payload_op_ != nullptr) {
    ReleaseOp(payload_op_);
    payload_op_ = nullptr;
  }
  // Ops on the device stay; CompleteOp releases them.
  if (on_closed_) {
    ClosedHook hook = std::move(on_closed_);
    on_closed_ = nullptr;
    hook(this);
  }
}

void NbdConnection::OnEvents(std::uint32_t events) {
  if ((events & EPOLLERR) != 0) {
    Close("socket error");
    return;
  }
  if ((events & EPOLLOUT) != 0) FlushOutput();
  if (closed()) return;
  if ((events & (EPOLLIN | EPOLLHUP)) != 0) ReadSocket();
  // A hung-up socket stays readable forever; if we could not read it to EOF
  // (paused by limits), drop it rather than spin.
  if (!closed() && (events & EPOLLHUP) != 0) Close("client hung up");
}

bool NbdConnection::WantInput() const {
  if (closed() || state_ == State::kClosing || disconnecting_) return false;
  // The rest of an admitted message is always read, so a client blocked on
  // sending a payload cannot deadlock against replies it has not read yet.
  if (payload_op_ != nullptr || discard_ > 0) return true;
  return !waiting_for_buffer_ && !OverLimits();
}

bool NbdConnection::OverLimits() const {
  return ops_.size() >= kMaxInFlight || buffered_bytes_ >= kMaxBufferedBytes ||
         out_.size() >= kMaxQueuedReplies || hs_out_.size() - hs_sent_ > kMaxHandshakeOut;
}

void NbdConnection::ReadSocket() {
  while (WantInput()) {
    std::byte* dst;
    std::size_t room;
    if (payload_op_ != nullptr) {
      // ProcessInput() emptied in_buf_ into the payload; the rest goes direct.
      dst = payload_op_->buf + payload_op_->got;
      room = payload_op_->hdr.length - payload_op_->got;
    } else {
      if (in_pos_ > 0) {
        std::memmove(in_buf_.get(), in_buf_.get() + in_pos_, in_len_ - in_pos_);
        in_len_ -= in_pos_;
        in_pos_ = 0;
      }
      dst = in_buf_.get() + in_len_;
      room = kInBufSize - in_len_;
    }
    if (room == 0) break;
    const ssize_t n = ::recv(fd_, dst, room, 0);
    if (n == 0) {
      Close("client disconnected");
      return;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        Close(std::string("recv: ") + std::strerror(errno));
      break;
    }
    rx_bytes_ += static_cast<std::uint64_t>(n);
    if (payload_op_ != nullptr) {
      payload_op_->got += static_cast<std::uint32_t>(n);
      stats_.bytes_written += static_cast<std::uint64_t>(n);
      if (payload_op_->got == payload_op_->hdr.length) {
        Op* op = std::exchange(payload_op_, nullptr);
        SubmitOp(op);
      }
    } else {
      in_len_ += static_cast<std::size_t>(n);
      if (!ProcessInput()) return;
    }
    // A short read means the socket is (almost surely) drained; epoll is
    // level-triggered and will call again, which saves an EAGAIN recv.
    if (static_cast<std::size_t>(n) < room) break;
  }
  UpdateInterest();
  MaybeFinish();
}

bool NbdConnection::ProcessInput() {
  while (!closed()) {
    const std::size_t avail = in_len_ - in_pos_;
    const std::byte* p = in_buf_.get() + in_pos_;
    if (discard_ > 0) {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(avail, discard_));
      in_pos_ += take;
      discard_ -= take;
      if (discard_ > 0) break;
      if (discard_option_ != 0) {
        AppendOptionError(hs_out_, discard_option_, kRepErrTooBig, "option data too long");
        discard_option_ = 0;
        ScheduleFlush();
      }
      continue;
    }
    if (payload_op_ != nullptr) {
      Op* op = payload_op_;
      const std::size_t take = std::min<std::size_t>(avail, op->hdr.length - op->got);
      std::memcpy(op->buf + op->got, p, take);
      op->got += static_cast<std::uint32_t>(take);
      stats_.bytes_written += take;
      in_pos_ += take;
      if (op->got < op->hdr.length) break;
      payload_op_ = nullptr;
      SubmitOp(op);
      continue;
    }
    if (state_ == State::kClosing || disconnecting_) break;
    if (state_ == State::kClientFlags) {
      if (avail < kClientFlagsSize) break;
      if (!HandleClientFlags()) return false;
      continue;
    }
    if (state_ == State::kOptions) {
      if (avail < kOptionHeaderSize) break;
      if (hs_out_.size() - hs_sent_ > kMaxHandshakeOut) break;
      auto h = ParseOptionHeader({p, avail});
      if (!h) {
        Drop(h.error().message);
        return false;
      }
      if (h->length > kMaxOptionData) {
        if (h->option == kOptExportName) {  // cannot be refused with a reply
          Drop("NBD_OPT_EXPORT_NAME: export name too long");
          return false;
        }
        in_pos_ += kOptionHeaderSize;
        discard_ = h->length;
        discard_option_ = h->option;
        continue;
      }
      if (avail < kOptionHeaderSize + h->length) break;
      in_pos_ += kOptionHeaderSize + h->length;
      if (!HandleOption(*h, {p + kOptionHeaderSize, h->length})) return false;
      continue;
    }
    // Transmission.
    if (OverLimits()) break;
    if (avail < kRequestHeaderSize) break;
    auto h = ParseRequestHeader({p, avail});
    if (!h) {
      Drop(h.error().message);  // the stream cannot be resynchronised
      return false;
    }
    // The request's buffer first: without room in the budget the header
    // stays unparsed and the socket unread until OnBufferAvailable.
    const std::uint32_t err = CheckRequest(*h, info_, session_);
    std::size_t need = 0;
    if (err == 0) {
      if (h->type == kCmdRead || h->type == kCmdWrite) need = h->length;
      if (h->type == kCmdBlockStatus) {
        need =
            kBlockDescriptorSize * ((h->flags & kCmdFlagReqOne) != 0 ? 1 : kMaxBlockStatusExtents);
      }
    }
    std::byte* buf = nullptr;
    std::size_t cap = 0;
    if (need > 0) {
      buf = pool_.Acquire(need, &cap, this);
      waiting_for_buffer_ = buf == nullptr;
      if (buf == nullptr) break;
    }
    in_pos_ += kRequestHeaderSize;
    if (!HandleRequest(*h, err, buf, cap)) return false;
  }
  if (in_pos_ == in_len_) in_pos_ = in_len_ = 0;
  return !closed();
}

bool NbdConnection::HandleClientFlags() {
  auto flags = ParseClientFlags({in_buf_.get() + in_pos_, kClientFlagsSize});
  in_pos_ += kClientFlagsSize;
  if (!flags) {
    Drop(flags.error().message);
    return false;
  }
  no_zeroes_ = (*flags & kClientFlagNoZeroes) != 0;
  state_ = State::kOptions;
  return true;
}

bool NbdConnection::HandleOption(const OptionHeader& h, ByteView data) {
  switch (h.option) {
    case kOptExportName: {
      const std::string_view name(reinterpret_cast<const char*>(data.data()), data.size());
      if (!name.empty() && name != info_.name) {
        Drop("NBD_OPT_EXPORT_NAME: unknown export '" + std::string(name) + "'");
        return false;
      }
      AppendExportNameReply(hs_out_, info_.size, TxFlags(), no_zeroes_);
      state_ = State::kTransmission;
      break;
    }
    case kOptAbort:
      AppendOptionReply(hs_out_, h.option, kRepAck);
      state_ = State::kClosing;
      break;
    case kOptList:
      if (!data.empty()) {
        AppendOptionError(hs_out_, h.option, kRepErrInvalid, "NBD_OPT_LIST takes no data");
      } else {
        AppendServerReply(hs_out_, h.option, info_.name);
        AppendOptionReply(hs_out_, h.option, kRepAck);
      }
      break;
    case kOptInfo:
    case kOptGo: HandleInfoOrGo(h.option, data); break;
    case kOptStructuredReply:
      if (!data.empty()) {
        AppendOptionError(hs_out_, h.option, kRepErrInvalid,
                          "NBD_OPT_STRUCTURED_REPLY takes no data");
      } else {
        session_.structured_replies = true;
        AppendOptionReply(hs_out_, h.option, kRepAck);
      }
      break;
    case kOptListMetaContext:
    case kOptSetMetaContext: HandleMetaContext(h.option, data); break;
    default:
      // STARTTLS, extended headers, and options we have never heard of: the
      // spec lets clients fall back.
      AppendOptionError(hs_out_, h.option, kRepErrUnsup,
                        std::string(OptionName(h.option)) + " is not supported");
      break;
  }
  ScheduleFlush();
  return true;
}

bool NbdConnection::RefuseUnknownExport(std::uint32_t option, const std::string& name) {
  // The empty name selects the default export, which is our only one.
  if (name.empty() || name == info_.name) return false;
  AppendOptionError(hs_out_, option, kRepErrUnknown, "unknown export '" + name + "'");
  return true;
}

void NbdConnection::HandleInfoOrGo(std::uint32_t option, ByteView data) {
  auto req = ParseInfoRequest(data);
  if (!req) {
    AppendOptionError(hs_out_, option, kRepErrInvalid, req.error().message);
    return;
  }
  if (RefuseUnknownExport(option, req->name)) return;
  AppendInfoExport(hs_out_, option, info_.size, TxFlags());
  // Sent even when not asked for (the spec allows it): clients that ignore it
  // and send misaligned requests get EINVAL.
  AppendInfoBlockSize(hs_out_, option, info_.min_block, info_.preferred_block, info_.max_payload);
  // Each asked for once, however often the request repeats it: 8,000
  // repeats of NBD_INFO_NAME fit in one option and would each copy the name.
  bool name = false, description = false;
  for (std::uint16_t i : req->infos) {
    name = name || i == kInfoName;
    description = description || i == kInfoDescription;
  }
  if (name) AppendInfoString(hs_out_, option, kInfoName, info_.name);
  if (description && !info_.description.empty()) {
    AppendInfoString(hs_out_, option, kInfoDescription, info_.description);
  }
  AppendOptionReply(hs_out_, option, kRepAck);
  if (option == kOptGo) state_ = State::kTransmission;
}

void NbdConnection::HandleMetaContext(std::uint32_t option, ByteView data) {
  if (!session_.structured_replies) {
    AppendOptionError(hs_out_, option, kRepErrInvalid,
                      "negotiate NBD_OPT_STRUCTURED_REPLY before meta contexts");
    return;
  }
  auto req = ParseMetaContextRequest(data);
  if (!req) {
    AppendOptionError(hs_out_, option, kRepErrInvalid, req.error().message);
    return;
  }
  if (RefuseUnknownExport(option, req->name)) return;
  // base:allocation is the only context: LIST names it for no query, for
  // its namespace or for itself; SET selects it when asked by name, and
  // replaces any earlier selection.
  bool match = false;
  for (const std::string& q : req->queries) {
    if (q == kBaseAllocation || (option == kOptListMetaContext && q == "base:")) match = true;
  }
  if (option == kOptListMetaContext) {
    if (match || req->queries.empty()) AppendMetaContextReply(hs_out_, option, 0, kBaseAllocation);
  } else {
    session_.base_allocation = match;
    if (match) AppendMetaContextReply(hs_out_, option, kBaseAllocationId, kBaseAllocation);
  }
  AppendOptionReply(hs_out_, option, kRepAck);
}

std::uint16_t NbdConnection::TxFlags() const {
  return session_.structured_replies ? info_.tx_flags | kTxSendDf : info_.tx_flags;
}

bool NbdConnection::HandleRequest(const RequestHeader& h, std::uint32_t err, std::byte* buf,
                                  std::size_t cap) {
  ++stats_.requests;
  if (h.type == kCmdDisc) {
    disconnecting_ = true;  // finish what is in flight, then close
    return true;
  }
  if (err != 0) {
    QueueError(err, h.cookie);
    if (HasPayload(h)) discard_ = h.length;  // keep the stream in sync
    return true;
  }
  const bool ranged = h.type != kCmdFlush;
  if (ranged && h.length == 0) {  // nothing to do; the spec leaves it to us
    if (h.type == kCmdRead && session_.structured_replies) {
      QueueDone(h.cookie);  // a read may not get a simple reply here
    } else {
      QueueOk(h.cookie);
    }
    return true;
  }
  Op* op = NewOp(h);
  op->buf = buf;
  op->cap = cap;
  buffered_bytes_ += cap;
  if (h.type == kCmdBlockStatus) {
    AnswerBlockStatus(op);
    return true;
  }
  if (h.type == kCmdWrite) {
    payload_op_ = op;  // ProcessInput/ReadSocket fill it, then submit
    return true;
  }
  SubmitOp(op);
  return true;
}

NbdConnection::Op* NbdConnection::NewOp(const RequestHeader& h) {
  Op* op;
  if (!free_ops_.empty()) {
    op = free_ops_.back();
    free_ops_.pop_back();
    *op = Op{};
  } else {
    op = new Op;
  }
  op->conn = this;
  op->hdr = h;
  op->index = ops_.size();
  ops_.push_back(op);
  return op;
}

void NbdConnection::AnswerBlockStatus(Op* op) {
  const RequestHeader& h = op->hdr;
  // The device answers in whole blocks: ask for the blocks the range
  // touches, then cut the answer to the range (a block's state holds for
  // any part of it).
  const std::uint64_t bs = info_.min_block;
  const std::uint64_t end = h.offset + h.length;
  const std::uint64_t from = h.offset / bs * bs;
  const std::uint64_t to = std::min<std::uint64_t>(info_.size, (end + bs - 1) / bs * bs);
  const std::size_t max = (h.flags & kCmdFlagReqOne) != 0 ? 1 : kMaxBlockStatusExtents;
  AllocationMap map;
  const Status st = device_.QueryAllocation(from, to - from, max, &map);
  if (st != Status::kOk) {
    QueueError(ToNbdError(st), h.cookie);
    ReleaseOp(op);
    return;
  }
  std::size_t n = 0;
  std::uint64_t pos = from;
  for (const AllocationExtent& e : map) {
    const std::uint64_t a = std::max(pos, h.offset);
    const std::uint64_t b = std::min(pos + e.length, end);
    pos += e.length;
    if (b <= a) continue;
    std::byte* d = op->buf + n * kBlockDescriptorSize;
    StoreBe32(d, static_cast<std::uint32_t>(b - a));  // <= h.length, a 32-bit field
    StoreBe32(d + 4, e.hole ? kStateHole | kStateZero : 0);
    ++n;
    if (pos >= end) break;
  }
  const std::size_t len = n * kBlockDescriptorSize;
  OutItem& it = PushReply();
  EncodeChunkHeader(it.header, kReplyFlagDone, kReplyTypeBlockStatus, h.cookie,
                    static_cast<std::uint32_t>(4 + len));
  StoreBe32(it.header + kStructuredReplyHeaderSize, kBaseAllocationId);
  it.header_len = kStructuredReplyHeaderSize + 4;
  it.op = op;  // released once sent
  it.payload_len = len;
}

void NbdConnection::SubmitOp(Op* op) {
  ++in_flight_;
  const RequestHeader& h = op->hdr;
  const bool fua = (h.flags & kCmdFlagFua) != 0;
  IoRequest req;
  req.offset = h.offset;
  req.length = h.length;
  switch (h.type) {
    case kCmdRead:
      req.op = IoOp::kRead;
      req.data = op->buf;
      break;
    case kCmdWrite:
      req.op = IoOp::kWrite;
      req.data = op->buf;
      if (fua) req.flags |= kIoFua;
      break;
    case kCmdFlush:
      req.op = IoOp::kFlush;
      req.offset = req.length = 0;
      break;
    case kCmdTrim:
      req.op = IoOp::kDiscard;
      op->flush_after = fua;
      break;
    case kCmdWriteZeroes: {
      op->zero_next = h.offset;
      op->zero_end = h.offset + h.length;
      for (std::uint32_t i = 0; i < kZeroParallel && op->zero_next < op->zero_end; ++i) {
        const std::uint64_t len = std::min<std::uint64_t>(kZeroChunk, op->zero_end - op->zero_next);
        IoRequest z;
        z.op = IoOp::kWrite;
        z.offset = op->zero_next;
        z.length = len;
        z.data = const_cast<std::byte*>(ZeroBuffer());  // devices only read write buffers
        if (fua) z.flags |= kIoFua;
        op->zero_next += len;
        ++op->pending;
        device_.Submit(z, [op](Status s) { OnDeviceDone(op, s); });
      }
      return;
    }
    default: break;  // CheckRequest admitted nothing else
  }
  ++op->pending;
  device_.Submit(req, [op](Status s) { OnDeviceDone(op, s); });
}

void NbdConnection::OnDeviceDone(Op* op, Status s) {
  // Discard is advisory in NBD: a device without it has still honoured TRIM.
  if (s == Status::kNotSupported && op->hdr.type == kCmdTrim) s = Status::kOk;
  if (s != Status::kOk && op->status == Status::kOk) op->status = s;
  --op->pending;
  NbdConnection* conn = op->conn;
  if (conn == nullptr) {  // orphaned: the connection is gone
    if (op->pending == 0) {
      op->orphan_pool->Release(op->buf, op->cap);
      delete op;
    }
    return;
  }
  if (op->status == Status::kOk && op->zero_next < op->zero_end && !conn->closed()) {
    const std::uint64_t len = std::min<std::uint64_t>(kZeroChunk, op->zero_end - op->zero_next);
    IoRequest z;
    z.op = IoOp::kWrite;
    z.offset = op->zero_next;
    z.length = len;
    z.data = const_cast<std::byte*>(ZeroBuffer());
    if ((op->hdr.flags & kCmdFlagFua) != 0) z.flags |= kIoFua;
    op->zero_next += len;
    ++op->pending;
    conn->device_.Submit(z, [op](Status st) { OnDeviceDone(op, st); });
  }
  if (op->pending > 0) return;
  if (op->status == Status::kOk && op->flush_after) {
    op->flush_after = false;
    IoRequest f;
    f.op = IoOp::kFlush;
    ++op->pending;
    conn->device_.Submit(f, [op](Status st) { OnDeviceDone(op, st); });
    return;
  }
  conn->CompleteOp(op);
}

void NbdConnection::CompleteOp(Op* op) {
  --in_flight_;
  if (closed()) {
    ReleaseOp(op);
    return;
  }
  const std::uint32_t err = ToNbdError(op->status);
  if (op->hdr.type == kCmdRead && err == 0) {
    QueueReadData(op);  // released once sent
    return;
  }
  if (err != 0) {
    QueueError(err, op->hdr.cookie);
  } else {
    QueueOk(op->hdr.cookie);
  }
  ReleaseOp(op);
}

NbdConnection::OutItem& NbdConnection::PushReply() {
  ScheduleFlush();
  return out_.emplace_back();
}

void NbdConnection::QueueOk(std::uint64_t cookie) {
  OutItem& it = PushReply();
  EncodeSimpleReply(it.header, 0, cookie);
  it.header_len = kSimpleReplySize;
}

void NbdConnection::QueueDone(std::uint64_t cookie) {
  OutItem& it = PushReply();
  EncodeChunkHeader(it.header, kReplyFlagDone, kReplyTypeNone, cookie, 0);
  it.header_len = kStructuredReplyHeaderSize;
}

void NbdConnection::QueueError(std::uint32_t error, std::uint64_t cookie) {
  ++stats_.error_replies;
  OutItem& it = PushReply();
  if (session_.structured_replies) {
    EncodeErrorChunk(it.header, error, cookie);
    it.header_len = kErrorChunkSize;
  } else {
    EncodeSimpleReply(it.header, error, cookie);
    it.header_len = kSimpleReplySize;
  }
}

void NbdConnection::QueueReadData(Op* op) {
  const RequestHeader& h = op->hdr;
  OutItem& it = PushReply();
  if (session_.structured_replies) {
    // The data is in hand, so no error can follow: the one chunk is final.
    EncodeOffsetDataHeader(it.header, kReplyFlagDone, h.cookie, h.offset, h.length);
    it.header_len = kOffsetDataHeaderSize;
  } else {
    EncodeSimpleReply(it.header, 0, h.cookie);
    it.header_len = kSimpleReplySize;
  }
  it.op = op;
  it.payload_len = h.length;
  stats_.bytes_read += h.length;
}

void NbdConnection::ReleaseOp(Op* op) {
  if (op->buf != nullptr) {
    pool_.Release(op->buf, op->cap);
    buffered_bytes_ -= op->cap;
  }
  // Swap-remove from ops_.
  Op* last = ops_.back();
  ops_[op->index] = last;
  last->index = op->index;
  ops_.pop_back();
  // Kept for the next request: the steady state allocates no Op.
  if (free_ops_.size() < kMaxInFlight) {
    free_ops_.push_back(op);
  } else {
    delete op;
  }
}

void NbdConnection::OnBufferAvailable() {
  if (closed() || !waiting_for_buffer_) return;
  if (!ProcessInput()) return;
  UpdateInterest();
  MaybeFinish();
}

void NbdConnection::ScheduleFlush() {
  if (flush_scheduled_ || closed()) return;
  flush_scheduled_ = true;
  // One send per engine turn for all the replies that turn produced.
  flush_timer_ = engine_.Post([this] {
    flush_scheduled_ = false;
    FlushOutput();
  });
}

void NbdConnection::FlushOutput() {
  while (!closed() && !OutputEmpty()) {
    iovec iov[kMaxIov];
    int n = 0;
    if (hs_sent_ < hs_out_.size()) {
      iov[n++] = {hs_out_.data() + hs_sent_, hs_out_.size() - hs_sent_};
    }
    std::size_t skip = out_offset_;
    for (OutItem& it : out_) {
      if (n > kMaxIov - 2) break;
      if (skip < it.header_len) {
        iov[n++] = {it.header + skip, it.header_len - skip};
        skip = 0;
      } else {
        skip -= it.header_len;
      }
      if (it.payload_len > 0) {
        iov[n++] = {it.op->buf + skip, it.payload_len - skip};
        skip = 0;
      }
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(n);
    const ssize_t sent = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        want_write_ = true;
        break;
      }
      Close(std::string("send: ") + std::strerror(errno));
      return;
    }
    std::size_t left = static_cast<std::size_t>(sent);
    tx_bytes_ += left;
    const std::size_t hs_take = std::min(left, hs_out_.size() - hs_sent_);
    hs_sent_ += hs_take;
    left -= hs_take;
    while (left > 0) {
      OutItem& it = out_.front();
      const std::size_t remaining = it.header_len + it.payload_len - out_offset_;
      if (left < remaining) {
        out_offset_ += left;
        break;
      }
      left -= remaining;
      out_offset_ = 0;
      if (it.op != nullptr) ReleaseOp(it.op);
      out_.pop_front();
    }
  }
  if (closed()) return;
  if (hs_sent_ == hs_out_.size()) {
    hs_out_.clear();
    hs_sent_ = 0;
  }
  if (OutputEmpty()) want_write_ = false;
  // Sending may have made room under the limits: parse what is buffered.
  if (!OverLimits() && in_pos_ < in_len_ && state_ != State::kClosing && !disconnecting_) {
    if (!ProcessInput()) return;
  }
  UpdateInterest();
  MaybeFinish();
}

void NbdConnection::UpdateInterest() {
  if (closed()) return;
  std::uint32_t want = 0;
  if (WantInput()) want |= EPOLLIN;
  if (want_write_) want |= EPOLLOUT;
  if (want != interest_) {
    interest_ = want;
    engine_.ModifyFd(fd_, want);
  }
}

void NbdConnection::MaybeFinish() {
  if (closed()) return;
  if (state_ == State::kClosing && OutputEmpty()) {
    Close("client aborted negotiation");
  } else if (disconnecting_ && in_flight_ == 0 && payload_op_ == nullptr && out_.empty() &&
             OutputEmpty()) {
    Close("client disconnected (NBD_CMD_DISC)");
  }
}

}  // namespace tierlab
