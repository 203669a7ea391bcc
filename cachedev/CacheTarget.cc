// Core of the cache target: construction, dispatch, slots, flush, discard,
// stats, and what the destager sees of the target (DestageCache). The read
// and write paths live in ReadPath.cc and WritePath.cc; the destager is its
// own class (Destager.h).

#include "cachedev/CacheTarget.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>

#include "policies/PolicyRegistry.h"

namespace tierlab {
namespace {

std::string JoinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// With data if the config asks or any child needs buffers.
bool NeedsData(const CacheConfig& cfg, const BlockDevice& origin,
               const std::vector<std::unique_ptr<BlockDevice>>& caches) {
  bool with_data = cfg.with_data || origin.RequiresData();
  for (const auto& c : caches) with_data = with_data || c->RequiresData();
  return with_data;
}

// Recently cleaned lines remembered for ReclaimCleaned (16 bytes each).
constexpr std::size_t kMaxCleaned = 1 << 16;

}  // namespace

Expected<std::unique_ptr<CacheTarget>> CacheTarget::Create(
    Engine& engine, std::string name, std::unique_ptr<BlockDevice> origin,
    std::vector<std::unique_ptr<BlockDevice>> caches, const CacheConfig& config) {
  if (origin == nullptr) return MakeError("origin: missing");
  if (caches.empty()) return MakeError("cache_devices: need at least one cache device");
  for (const auto& c : caches) {
    if (c == nullptr) return MakeError("cache_devices: missing device");
  }
  if (std::string err = config.Validate(); !err.empty()) return MakeError(err);

  std::uint32_t block_size = origin->BlockSize();
  std::uint64_t smallest = UINT64_MAX;
  for (const auto& c : caches) {
    block_size = std::max(block_size, c->BlockSize());
    if (c->Size() <= config.metadata_reserve) {
      return MakeError("metadata_reserve: " + std::to_string(config.metadata_reserve) +
                       " bytes leave no room on cache device '" + c->name() + "'");
    }
    smallest = std::min(smallest, c->Size() - config.metadata_reserve);
  }
  if (config.metadata_reserve % block_size != 0) {
    return MakeError("metadata_reserve: must be a multiple of the block size " +
                     std::to_string(block_size));
  }
  const std::uint64_t ndev = caches.size();
  std::uint64_t line = config.line_size;
  if (line == 0) {
    line = CacheConfig::kMinLineSize;
    while (smallest / line * ndev > CacheConfig::kAutoMaxLines &&
           line < CacheConfig::kMaxLineSize) {
      line *= 2;
    }
  }
  if (line % block_size != 0) {
    return MakeError("line_size: " + std::to_string(line) +
                     " is not a multiple of the block size " + std::to_string(block_size));
  }
  // The run is resolved here, once: the target and a volume's superblock
  // must agree on it.
  CacheConfig resolved = config;
  if (resolved.placement_run == 0)
    resolved.placement_run = SlotPlacement::AutoRun(line, smallest / line);
  const SlotPlacement placement(static_cast<std::uint32_t>(ndev),
                                static_cast<std::uint32_t>(resolved.placement_run));
  const std::uint64_t max_lines = placement.MaxSlots(smallest / line);
  std::uint64_t capacity = config.capacity_lines == 0 ? max_lines : config.capacity_lines;
  if (capacity > max_lines) {
    return MakeError("capacity_lines: " + std::to_string(capacity) +
                     " exceeds what the cache devices hold (" + std::to_string(max_lines) +
                     " lines of " + std::to_string(line) + " bytes)");
  }
  if (capacity == 0) {
    return MakeError("capacity_lines: the cache devices hold no line of " + std::to_string(line) +
                     " bytes");
  }
  if (capacity > LineTable::kMaxSlots) {
    return MakeError("line_size: " + std::to_string(capacity) +
                     " cache lines exceed the limit of " + std::to_string(LineTable::kMaxSlots) +
                     "; use a larger line_size");
  }
  if ((origin->Size() + line - 1) / line > LineTable::kMaxKey) {
    return MakeError("line_size: the origin has more than 2^32 lines of " + std::to_string(line) +
                     " bytes; use a larger line_size");
  }
  auto policy_spec = ParseReplacementSpec(config.policy);
  if (!policy_spec.ok()) return MakeError("policy: " + policy_spec.error().message);
  auto policy = policy_spec->make(capacity, config.seed);
  if (policy == nullptr) return MakeError("policy: too many lines for " + config.policy);
  auto admission_spec = ParseAdmissionSpec(config.promotion);
  if (!admission_spec.ok()) return MakeError("promotion: " + admission_spec.error().message);
  auto admission = admission_spec->make(line);
  auto order = MakeDestageOrder(config.destage_order);
  if (order == nullptr) {
    return MakeError("destage_order: unknown order '" + config.destage_order + "' (" +
                     JoinNames(DestageOrderNames()) + ")");
  }
  return std::unique_ptr<CacheTarget>(
      new CacheTarget(engine, std::move(name), std::move(origin), std::move(caches), resolved, line,
                      static_cast<std::uint32_t>(capacity), std::move(policy), std::move(admission),
                      std::move(order)));
}

CacheTarget::CacheTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> origin,
                         std::vector<std::unique_ptr<BlockDevice>> caches, const CacheConfig& cfg,
                         std::uint64_t line_size, std::uint32_t capacity,
                         std::unique_ptr<ReplacementPolicy> policy,
                         std::unique_ptr<AdmissionPolicy> admission,
                         std::unique_ptr<DestageOrder> order)
    : BlockDevice(engine, std::move(name)),
      origin_(std::move(origin)),
      caches_(std::move(caches)),
      cfg_(cfg),
      line_size_(line_size),
      line_shift_(std::countr_zero(line_size)),
      placement_(static_cast<std::uint32_t>(caches_.size()),
                 static_cast<std::uint32_t>(cfg.placement_run)),
      size_(origin_->Size()),
      with_data_(NeedsData(cfg, *origin_, caches_)),
      policy_(std::move(policy)),
      admission_(std::move(admission)),
      table_(capacity, placement_),
      destager_(engine, *this, DestageSettings::From(cfg), line_size, capacity, size_, with_data_,
                std::move(order)) {
  assert(std::has_single_bit(line_size));  // CacheConfig::Validate
  cfg_.line_size = line_size;
  cfg_.capacity_lines = capacity;
  block_size_ = origin_->BlockSize();
  for (const auto& c : caches_) block_size_ = std::max(block_size_, c->BlockSize());
  cfg_.with_data = with_data_;
  promote_reads_ =
      cfg_.read && cfg_.write != WriteMode::kPassthrough && cfg_.write != WriteMode::kWriteOnly;
  stats_.line_size = line_size_;
  stats_.capacity_lines = capacity;
}

