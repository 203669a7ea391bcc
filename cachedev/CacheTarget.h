#pragma once
// The cache target (dm-cache / Open CAS style): a BlockDevice over one origin
// and one or more cache devices. Volume lines map to slots on the cache
// devices (placed in runs, SlotPlacement.h); a read hit is served from the cache, a
// miss from the origin and then promoted; writes follow the write mode
// (CacheConfig.h); write-back lines are destaged under watermarks, on idle,
// and on Drain(). The full semantics are in docs/CACHE.md.
//
// Coherence: every request locks the lines it touches (LineLocks.h), held
// until the request's cache state is settled (a read holds its locks until
// its promotion fills are written). The modes order only what must be
// ordered: reads (kRead) never wait for hits or destage; a write whose lines
// are all resident and stay in place (kWrite) waits only for an earlier write
// of the same line; write misses, writes that invalidate and discards
// (kExclusive) wait for everyone. So a fill never installs data older than an
// acknowledged write (a write miss waits for the fill; a fill whose line saw
// a write meanwhile is dropped by its write generation), a destage never
// cleans a line rewritten under it (the generation again), and a slot is
// never reused while any I/O to it is in flight (a locked line is not
// evicted, and a slot invalidated while others hold its line is parked until
// nobody does). Flush takes no lock.
//
// Data modes: timing-only (requests without buffers; fills and destage carry
// none, nothing is allocated per hit) or with data (CacheConfig::with_data,
// or any child requiring data): internal reads and writes use aligned
// buffers and every read returns the newest acknowledged data.
//
// Failure: a cache-device read error on a clean line re-reads the origin and
// drops the line; on a dirty line the request fails with kIoError (never
// stale data). A cache-device write error in write-through/-around drops the
// line and the origin result decides; in write-back a new or clean line is
// written to the origin instead, a dirty one fails the request. Origin errors
// propagate. Writes never fail for lack of space: they wait for destage
// (throttle) or, when nothing is dirty, bypass to the origin.
//
// Ownership: owns the origin and the cache devices. Threading: the engine's
// thread only. Time: engine().Now() and engine timers only.

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cachedev/CacheConfig.h"
#include "cachedev/CacheMetadataSink.h"
#include "cachedev/CacheStats.h"
#include "cachedev/DestageCache.h"
#include "cachedev/Destager.h"
#include "cachedev/LineLocks.h"
#include "cachedev/LineTable.h"
#include "cachedev/SlotPlacement.h"
#include "policies/AdmissionPolicy.h"
#include "policies/DestageOrder.h"
#include "policies/ReplacementPolicy.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/BlockDevice.h"
#include "tiering/core/Expected.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

class CacheTarget final : public BlockDevice, private DestageCache {
 public:
  // Validates `config` against the devices and builds the target. Errors name
  // the config field ("policy: unknown policy 'x' (lru, fifo)").
  static Expected<std::unique_ptr<CacheTarget>> Create(
      Engine& engine, std::string name, std::unique_ptr<BlockDevice> origin,
      std::vector<std::unique_ptr<BlockDevice>> caches, const CacheConfig& config);
  ~CacheTarget() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override { return with_data_; }
  std::vector<BlockDevice*> Children() const override;
  std::string Kind() const override { return "cache"; }

  // Destages every dirty line (ignoring watermarks) and calls `done` when none
  // is left, with kIoError if a destage failed on the way. `progress` (may be
  // empty) gets the dirty bytes remaining after each destage operation.
  // Writes that arrive meanwhile are accepted and drained too. A Drain while
  // one runs joins it: every caller's `done` is called; the newest `progress`
  // replaces the previous one.
  void Drain(std::function<void(std::uint64_t dirty_bytes)> progress,
             std::function<void(Status)> done) {
    destager_.Drain(std::move(progress), std::move(done));
  }

