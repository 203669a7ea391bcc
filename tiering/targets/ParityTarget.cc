#include "tiering/targets/ParityTarget.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tierlab {
namespace {

constexpr std::size_t kMaxMembers = 256;  // GF(2^8)

void XorInto(std::byte* dst, const std::byte* src, std::size_t len) {
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    std::uint64_t a;
    std::uint64_t b;
    std::memcpy(&a, dst + i, 8);
    std::memcpy(&b, src + i, 8);
    a ^= b;
    std::memcpy(dst + i, &a, 8);
  }
  for (; i < len; ++i) dst[i] ^= src[i];
}

}  // namespace

ParityTarget::ParityTarget(Engine& engine, std::string name,
                           std::vector<std::unique_ptr<BlockDevice>> children, int parity,
                           std::uint64_t chunk_bytes)
    : FanOutTarget(engine, std::move(name), std::move(children)),
      k_(static_cast<int>(children_.size()) - parity),
      m_(parity),
      chunk_(chunk_bytes),
      code_(k_, m_),
      state_(children_.size(), MemberState::kActive) {
  // k >= 2: with one data chunk the "parity" would be a mirror.
  if (m_ < 1 || m_ > 3 || k_ < 2 || children_.size() > kMaxMembers || chunk_ == 0 ||
      chunk_ % max_block_size_ != 0 || !code_.valid()) {
    return;  // size 0: every request but flush fails EINVAL
  }
  std::uint64_t per_child = std::numeric_limits<std::uint64_t>::max();
  for (const auto& c : children_) per_child = std::min(per_child, c->Size());
  stripes_ = per_child / chunk_;
  stripe_data_ = static_cast<std::uint64_t>(k_) * chunk_;
  size_ = stripes_ * stripe_data_;
}

ParityTarget::~ParityTarget() = default;

std::string ParityTarget::Kind() const {
  switch (m_) {
    case 1: return "raid5";
    case 2: return "raid6";
    default: return "raid-tp";
  }
}

std::size_t ParityTarget::MemberOf(std::uint64_t stripe, int role) const {
  const std::uint64_t n = children_.size();
  const std::uint64_t first_parity = n - 1 - stripe % n;
  const std::uint64_t pos =
      role < k_ ? static_cast<std::uint64_t>(m_ + role) : static_cast<std::uint64_t>(role - k_);
  return static_cast<std::size_t>((first_parity + pos) % n);
}

int ParityTarget::RoleOf(std::uint64_t stripe, std::size_t member) const {
  const std::uint64_t n = children_.size();
  const std::uint64_t first_parity = n - 1 - stripe % n;
  const int pos = static_cast<int>((member + n - first_parity) % n);
  return pos < m_ ? k_ + pos : pos - m_;
}

std::size_t ParityTarget::UsableCount(std::uint64_t stripe) const {
  std::size_t c = 0;
  for (std::size_t i = 0; i < children_.size(); ++i) c += Usable(i, stripe) ? 1 : 0;
  return c;
}

std::size_t ParityTarget::failed_members() const {
  return static_cast<std::size_t>(std::count_if(
      state_.begin(), state_.end(), [](MemberState s) { return s != MemberState::kActive; }));
}

void ParityTarget::FailMember(std::size_t i) {
  if (i >= state_.size() || state_[i] == MemberState::kFailed) return;
  // A rebuilding member turns failed; the rebuild sees it at its next step.
  state_[i] = MemberState::kFailed;
  ++stats_.member_failures;
}

void ParityTarget::MemberError(std::size_t member, Status st) {
  // Only a medium error says the member is bad; kInvalid and kShutdown say
  // something about the request or the process, and are passed up instead.
  if (st == Status::kIoError) FailMember(member);
}

// ---- Dispatch ---------------------------------------------------------------

void ParityTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  switch (req.op) {
    case IoOp::kFlush: SubmitFlush(req, std::move(done)); return;
    case IoOp::kDiscard: FinishAsync(std::move(done), Status::kNotSupported); return;
    case IoOp::kRead: SubmitRead(StartSplit(std::move(done)), req); return;
    case IoOp::kWrite: break;
  }
  SplitIo* s = StartSplit(std::move(done));
  std::uint64_t off = req.offset;
  std::uint64_t left = req.length;
  while (left > 0) {
    const std::uint64_t stripe = off / stripe_data_;
    const std::uint64_t a = off % stripe_data_;
    const std::uint64_t len = std::min(left, stripe_data_ - a);
    StartOp(s, IoOp::kWrite, req.flags, stripe, a, a + len,
            req.data != nullptr ? req.data + (off - req.offset) : nullptr);
    off += len;
    left -= len;
  }
}

void ParityTarget::SubmitFlush(const IoRequest& req, IoCallback done) {
  SplitIo* s = StartSplit(std::move(done));
  ++s->remaining;  // held until every member's flush is sent
  for (std::size_t i = 0; i < children_.size(); ++i) {
    if (state_[i] == MemberState::kFailed) continue;
    ++s->remaining;
    children_[i]->Submit(req, [this, s, i](Status st) {
      if (st == Status::kIoError) {
        // The member is failed; what it held is recoverable from the others,
        // whose flushes make it durable, while the array has members enough.
        MemberError(i, st);
        st = failed_members() > static_cast<std::size_t>(m_) ? Status::kIoError : Status::kOk;
      }
      ChildDone(s, st);
    });
  }
  engine().Post([this, s] { ChildDone(s, Status::kOk); });
}

void ParityTarget::SubmitRead(SplitIo* s, const IoRequest& req) {
  std::uint64_t off = req.offset;
  std::uint64_t left = req.length;
  while (left > 0) {
    const std::uint64_t stripe = off / stripe_data_;
    const std::uint64_t a = off % stripe_data_;
    const std::uint64_t b = a + std::min(left, stripe_data_ - a);
    std::byte* data = req.data != nullptr ? req.data + (off - req.offset) : nullptr;
    bool direct = true;
    for (std::uint64_t d = a / chunk_; d <= (b - 1) / chunk_; ++d) {
      direct = direct && Usable(MemberOf(stripe, static_cast<int>(d)), stripe);
    }
    if (!direct) {
      StartOp(s, IoOp::kRead, 0, stripe, a, b, data);
    } else {
      // One child read per chunk, as a stripe target reads.
      for (std::uint64_t x = a; x < b;) {
        const std::uint64_t len = std::min(b - x, chunk_ - x % chunk_);
        SubmitPlainRead(s, stripe * stripe_data_ + x, len,
                        data != nullptr ? data + (x - a) : nullptr);
        x += len;
      }
    }
    off += b - a;
    left -= b - a;
  }
}

void ParityTarget::SubmitPlainRead(SplitIo* s, std::uint64_t offset, std::uint64_t length,
                                   std::byte* data) {
  const std::uint64_t stripe = offset / stripe_data_;
  const std::uint64_t x = offset % stripe_data_;
  const std::size_t member = MemberOf(stripe, static_cast<int>(x / chunk_));
  ++s->remaining;
  children_[member]->Submit({IoOp::kRead, 0, stripe * chunk_ + x % chunk_, length, data},
                            [this, s, offset, length, data](Status st) {
                              if (st != Status::kIoError) {
                                ChildDone(s, st);
                                return;
                              }
                              // The member failed under the read: fail it and reconstruct the
                              // piece instead. The op takes the piece's place in the parent.
                              const std::uint64_t stripe = offset / stripe_data_;
                              const std::uint64_t a = offset % stripe_data_;
                              MemberError(MemberOf(stripe, static_cast<int>(a / chunk_)), st);
                              StartOp(s, IoOp::kRead, 0, stripe, a, a + length, data);
                              ChildDone(s, Status::kOk);
                            });
}

// ---- Stripe ops ---------------------------------------------------------------

void ParityTarget::StartOp(SplitIo* s, IoOp op_kind, std::uint32_t flags, std::uint64_t stripe,
                           std::uint64_t a, std::uint64_t b, std::byte* data) {
  StripeOp* op = ops_.Reuse();  // keeps its scratch buffer's capacity
  op->parent = s;
  op->op = op_kind;
  op->flags = flags;
  op->stripe = stripe;
  op->a = a;
  op->b = b;
  op->data = data;
  op->attempts = 0;
  ++s->remaining;
  if (locks_.Acquire(stripe, [this, op] { RunOp(op); })) RunOp(op);
}