CacheTarget::~CacheTarget() = default;

std::vector<BlockDevice*> CacheTarget::Children() const {
  std::vector<BlockDevice*> v{origin_.get()};
  for (const auto& c : caches_) v.push_back(c.get());
  return v;
}

bool CacheTarget::IsDirty(std::uint64_t line) const {
  const Slot s = table_.Find(line);
  return s != LineTable::kNone && table_.Dirty(s);
}

Slot CacheTarget::DirtySlot(std::uint64_t line) const {
  const Slot s = table_.Find(line);
  return s != LineTable::kNone && table_.Dirty(s) ? s : LineTable::kNone;
}

void CacheTarget::SubmitCache(Slot s, IoOp op, std::uint64_t offset_in_line, std::uint64_t length,
                              std::byte* data, std::uint32_t flags, IoCallback cb) {
  IoRequest r;
  r.op = op;
  r.flags = flags;
  r.offset = SlotOffset(s) + offset_in_line;
  r.length = length;
  r.data = data;
  SlotDevice(s).Submit(r, std::move(cb));
}

void CacheTarget::SubmitOrigin(IoOp op, std::uint64_t offset, std::uint64_t length, std::byte* data,
                               std::uint32_t flags, IoCallback cb) {
  IoRequest r;
  r.op = op;
  r.flags = flags;
  r.offset = offset;
  r.length = length;
  r.data = data;
  origin_->Submit(r, std::move(cb));
}

// ---- Slots -----------------------------------------------------------------

bool CacheTarget::Evictable(void* ctx, Slot s) {
  auto* t = static_cast<CacheTarget*>(ctx);
  if (t->table_.Dirty(s)) return false;
  if (t->sink_ != nullptr && !t->sink_->SlotReusable(s)) return false;
  const std::uint64_t key = t->table_.Key(s);
  return !t->locks_.Locked(key) && !t->admission_->Pinned(key);
}