  CacheStats cache_stats() const;
  // The effective configuration (line size and capacity resolved).
  const CacheConfig& config() const { return cfg_; }
  // Which read misses may be promoted, by the byte offset of the line in the
  // volume (on top of `read` and the admission policy): a cache bound to
  // capacity devices of several media caches reads only of lines on some of
  // them, as Storage Spaces Direct caches reads for HDDs but not for SSDs.
  // Empty (the default): every line. Set before the first request.
  using ReadPromotionFilter = std::function<bool(std::uint64_t offset)>;
  void SetReadPromotionFilter(ReadPromotionFilter filter) { read_filter_ = std::move(filter); }
  std::uint64_t line_size() const { return line_size_; }
  std::uint64_t capacity_lines() const { return table_.capacity(); }
  // Slots per run on each cache device (SlotPlacement.h), resolved.
  std::uint32_t placement_run() const { return placement_.run(); }
  BlockDevice& origin() const { return *origin_; }
  BlockDevice& cache_device(std::size_t i) const { return *caches_[i]; }
  std::size_t cache_device_count() const { return caches_.size(); }
  // For tests and reports: residency and dirtiness of a volume line.
  bool IsResident(std::uint64_t line) const { return table_.Find(line) != LineTable::kNone; }
  bool IsDirty(std::uint64_t line) const;
  // Promotion writes to the cache devices in flight now (never more than
  // CacheConfig::promotion_concurrency when that is set).
  std::uint32_t promotions_in_flight() const { return promotions_in_flight_; }

  // Persistent metadata (CacheMetadataSink.h): `sink` (not owned, may be
  // null; set before the first request) sees every dirty/clean transition,
  // gates slot reuse, and performs the cache-device part of every flush.
  void SetMetadataSink(CacheMetadataSink* sink) { sink_ = sink; }
  // Recovery, before any request: installs (slot, volume line) pairs as dirty
  // lines. kInvalid (nothing installed) if the cache is not empty, a slot or
  // line is out of range, or one appears twice. Defined in CacheRestore.cc.
  Status RestoreDirtyLines(const std::vector<std::pair<Slot, std::uint64_t>>& lines);
  // The sink calls this when a commit made slots reusable: throttled writers
  // replan.
  void OnMetadataCommitted() { WakeThrottled(); }
  // Distance 2: prefetch the line's bucket head (and, for a write, its entry
  // in the destage order's dirty-line map); distance 1: read the head
  // (fetched by then) and prefetch the first slot word of its chain;
  // distance 0: read that word, and prefetch the next one of the chain, or,
  // when it holds the line, the replacement policy's entry of its slot.
  void PrefetchHint(IoOp op, std::uint64_t offset, int distance) override;
  // Internal queue state in one line, for diagnosing a stuck run.
  std::string DebugString() const;

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // A line resident in the cache (clean or dirty) is data; the rest is what
  // the origin answers, since that is where a read of it goes. Examines at
  // most 64 Ki lines per query (a prefix answer), or the whole line table
  // in one pass when it is smaller than 4 Mi slots. CacheAllocation.cc.
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;
  // Functional warming (BlockDevice::Warm; CacheWarm.cc): the read and
  // write paths' decisions (lookups, replacement, admission, the six write
  // modes, dirty lines) applied at once, destage keeping up to the low
  // watermark, misses and destage passed to the origin's Warm. Not counted
  // in cache_stats(), which describe the timed run.
  std::uint64_t WarmImpl(const IoRequest& req) override;
  // Lands the fills still pending, then settles the origin.
  std::uint64_t WarmSettleImpl() override;

 private:
  // What a request does with one line. kHit: resident; kMiss: read from the
  // origin; kNew: a slot was allocated for it; kOrigin: written around the
  // cache; kSkip: nothing cache-side (the origin write covers it).
  enum class LineKind : std::uint8_t { kHit, kMiss, kNew, kOrigin, kSkip };
  enum Phase : std::uint8_t {
    kPhaseRead,
    kPhaseFill,
    kPhaseFlush,
    kPhaseDiscard,
    kPhaseWriteFill,
    kPhaseWriteIo,
    kPhaseWriteFallback,
  };
  struct LinePlan {
    std::uint64_t line;
    Slot slot;
    LineKind kind;
    bool admit;         // read miss: promote; write: fill needed
    bool was_dirty;     // write: line was dirty before this write
    bool failed;        // cache I/O for this line failed
    std::uint32_t buf;  // index into Op::bufs, or kNoBuf
    // Read: the line's write generation (LineLocks::Generation) when its
    // data was requested; a write started since then (an odd or different
    // reading) means the data may be older than the line: a miss is not
    // promoted, a hit is not checked against the line's checksums. Write
    // hit with a metadata sink: the generation once planned, or kConcurrent;
    // another write of the line beside this one makes its checksums unknown.
    std::uint64_t gen;
  };
  static constexpr std::uint32_t kNoBuf = UINT32_MAX;
  // LinePlan::gen of a write hit that found another write of its line in
  // flight.
  static constexpr std::uint64_t kConcurrent = UINT64_MAX;

