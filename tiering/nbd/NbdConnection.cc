#include "tiering/nbd/NbdConnection.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tierlab {

using namespace nbd;  // NOLINT(google-build-using-namespace): protocol constants

namespace {

// Input buffer: large enough for one option with its data, and for many
// pipelined request headers per recv.
constexpr std::size_t kInBufSize = 64u << 10;
static_assert(kInBufSize >= kOptionHeaderSize + NbdConnection::kMaxOptionData);
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

}  // namespace

// ---- NbdBufferPool ----------------------------------------------------------

NbdBufferPool::~NbdBufferPool() {
  for (auto& list : free_) {
    for (std::byte* p : list) std::free(p);
  }
}

std::byte* NbdBufferPool::Acquire(std::size_t size, std::size_t* capacity) {
  const std::size_t want = std::max<std::size_t>(size, kAlignment);
  const int cls = std::bit_width(want - 1);  // 2^cls >= want
  const std::size_t cap = std::size_t{1} << cls;
  *capacity = cap;
  if (cls < kClasses && !free_[cls].empty()) {
    std::byte* p = free_[cls].back();
    free_[cls].pop_back();
    cached_bytes_ -= cap;
    return p;
  }
  void* p = std::aligned_alloc(kAlignment, cap);
  if (p == nullptr) std::abort();  // out of memory, as operator new would
  return static_cast<std::byte*>(p);
}

void NbdBufferPool::Release(std::byte* p, std::size_t capacity) {
  if (p == nullptr) return;
  const int cls = std::bit_width(capacity - 1);
  if (cls < kClasses && cached_bytes_ + capacity <= kMaxCachedBytes) {
    free_[cls].push_back(p);
    cached_bytes_ += capacity;
  } else {
    std::free(p);
  }
}

void NbdBufferPool::Free(std::byte* p) {
  std::free(p);
}

// ---- Op -----------------------------------------------------------------------

struct NbdConnection::Op {
  NbdConnection* conn = nullptr;  // null once orphaned
  RequestHeader hdr;
  std::byte* buf = nullptr;  // READ destination / WRITE source
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

NbdConnection::NbdConnection(RealEngine& engine, BlockDevice& device, const ExportInfo& info,
                             NbdBufferPool& pool, int fd, ClosedHook on_closed)
    : engine_(engine),
      device_(device),
      info_(info),
      pool_(pool),
      fd_(fd),
      on_closed_(std::move(on_closed)),
      in_buf_(new std::byte[kInBufSize]) {
  const int fl = fcntl(fd_, F_GETFL);
  if (fl >= 0) fcntl(fd_, F_SETFL, fl | O_NONBLOCK);
}

NbdConnection::~NbdConnection() {
  on_closed_ = nullptr;  // the owner is destroying us; do not call back
  Close("connection destroyed");
  // Whatever is still on the device completes into an orphan that frees itself.
  for (Op* op : ops_) op->conn = nullptr;
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

void NbdConnection::Close(std::string reason) {
  if (closed()) return;
  close_reason_ = std::move(reason);
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
  return !OverLimits();
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
        Close(h.error().message);
        return false;
      }
      if (h->length > kMaxOptionData) {
        if (h->option == kOptExportName) {  // cannot be refused with a reply
          Close("NBD_OPT_EXPORT_NAME: export name too long");
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
      Close(h.error().message);  // the stream cannot be resynchronised
      return false;
    }
    in_pos_ += kRequestHeaderSize;
    if (!HandleRequest(*h)) return false;
  }
  if (in_pos_ == in_len_) in_pos_ = in_len_ = 0;
  return !closed();
}

bool NbdConnection::HandleClientFlags() {
  auto flags = ParseClientFlags({in_buf_.get() + in_pos_, kClientFlagsSize});
  in_pos_ += kClientFlagsSize;
  if (!flags) {
    Close(flags.error().message);
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
        Close("NBD_OPT_EXPORT_NAME: unknown export '" + std::string(name) + "'");
        return false;
      }
      AppendExportNameReply(hs_out_, info_.size, info_.tx_flags, no_zeroes_);
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
    default:
      // STARTTLS, STRUCTURED_REPLY, meta contexts, extended headers, and
      // options we have never heard of: the spec lets clients fall back.
      AppendOptionError(hs_out_, h.option, kRepErrUnsup,
                        std::string(OptionName(h.option)) + " is not supported");
      break;
  }
  ScheduleFlush();
  return true;
}