void ParityTarget::Columns(const StripeOp& op, int d, std::uint64_t* lo, std::uint64_t* hi) const {
  const std::uint64_t start = static_cast<std::uint64_t>(d) * chunk_;
  const std::uint64_t from = std::max(op.a, start);
  const std::uint64_t to = std::min(op.b, start + chunk_);
  if (from >= to) {
    *lo = *hi = 0;
    return;
  }
  *lo = from - start;
  *hi = to - start;
}

std::byte* ParityTarget::Slot(StripeOp& op, int role) const {
  return op.scratch.data() + static_cast<std::size_t>(role) * (op.p1 - op.p0);
}

void ParityTarget::RunOp(StripeOp* op) {
  op->status = Status::kOk;
  op->retry = false;
  op->writing = false;
  op->pending = 0;
  op->sources.clear();
  op->wanted.clear();
  if (op->op == IoOp::kWrite) {
    PlanWrite(op);
  } else {
    PlanRead(op);
  }
}

bool ParityTarget::ChooseSources(StripeOp* op) {
  // Data first: a surviving data chunk is read anyway and decodes for free.
  for (int role = 0; role < k_ + m_ && static_cast<int>(op->sources.size()) < k_; ++role) {
    if (Usable(MemberOf(op->stripe, role), op->stripe)) op->sources.push_back(role);
  }
  return static_cast<int>(op->sources.size()) == k_;
}

void ParityTarget::PlanWrite(StripeOp* op) {
  const std::uint64_t stripe = op->stripe;
  if (UsableCount(stripe) < static_cast<std::size_t>(k_)) {
    ++stats_.unavailable;
    FailOpAsync(op, Status::kIoError);
    return;
  }
  op->p0 = chunk_;
  op->p1 = 0;
  for (int d = static_cast<int>(op->a / chunk_); d <= static_cast<int>((op->b - 1) / chunk_); ++d) {
    std::uint64_t lo;
    std::uint64_t hi;
    Columns(*op, d, &lo, &hi);
    op->p0 = std::min(op->p0, lo);
    op->p1 = std::max(op->p1, hi);
  }
  const std::uint64_t len = op->p1 - op->p0;
  // Reads each way. A touched chunk's bytes in P that the request does not
  // replace are one run (the request is contiguous in the stripe), so each
  // data chunk costs reconstruct-write at most one read.
  bool rmw_ok = true;
  bool rcw_ok = true;
  bool any_parity = false;
  std::uint64_t rmw_reads = 0, rmw_bytes = 0, rcw_reads = 0, rcw_bytes = 0;
  for (int j = 0; j < m_; ++j) {
    if (!Usable(MemberOf(stripe, k_ + j), stripe)) continue;
    any_parity = true;
    ++rmw_reads;
    rmw_bytes += len;
  }
  for (int d = 0; d < k_; ++d) {
    std::uint64_t lo;
    std::uint64_t hi;
    Columns(*op, d, &lo, &hi);
    const bool usable = Usable(MemberOf(stripe, d), stripe);
    if (hi > lo) {
      rmw_ok = rmw_ok && usable;
      ++rmw_reads;
      rmw_bytes += hi - lo;
    }
    const std::uint64_t missing = len - (hi - lo);
    if (missing > 0) {
      rcw_ok = rcw_ok && usable;
      ++rcw_reads;
      rcw_bytes += missing;
    }
  }
  if (!any_parity) {
    op->plan = Plan::kDataOnly;
  } else if (op->a == 0 && op->b == stripe_data_) {
    op->plan = Plan::kFull;
  } else if (rmw_ok && (!rcw_ok || rmw_reads < rcw_reads ||
                        (rmw_reads == rcw_reads && rmw_bytes < rcw_bytes))) {
    op->plan = Plan::kRmw;
  } else if (rcw_ok) {
    op->plan = Plan::kRcw;
  } else {
    op->plan = Plan::kDegraded;
  }

  const bool with_data = op->data != nullptr;
  if (with_data && op->plan != Plan::kDataOnly) {
    const std::size_t need = static_cast<std::size_t>(k_ + m_) * len;
    if (op->scratch.size() < need) op->scratch = AlignedBuffer(need);
  }
  switch (op->plan) {
    case Plan::kRmw:
      for (int d = 0; d < k_; ++d) {
        std::uint64_t lo;
        std::uint64_t hi;
        Columns(*op, d, &lo, &hi);
        if (hi > lo) OpRead(op, d, lo, hi, with_data ? Slot(*op, d) + (lo - op->p0) : nullptr);
      }
      for (int j = 0; j < m_; ++j) {
        if (Usable(MemberOf(stripe, k_ + j), stripe)) {
          OpRead(op, k_ + j, op->p0, op->p1, with_data ? Slot(*op, k_ + j) : nullptr);
        }
      }
      break;
    case Plan::kRcw:
      for (int d = 0; d < k_; ++d) {
        std::uint64_t lo;
        std::uint64_t hi;
        Columns(*op, d, &lo, &hi);
        if (hi - lo == len) continue;
        // The unreplaced run: before the request's bytes or after them.
        const std::uint64_t from = hi > lo && lo == op->p0 ? hi : op->p0;
        const std::uint64_t to = hi > lo && lo > op->p0 ? lo : op->p1;
        OpRead(op, d, from, to, with_data ? Slot(*op, d) + (from - op->p0) : nullptr);
      }
      break;
    case Plan::kDegraded:
      ChooseSources(op);  // k exist: checked above
      for (int d = 0; d < k_; ++d) {
        if (!Usable(MemberOf(stripe, d), stripe)) op->wanted.push_back(d);
      }
      for (int role : op->sources) {
        OpRead(op, role, op->p0, op->p1, with_data ? Slot(*op, role) : nullptr);
      }
      break;
    default: break;  // kFull and kDataOnly read nothing
  }
  if (op->pending == 0) ReadsDone(op);
}