Slot CacheTarget::AllocSlot(std::uint64_t line) {
  if (!parked_.empty()) ReapParked();
  Slot s = table_.AllocFree(placement_.DeviceOfLine(line));
  if (s != LineTable::kNone) return s;
  const std::optional<Slot> victim = policy_->Evict(EvictFilter{&CacheTarget::Evictable, this});
  if (!victim) return ReclaimCleaned();
  table_.Remove(*victim);
  if (!warming_) ++stats_.evictions;
  return *victim;
}

void CacheTarget::MarkClean(Slot s, std::uint64_t line) {
  table_.SetDirty(s, false);
  policy_->Insert(s, line);  // evictable again, as a line just brought in
  if (sink_ != nullptr) sink_->OnLineClean(s, line);
  cleaned_.push_back({s, line});
  if (cleaned_.size() > std::min<std::size_t>(table_.capacity(), kMaxCleaned)) {
    cleaned_.pop_front();
  }
}

Slot CacheTarget::ReclaimCleaned() {
  // The replacement policy looks at a bounded number of its oldest lines; in
  // a cache full of dirty lines those are all dirty while destage cleans
  // lines elsewhere (LBA order, or lines the policy still finds young), and
  // throttled writes would wait until destage happened to reach them.
  while (!cleaned_.empty()) {
    const Cleaned c = cleaned_.front();
    cleaned_.pop_front();
    // Still that line, clean, unlocked and not pinned.
    if (table_.Find(c.line) != c.slot || !Evictable(this, c.slot)) continue;
    policy_->Remove(c.slot);
    table_.Remove(c.slot);
    if (!warming_) ++stats_.evictions;
    return c.slot;
  }
  return LineTable::kNone;
}

void CacheTarget::MarkDirty(Slot s) {
  if (table_.Dirty(s)) return;
  table_.SetDirty(s, true);
  policy_->Remove(s);  // no-op for a line not yet in the policy (a new one)
  destager_.MarkDirty(table_.Key(s), engine().Now());
  if (sink_ != nullptr) sink_->OnLineDirty(s, table_.Key(s));
}

void CacheTarget::Invalidate(Slot s, bool exclusive) {
  if (table_.Dirty(s)) {
    destager_.Forget(table_.Key(s));
    if (sink_ != nullptr) sink_->OnLineInvalidated(s, table_.Key(s));
  }
  policy_->Remove(s);
  table_.Remove(s);
  if (!warming_) ++stats_.invalidations;
  if (exclusive && (sink_ == nullptr || sink_->SlotReusable(s))) {
    table_.Release(s);
  } else {
    parked_.push_back(s);
  }
}

void CacheTarget::ReapParked() {
  std::size_t keep = 0;
  for (Slot s : parked_) {
    if (locks_.Locked(table_.Key(s)) || (sink_ != nullptr && !sink_->SlotReusable(s))) {
      parked_[keep++] = s;
    } else {
      table_.Release(s);
    }
  }
  parked_.resize(keep);
}

// ---- Requests ----------------------------------------------------------------

CacheTarget::Op* CacheTarget::NewOp() {
  Op* op = ops_.Reuse();
  op->self = this;
  op->next = nullptr;
  return op;
}

void CacheTarget::FreeOp(Op* op) {
  op->plan.clear();
  op->bufs.clear();
  op->buf_base.clear();
  op->status = Status::kOk;
  op->pending = 0;
  op->locked = false;
  op->throttled = false;
  op->no_throttle = false;
  op->counted_in_flight = false;
  op->lock_waited = false;
  op->done = nullptr;
  ops_.Release(op);
}

void CacheTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  // The line lookup's first miss starts now and overlaps the op and lock
  // bookkeeping below (a single request gains nothing from batching).
  if (req.op != IoOp::kFlush) table_.PrefetchBucket(LineOf(req.offset));
  destager_.NoteForeground(engine().Now());
  Op* op = NewOp();
  op->req = req;
  op->done = std::move(done);
  switch (req.op) {
    case IoOp::kFlush: StartFlush(op); return;
    case IoOp::kRead: Lock(op, LineLockMode::kRead); return;
    case IoOp::kWrite:
      destager_.Resume();  // a new write is the signal to retry a failed destage
      Lock(op, WriteLockMode(req));
      return;
    case IoOp::kDiscard: Lock(op, LineLockMode::kExclusive); return;
  }
}