  // A foreground request in flight. Recycled through a free list, keeping
  // vector capacity, so the steady state allocates nothing.
  struct Op : LockWaiter {
    CacheTarget* self = nullptr;
    IoRequest req;
    IoCallback done;
    Status status = Status::kOk;
    std::uint32_t pending = 0;
    std::uint8_t phase = 0;
    WriteMode mode = WriteMode::kPassthrough;  // effective mode of a write
    bool locked = false;
    bool throttled = false;          // has waited for destage at least once
    bool no_throttle = false;        // destage failed: bypass instead of waiting
    bool counted_in_flight = false;  // counted in wb_writes_in_flight_
    bool lock_waited = false;        // counted in stats_.lock_waits
    Nanos throttle_start = 0;
    Nanos lock_wait_start = 0;
    std::vector<LinePlan> plan;
    std::vector<AlignedBuffer> bufs;
    std::vector<std::uint64_t> buf_base;  // volume offset of bufs[i][0]
    Op* next = nullptr;                   // throttle queue
  };

  CacheTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> origin,
              std::vector<std::unique_ptr<BlockDevice>> caches, const CacheConfig& cfg,
              std::uint64_t line_size, std::uint32_t capacity,
              std::unique_ptr<ReplacementPolicy> policy, std::unique_ptr<AdmissionPolicy> admission,
              std::unique_ptr<DestageOrder> order);

  // Geometry.
  // Shifts and 32-bit divisions on purpose: a 64-bit divide costs tens of
  // cycles, several times per request on the hit path.
  std::uint64_t LineOf(std::uint64_t offset) const { return offset >> line_shift_; }
  std::uint64_t LineStart(std::uint64_t line) const { return line << line_shift_; }
  std::uint64_t LineEnd(std::uint64_t line) const {
    return std::min(size_, (line + 1) << line_shift_);
  }
  // Slots are placed on the cache devices in runs (SlotPlacement.h; one
  // device in most layouts, so no divide at all).
  BlockDevice& SlotDevice(Slot s) const { return *caches_[placement_.Device(s)]; }
  std::uint64_t SlotOffset(Slot s) const {
    return cfg_.metadata_reserve + (static_cast<std::uint64_t>(placement_.Index(s)) << line_shift_);
  }
  void SubmitCache(Slot s, IoOp op, std::uint64_t offset_in_line, std::uint64_t length,
                   std::byte* data, std::uint32_t flags, IoCallback cb);
  void SubmitOrigin(IoOp op, std::uint64_t offset, std::uint64_t length, std::byte* data,
                    std::uint32_t flags, IoCallback cb);

  // Slots and lines.
  // A slot for volume line `line`: a free one on the device its address maps
  // to (SlotPlacement::DeviceOfLine) if there is one, else a victim's.
  Slot AllocSlot(std::uint64_t line);
  static bool Evictable(void* ctx, Slot s);
  // The replacement policy tracks clean lines only, as Open CAS keeps dirty
  // lines off its eviction lists: a dirty line leaves the policy
  // (MarkDirty) and comes back, as if just brought in, once destage has
  // cleaned it (MarkClean). Kept in it, dirty lines sank to the cold end,
  // where every eviction scanned past them and gave up after
  // kEvictScanLimit, so writes waited for destage while the cache still
  // held clean lines to evict.
  void TouchLine(Slot s) {
    if (!table_.Dirty(s)) policy_->Touch(s);
  }
  void MarkDirty(Slot s);
  // Drops a resident line. `exclusive`: the caller holds the line in
  // kExclusive mode, so no other I/O to the slot is in flight and it is free
  // at once; else it is parked until nobody locks the line.
  void Invalidate(Slot s, bool exclusive);
  // Whether the plan's slot still holds its line (a write hit's line may be
  // dropped under it by a read that failed on it).
  bool Holds(const LinePlan& p) const {
    return table_.Resident(p.slot) && table_.Key(p.slot) == p.line;
  }
  void ReapParked();
  // A slot of a line that destage cleaned, for when the replacement policy
  // finds no clean victim among its oldest lines (they may all be dirty while
  // destage cleans lines elsewhere, e.g. in LBA order).
  Slot ReclaimCleaned();

  // Ops.
  Op* NewOp();
  void FreeOp(Op* op);
  // kWrite if every line of the write is resident and a hit keeps its slot
  // in the write mode; else kExclusive.
  LineLockMode WriteLockMode(const IoRequest& r) const;
  void Lock(Op* op, LineLockMode mode);
  static void OnGranted(LockWaiter* w);
  // Reads holding their locks wait here until the engine finishes the
  // callback that submitted them (Engine::Defer), then are dispatched
  // together (DispatchBatch) with their line-table lookups prefetched in two
  // passes; a write or discard granted while reads wait joins them, so ops
  // leave in the order they were granted.
  void QueueDispatch(Op* op);
  void DispatchBatch();
  void Dispatch(Op* op);
  // Releases the op's locks, recycles it and acknowledges the request.
  void Complete(Op* op);

  // ReadPath.cc
  void ReadLocked(Op* op);
  void OnReadHit(Op* op, std::uint32_t i, std::uint32_t j, Status st);
  void OnReadMiss(Op* op, std::uint32_t i, std::uint32_t j, Status st);
  void OnSubDone(Op* op, Status st);
  std::byte* UserPtr(const Op* op, std::uint64_t volume_offset) const {
    return op->req.data == nullptr ? nullptr : op->req.data + (volume_offset - op->req.offset);
  }
  void ReadForegroundDone(Op* op);
  void OnFillDone(Op* op, std::uint32_t i, Status st);

  // WritePath.cc
  void WriteLocked(Op* op);
  bool PlanWrite(Op* op);
  // What a write does with each line, the same for timed writes (PlanWrite)
  // and functional ones (WarmWrite): `plan` holds the lines as hits or
  // misses; write-around resolves by residency, hits the mode drops are
  // invalidated (kSkip), each miss becomes kNew (admitted; `admit`: read-fill
  // first), kOrigin or kSkip, and a write larger than half the cache goes
  // around it. Returns the effective mode; `*new_lines`: lines needing a slot.
  WriteMode DecideWrite(std::vector<LinePlan>& plan, const IoRequest& r, bool all_resident,
                        AccessInfo& ai, std::uint64_t* new_lines);
  // The admission policy's view of a request, now.
  AccessInfo AccessOf(const IoRequest& r) const {
    AccessInfo ai;
    ai.offset = r.offset;
    ai.length = r.length;
    ai.is_write = r.op == IoOp::kWrite;
    ai.now_ns = engine().Now();
    return ai;
  }
  void WriteFillPhase(Op* op);
  void WriteIoPhase(Op* op);
  void OnWriteIo(Op* op, std::uint32_t i, std::uint32_t j, Status st);
  void OnWriteFillRead(Op* op, std::uint32_t k, Status st);
  void WriteIoDone(Op* op);
  void WriteCommit(Op* op);
  void Throttle(Op* op);
  void WakeThrottled();
  void DiscardLocked(Op* op);
  void StartFlush(Op* op);

  // CacheWarm.cc
  std::uint64_t WarmRead(const IoRequest& r);
  std::uint64_t WarmWrite(const IoRequest& r);
  std::uint64_t WarmDiscard(const IoRequest& r);
  std::uint64_t LandWarmFills();
  // Destage as it would have kept up (Destager::WarmCatchUp).
  std::uint64_t WarmDestage(bool writer_waiting);

  // DestageCache: what the destager sees of this target.
  std::uint64_t DirtyLines() const override { return table_.dirty(); }
  bool WritersWaiting() const override { return throttled_count_ > 0; }
  Slot DirtySlot(std::uint64_t line) const override;
  // Whether b's line directly follows a's on the same device (one command).
  bool SlotsAdjacent(Slot a, Slot b) const override { return placement_.Adjacent(a, b); }
  bool LockLines(LockWaiter* w) override { return locks_.Acquire(w); }
  void UnlockLines(LockWaiter* w) override { locks_.Release(w); }
  std::uint64_t WriteGeneration(std::uint64_t line) const override {
    return locks_.Generation(line);
  }
  void ReadSlots(Slot s, std::uint64_t length, std::byte* data, IoCallback cb) override {
    SubmitCache(s, IoOp::kRead, 0, length, data, 0, std::move(cb));
  }
  void WriteOrigin(std::uint64_t offset, std::uint64_t length, std::byte* data,
                   IoCallback cb) override {
    SubmitOrigin(IoOp::kWrite, offset, length, data, 0, std::move(cb));
  }
  void FlushOrigin(IoCallback cb) override {
    SubmitOrigin(IoOp::kFlush, 0, 0, nullptr, 0, std::move(cb));
  }
  bool VerifyLineData(Slot s, const std::byte* data, std::uint64_t length) override {
    return sink_ == nullptr || sink_->VerifyLineData(s, 0, data, length);
  }
  void MarkClean(Slot s, std::uint64_t line) override;
  void OnDestageFinished() override { WakeThrottled(); }

  std::unique_ptr<BlockDevice> origin_;
  std::vector<std::unique_ptr<BlockDevice>> caches_;
  CacheConfig cfg_;
  std::uint64_t line_size_;
  int line_shift_;           // log2(line_size_): line sizes are powers of two
  SlotPlacement placement_;  // over caches_, with cfg_.placement_run
  std::uint64_t size_;       // origin_->Size(), fixed
  std::uint32_t block_size_;
  bool with_data_;
  bool promote_reads_;
  ReadPromotionFilter read_filter_;
  std::unique_ptr<ReplacementPolicy> policy_;
  std::unique_ptr<AdmissionPolicy> admission_;
  LineTable table_;
  LineLocks locks_;
  std::vector<Slot> parked_;

  ObjectPool<Op> ops_;
  // Lookup batching. A hit at scale is bound by two dependent cache misses
  // (bucket head, then slot word); reads submitted in one burst (an NBD
  // receive, a queue-depth refill) are dispatched together when that
  // callback returns so those misses overlap, as DPDK's bulk hash lookups do
  // for a packet burst. Every op in the batch already holds its line locks,
  // so the delay cannot reorder it against a write miss, fill or discard of
  // the same line. A batch starts with a read; writes join one that has
  // started (a write alone is dispatched at once).
  std::vector<Op*> batch_;
  std::vector<Op*> batch_scratch_;
  // Writes waiting for space, admitted strictly in arrival order: only the
  // head replans (throttle_waking_ while its replan is pending), and a new
  // write that needs a slot queues behind them instead of overtaking.
  Op* throttled_head_ = nullptr;
  Op* throttled_tail_ = nullptr;
  std::size_t throttled_count_ = 0;
  bool throttle_waking_ = false;
  std::uint32_t promotions_in_flight_ = 0;
  // Lines destage cleaned, oldest first (ReclaimCleaned); bounded, entries
  // checked on use since a line may be dirty again or gone.
  struct Cleaned {
    Slot slot;
    std::uint64_t line;
  };
  std::deque<Cleaned> cleaned_;
  std::size_t wb_writes_in_flight_ = 0;  // write-back writes holding new slots

  // Foreground origin writes and discards since the last origin flush.
  bool origin_unflushed_ = false;
  // Holds a reference to this target (DestageCache) but uses it only once
  // requests arrive, after construction.
  Destager destager_;

  CacheStats stats_;
  CacheMetadataSink* sink_ = nullptr;

  // Functional warming. A read's promotion fills land after the next
  // request's lookups, as they do at queue depth 1, where the fill's cache
  // write completes after the read is acknowledged and the next read issued:
  // so functional and timed warming leave the same lines at QD1.
  struct WarmFill {
    Slot slot;
    std::uint64_t line;
  };
  std::vector<WarmFill> warm_fills_;
  std::vector<std::uint64_t> warm_admitted_;  // scratch: a read's admitted misses
  std::vector<LinePlan> warm_plan_;           // scratch: a write's lines
  bool warming_ = false;                      // evictions and invalidations go uncounted
};

}  // namespace tierlab