void ParityTarget::PlanRead(StripeOp* op) {
  const std::uint64_t stripe = op->stripe;
  op->plan = Plan::kRead;
  op->p0 = chunk_;
  op->p1 = 0;
  for (int d = static_cast<int>(op->a / chunk_); d <= static_cast<int>((op->b - 1) / chunk_); ++d) {
    if (Usable(MemberOf(stripe, d), stripe)) continue;
    std::uint64_t lo;
    std::uint64_t hi;
    Columns(*op, d, &lo, &hi);
    op->wanted.push_back(d);
    op->p0 = std::min(op->p0, lo);
    op->p1 = std::max(op->p1, hi);
  }
  if (!op->wanted.empty() && !ChooseSources(op)) {
    ++stats_.unavailable;
    op->wanted.clear();
    FailOpAsync(op, Status::kIoError);
    return;
  }
  const bool with_data = op->data != nullptr;
  // The chunks still there are read as a plain read would read them.
  for (int d = static_cast<int>(op->a / chunk_); d <= static_cast<int>((op->b - 1) / chunk_); ++d) {
    if (!Usable(MemberOf(stripe, d), stripe)) continue;
    std::uint64_t lo;
    std::uint64_t hi;
    Columns(*op, d, &lo, &hi);
    OpRead(op, d, lo, hi,
           with_data ? op->data + (static_cast<std::uint64_t>(d) * chunk_ + lo - op->a) : nullptr);
  }
  if (!op->wanted.empty()) {
    if (with_data) {
      const std::size_t need = static_cast<std::size_t>(k_ + m_) * (op->p1 - op->p0);
      if (op->scratch.size() < need) op->scratch = AlignedBuffer(need);
    }
    for (int role : op->sources) {
      OpRead(op, role, op->p0, op->p1, with_data ? Slot(*op, role) : nullptr);
    }
  }
  // Always at least one read: the op exists because a chunk needs decoding.
  if (op->pending == 0) FailOpAsync(op, Status::kOk);
}