LineLockMode CacheTarget::WriteLockMode(const IoRequest& r) const {
  // A hit is updated in place (kWrite) in every mode but pt and wi, which
  // invalidate it; wa writes an all-resident range through. Residency is
  // checked again once the lock is held (PlanWrite).
  if (cfg_.write == WriteMode::kPassthrough || cfg_.write == WriteMode::kWriteInvalidate) {
    return LineLockMode::kExclusive;
  }
  for (std::uint64_t line = LineOf(r.offset); line <= LineOf(r.end() - 1); ++line) {
    if (table_.Find(line) == LineTable::kNone) return LineLockMode::kExclusive;
  }
  return LineLockMode::kWrite;
}

void CacheTarget::Lock(Op* op, LineLockMode mode) {
  op->first = LineOf(op->req.offset);
  op->last = LineOf(op->req.end() - 1);
  op->lock_mode = mode;
  op->granted = &CacheTarget::OnGranted;
  op->locked = true;
  if (!locks_.Acquire(op)) {
    // Counted once per request, however often it waits (a write that
    // replans after a throttle or a lost hit locks again).
    if (!op->lock_waited) ++stats_.lock_waits;
    op->lock_waited = true;
    op->lock_wait_start = engine().Now();
    return;
  }
  // A write or discard queues behind reads already waiting for the batch:
  // dispatched at once it would overtake them, and in a mix every read
  // would wait for the writes issued after it (docs/VALIDATION.md).
  if (mode == LineLockMode::kRead || !batch_.empty()) {
    QueueDispatch(op);
  } else {
    Dispatch(op);
  }
}

void CacheTarget::PrefetchHint(IoOp op, std::uint64_t offset, int distance) {
  if (offset >= Size()) return;
  const std::uint64_t line = LineOf(offset);
  if (distance >= 2) {
    table_.PrefetchBucket(line);
    if (op == IoOp::kWrite) destager_.PrefetchLine(line);
  } else if (distance == 1) {
    table_.PrefetchChain(line);
  } else if (const Slot s = table_.PrefetchChainNext(line); s != LineTable::kNone) {
    policy_->Prefetch(s);
  }
}

void CacheTarget::QueueDispatch(Op* op) {
  batch_.push_back(op);
  if (batch_.size() == 1) engine().Defer([this] { DispatchBatch(); });
}

void CacheTarget::DispatchBatch() {
  // Swap out first: an op queued while this batch runs starts a new batch.
  batch_scratch_.swap(batch_);
  const std::size_t n = batch_scratch_.size();
  for (std::size_t base = 0; base < n; base += LineTable::kWarmBatch) {
    const std::size_t m = std::min(LineTable::kWarmBatch, n - base);
    std::array<std::uint64_t, LineTable::kWarmBatch> keys;
    for (std::size_t i = 0; i < m; ++i) keys[i] = batch_scratch_[base + i]->first;
    if (m > 1) table_.WarmChains(keys.data(), m);  // alone, Find does the same walk
    for (std::size_t i = 0; i < m; ++i) Dispatch(batch_scratch_[base + i]);
  }
  batch_scratch_.clear();
}

void CacheTarget::OnGranted(LockWaiter* w) {
  Op* op = static_cast<Op*>(w);
  CacheTarget* self = op->self;
  const Nanos waited = self->engine().Now() - op->lock_wait_start;
  self->stats_.lock_wait_ns += waited;
  self->stats_.lock_wait_max_ns = std::max(self->stats_.lock_wait_max_ns, waited);
  self->engine().Post([op] { op->self->Dispatch(op); });
}

void CacheTarget::Dispatch(Op* op) {
  switch (op->req.op) {
    case IoOp::kRead: ReadLocked(op); return;
    case IoOp::kWrite: WriteLocked(op); return;
    case IoOp::kDiscard: DiscardLocked(op); return;
    case IoOp::kFlush: return;  // never locked
  }
}