void NbdConnection::HandleInfoOrGo(std::uint32_t option, ByteView data) {
  auto req = ParseInfoRequest(data);
  if (!req) {
    AppendOptionError(hs_out_, option, kRepErrInvalid, req.error().message);
    return;
  }
  // The empty name selects the default export, which is our only one.
  if (!req->name.empty() && req->name != info_.name) {
    AppendOptionError(hs_out_, option, kRepErrUnknown, "unknown export '" + req->name + "'");
    return;
  }
  AppendInfoExport(hs_out_, option, info_.size, info_.tx_flags);
  // Sent even when not asked for (the spec allows it): clients that ignore it
  // and send misaligned requests get EINVAL.
  AppendInfoBlockSize(hs_out_, option, info_.min_block, info_.preferred_block, info_.max_payload);
  for (std::uint16_t i : req->infos) {
    if (i == kInfoName) AppendInfoString(hs_out_, option, kInfoName, info_.name);
    if (i == kInfoDescription && !info_.description.empty()) {
      AppendInfoString(hs_out_, option, kInfoDescription, info_.description);
    }
  }
  AppendOptionReply(hs_out_, option, kRepAck);
  if (option == kOptGo) state_ = State::kTransmission;
}

bool NbdConnection::HandleRequest(const RequestHeader& h) {
  ++stats_.requests;
  if (h.type == kCmdDisc) {
    disconnecting_ = true;  // finish what is in flight, then close
    return true;
  }
  const std::uint32_t err = CheckRequest(h, info_);
  if (err != 0) {
    QueueReply(err, h.cookie, nullptr, 0);
    if (HasPayload(h)) discard_ = h.length;  // keep the stream in sync
    return true;
  }
  const bool ranged = h.type != kCmdFlush;
  if (ranged && h.length == 0) {  // nothing to do; the spec leaves it to us
    QueueReply(0, h.cookie, nullptr, 0);
    return true;
  }
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
  if (h.type == kCmdRead || h.type == kCmdWrite) {
    op->buf = pool_.Acquire(h.length, &op->cap);
    buffered_bytes_ += op->cap;
  }
  if (h.type == kCmdWrite) {
    payload_op_ = op;  // ProcessInput/ReadSocket fill it, then submit
    return true;
  }
  SubmitOp(op);
  return true;
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
      NbdBufferPool::Free(op->buf);
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
    QueueReply(0, op->hdr.cookie, op, op->hdr.length);  // released once sent
  } else {
    QueueReply(err, op->hdr.cookie, nullptr, 0);
    ReleaseOp(op);
  }
}

void NbdConnection::QueueReply(std::uint32_t error, std::uint64_t cookie, Op* data_op,
                               std::size_t len) {
  OutItem& it = out_.emplace_back();
  EncodeSimpleReply(it.header, error, cookie);
  it.op = data_op;
  it.payload_len = len;
  if (error != 0) ++stats_.error_replies;
  stats_.bytes_read += len;
  ScheduleFlush();
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
      if (skip < kSimpleReplySize) {
        iov[n++] = {it.header + skip, kSimpleReplySize - skip};
        skip = 0;
      } else {
        skip -= kSimpleReplySize;
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
    const std::size_t hs_take = std::min(left, hs_out_.size() - hs_sent_);
    hs_sent_ += hs_take;
    left -= hs_take;
    while (left > 0) {
      OutItem& it = out_.front();
      const std::size_t remaining = kSimpleReplySize + it.payload_len - out_offset_;
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