void ParityTarget::OpRead(StripeOp* op, int role, std::uint64_t lo, std::uint64_t hi,
                          std::byte* dst) {
  const std::size_t member = MemberOf(op->stripe, role);
  ++op->pending;
  children_[member]->Submit({IoOp::kRead, 0, op->stripe * chunk_ + lo, hi - lo, dst},
                            [this, op, member](Status st) { OpChildDone(op, member, st); });
}

void ParityTarget::OpWrite(StripeOp* op, int role, std::uint64_t lo, std::uint64_t hi,
                           std::byte* src) {
  const std::size_t member = MemberOf(op->stripe, role);
  ++op->pending;
  children_[member]->Submit({IoOp::kWrite, op->flags, op->stripe * chunk_ + lo, hi - lo, src},
                            [this, op, member](Status st) { OpChildDone(op, member, st); });
}

void ParityTarget::OpChildDone(StripeOp* op, std::size_t member, Status st) {
  if (st == Status::kIoError) {
    MemberError(member, st);
    op->retry = true;
  } else if (st != Status::kOk && op->status == Status::kOk) {
    op->status = st;
  }
  if (--op->pending > 0) return;
  if (op->writing) {
    FinishOp(op);
  } else {
    ReadsDone(op);
  }
}

void ParityTarget::ReadsDone(StripeOp* op) {
  if (op->status != Status::kOk) {
    FinishOp(op);
    return;
  }
  if (op->retry) {
    // A member failed under the reads: plan the stripe again without it,
    // still holding the lock. Each retry has one member less, so this ends.
    if (++op->attempts > children_.size()) {
      op->status = Status::kIoError;
      FinishOp(op);
      return;
    }
    RunOp(op);
    return;
  }
  if (op->data != nullptr) Compute(op);
  if (op->op == IoOp::kRead || op->status != Status::kOk) {
    FinishOp(op);
    return;
  }
  IssueWrites(op);
}

void ParityTarget::Compute(StripeOp* op) {
  // Nothing to compute, and no scratch to point into.
  if (op->plan == Plan::kDataOnly || (op->plan == Plan::kRead && op->wanted.empty())) return;
  const std::uint64_t len = op->p1 - op->p0;
  std::byte* data_slots[kMaxMembers];
  std::byte* parity_slots[3];
  for (int d = 0; d < k_; ++d) data_slots[d] = Slot(*op, d);
  for (int j = 0; j < m_; ++j) parity_slots[j] = Slot(*op, k_ + j);
  const std::span<std::byte* const> data(data_slots, static_cast<std::size_t>(k_));
  const std::span<std::byte* const> parity(parity_slots, static_cast<std::size_t>(m_));

  if (op->plan == Plan::kRead || op->plan == Plan::kDegraded) {
    std::byte* src[kMaxMembers];
    std::byte* out[kMaxMembers];
    for (std::size_t i = 0; i < op->sources.size(); ++i) src[i] = Slot(*op, op->sources[i]);
    for (std::size_t i = 0; i < op->wanted.size(); ++i) out[i] = Slot(*op, op->wanted[i]);
    if (!op->wanted.empty() &&
        !code_.Decode(len, op->sources, std::span<std::byte* const>(src, op->sources.size()),
                      op->wanted, std::span<std::byte* const>(out, op->wanted.size()))) {
      op->status = Status::kIoError;  // never wrong data
      return;
    }
    if (op->plan == Plan::kRead) {
      for (int d : op->wanted) {
        std::uint64_t lo;
        std::uint64_t hi;
        Columns(*op, d, &lo, &hi);
        std::memcpy(op->data + (static_cast<std::uint64_t>(d) * chunk_ + lo - op->a),
                    Slot(*op, d) + (lo - op->p0), hi - lo);
      }
      return;
    }
  }
  switch (op->plan) {
    case Plan::kRmw:
      for (int d = 0; d < k_; ++d) {
        std::uint64_t lo;
        std::uint64_t hi;
        Columns(*op, d, &lo, &hi);
        if (hi == lo) continue;
        std::byte* delta = Slot(*op, d) + (lo - op->p0);
        XorInto(delta, op->data + (static_cast<std::uint64_t>(d) * chunk_ + lo - op->a), hi - lo);
        std::byte* at[3];
        for (int j = 0; j < m_; ++j) at[j] = parity_slots[j] + (lo - op->p0);
        code_.Update(hi - lo, d, delta,
                     std::span<std::byte* const>(at, static_cast<std::size_t>(m_)));
      }
      break;
    case Plan::kRcw:
    case Plan::kFull:
    case Plan::kDegraded:
      for (int d = 0; d < k_; ++d) {
        std::uint64_t lo;
        std::uint64_t hi;
        Columns(*op, d, &lo, &hi);
        if (hi == lo) continue;
        std::memcpy(Slot(*op, d) + (lo - op->p0),
                    op->data + (static_cast<std::uint64_t>(d) * chunk_ + lo - op->a), hi - lo);
      }
      code_.Encode(len, data, parity);
      break;
    default: break;
  }
}