void CacheTarget::OnSubDone(Op* op, Status st) {
  if (st != Status::kOk && op->status == Status::kOk) op->status = st;
  if (--op->pending != 0) return;
  switch (op->phase) {
    case kPhaseRead: ReadForegroundDone(op); return;
    case kPhaseFill:
      // The request was acknowledged already; only the locks remain.
      locks_.Release(op);
      FreeOp(op);
      return;
    case kPhaseFlush:
    case kPhaseDiscard: Complete(op); return;
    case kPhaseWriteFill: WriteIoPhase(op); return;
    case kPhaseWriteIo: WriteIoDone(op); return;
    case kPhaseWriteFallback: WriteCommit(op); return;
  }
}

void CacheTarget::Complete(Op* op) {
  IoCallback done = std::move(op->done);
  const Status st = op->status;
  if (op->locked) locks_.Release(op);
  FreeOp(op);
  Finish(done, st);
}

void CacheTarget::StartFlush(Op* op) {
  op->phase = kPhaseFlush;
  op->pending = 1;
  if (sink_ != nullptr) {
    ++op->pending;  // the sink flushes the cache devices, then commits
    sink_->Commit([op](Status st) { op->self->OnSubDone(op, st); });
  }
  for (std::size_t i = 0; i < caches_.size() && sink_ == nullptr; ++i) {
    ++op->pending;
    IoRequest r;
    r.op = IoOp::kFlush;
    caches_[i]->Submit(r, [op](Status st) { op->self->OnSubDone(op, st); });
  }
  // Write-back keeps acknowledged writes on the cache devices; the origin
  // needs a flush only for what was written to it directly. (Destage writes
  // are flushed before their lines turn clean.)
  if (!KeepsDirtyLines(cfg_.write) || origin_unflushed_) {
    origin_unflushed_ = false;
    ++op->pending;
    SubmitOrigin(IoOp::kFlush, 0, 0, nullptr, 0, [op](Status st) { op->self->OnSubDone(op, st); });
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::DiscardLocked(Op* op) {
  const IoRequest& r = op->req;
  bool freed = false;
  for (std::uint64_t line = op->first; line <= op->last; ++line) {
    const Slot s = table_.Find(line);
    if (s == LineTable::kNone) continue;
    const bool whole = r.offset <= LineStart(line) && r.end() >= LineEnd(line);
    // A dirty line only partly discarded keeps its other bytes; the discarded
    // ones may read back old (never newer) data, which discard allows.
    if (whole || !table_.Dirty(s)) {
      Invalidate(s, true);
      freed = true;
    }
  }
  op->phase = kPhaseDiscard;
  op->pending = 1;
  // The origin's discard (a hole punched in a file) is durable only after an
  // origin flush: without it a machine crash could bring back data older
  // than the discarded line's last flushed version.
  origin_unflushed_ = true;
  SubmitOrigin(IoOp::kDiscard, r.offset, r.length, nullptr, 0,
               [op](Status st) { op->self->OnSubDone(op, st); });
  if (freed) WakeThrottled();
}

std::string CacheTarget::DebugString() const {
  return "resident=" + std::to_string(table_.resident()) +
         " dirty=" + std::to_string(table_.dirty()) + " free=" + std::to_string(table_.free()) +
         " parked=" + std::to_string(parked_.size()) +
         " throttled=" + std::to_string(throttled_count_) +
         " wb_in_flight=" + std::to_string(wb_writes_in_flight_) +
         " locks=" + std::to_string(locks_.entries()) + " " + destager_.DebugString();
}

// ---- Stats -------------------------------------------------------------------

CacheStats CacheTarget::cache_stats() const {
  CacheStats s = stats_;
  s.dirty_lines = table_.dirty();
  s.clean_lines = table_.resident() - table_.dirty();
  s.free_lines = table_.free();
  s.destage_ops = destager_.counters().ops;
  s.destaged_bytes = destager_.counters().bytes;
  s.destage_errors = destager_.counters().errors;
  s.destage_rewritten = destager_.counters().rewritten;
  const std::int64_t oldest = destager_.OldestDirtyNs();
  s.dirty_age_ns = oldest < 0 ? 0 : engine().Now() - oldest;
  s.cache_device_write_bytes.clear();
  for (const auto& c : caches_) s.cache_device_write_bytes.push_back(c->stats().write_bytes);
  s.metadata_bytes_per_line =
      static_cast<double>(table_.MemoryBytes() + policy_->MemoryBytes()) / table_.capacity();
  return s;
}

}  // namespace tierlab