void ParityTarget::IssueWrites(StripeOp* op) {
  op->writing = true;
  const bool with_data = op->data != nullptr;
  for (int d = 0; d < k_; ++d) {
    std::uint64_t lo;
    std::uint64_t hi;
    Columns(*op, d, &lo, &hi);
    if (hi == lo || !Usable(MemberOf(op->stripe, d), op->stripe)) continue;
    OpWrite(op, d, lo, hi,
            with_data ? op->data + (static_cast<std::uint64_t>(d) * chunk_ + lo - op->a) : nullptr);
  }
  if (op->plan != Plan::kDataOnly) {
    for (int j = 0; j < m_; ++j) {
      if (!Usable(MemberOf(op->stripe, k_ + j), op->stripe)) continue;
      OpWrite(op, k_ + j, op->p0, op->p1, with_data ? Slot(*op, k_ + j) : nullptr);
    }
  }
  if (op->pending == 0) FailOpAsync(op, Status::kOk);  // nothing left to write to
}

void ParityTarget::FailOpAsync(StripeOp* op, Status st) {
  op->status = st;
  op->writing = true;
  engine().Post([this, op] { FinishOp(op); });
}

void ParityTarget::FinishOp(StripeOp* op) {
  Status st = op->status;
  if (op->op == IoOp::kWrite && st == Status::kOk &&
      UsableCount(op->stripe) < static_cast<std::size_t>(k_)) {
    // Members failed under the writes: the stripe can no longer be read
    // back whole, so the write did not happen as far as the caller knows.
    ++stats_.unavailable;
    st = Status::kIoError;
  }
  if (op->op == IoOp::kWrite && st == Status::kOk) {
    switch (op->plan) {
      case Plan::kFull: ++stats_.full_stripe_writes; break;
      case Plan::kRmw: ++stats_.rmw_writes; break;
      case Plan::kRcw: ++stats_.reconstruct_writes; break;
      case Plan::kDegraded:
      case Plan::kDataOnly: ++stats_.degraded_writes; break;
      default: break;
    }
  } else if (op->op == IoOp::kRead && st == Status::kOk && !op->wanted.empty()) {
    ++stats_.degraded_reads;
  }
  SplitIo* parent = op->parent;
  const std::uint64_t stripe = op->stripe;
  ops_.Release(op);
  locks_.Release(stripe);  // may start the next op of this stripe
  ChildDone(parent, st);
}

// ---- Warm ---------------------------------------------------------------------

std::uint64_t ParityTarget::WarmImpl(const IoRequest& req) {
  if ((req.op != IoOp::kRead && req.op != IoOp::kWrite) || size_ == 0) return 0;
  std::uint64_t placed = 0;
  for (std::uint64_t off = req.offset; off < req.end();) {
    const std::uint64_t stripe = off / stripe_data_;
    const std::uint64_t x = off % stripe_data_;
    const std::uint64_t len = std::min(req.end() - off, chunk_ - x % chunk_);
    IoRequest piece{req.op, req.flags, stripe * chunk_ + x % chunk_, len, nullptr};
    placed += children_[MemberOf(stripe, static_cast<int>(x / chunk_))]->Warm(piece);
    if (req.op == IoOp::kWrite) {
      for (int j = 0; j < m_; ++j) placed += children_[MemberOf(stripe, k_ + j)]->Warm(piece);
    }
    off += len;
  }
  return placed;
}

}  // namespace tierlab
