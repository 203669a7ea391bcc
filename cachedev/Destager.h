#pragma once
// Write-back destage, the cache target's cleaning policy (as Open CAS's
// cleaning policies sit beside its engines): decides when and what to write
// back, within a budget, and carries out each destage operation.
//
// When: dirty lines reach the high watermark (then destage runs down to the
// low one: hysteresis), lines have been dirty for idle_age while no
// foreground request arrived for idle_quiet, writers wait for space, or a
// Drain is in progress. What: the DestageOrder's next run of adjacent lines.
// Budget: at most `concurrency` operations, each at most max_bytes, and an
// optional bandwidth cap (a token bucket of max_bytes burst). One operation
// locks its lines (LineLockMode::kDestage: after the writes in flight, before
// discards and fills), reads them from the cache, writes them to the origin
// as one request per contiguous run, flushes the origin (one flush covers
// every operation whose writes completed before it was issued: flush
// batching), and only then marks them clean. Writes are not held off: a line
// whose write generation changed since the operation read it (a write
// started meanwhile) is left dirty and queued again, and one rewritten before
// its cache read completed is not written to the origin at all (its bytes
// may mix two versions). A failure leaves the lines dirty and pauses
// watermark and idle destage until Resume() or Drain().
//
// Ownership: owns the destage order and its operations; sees the cache only
// through DestageCache (not owned, outlives the destager). Threading: the
// engine's thread only. Time: engine timers only.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cachedev/CacheConfig.h"
#include "cachedev/DestageCache.h"
#include "policies/DestageOrder.h"
#include "tiering/core/AlignedBuffer.h"
#include "tiering/core/Engine.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab {

// The destage fields of CacheConfig, resolved.
struct DestageSettings {
  double high_watermark = 50;  // percent of capacity
  double low_watermark = 45;
  Nanos idle_age = 0;  // 0: no idle destage
  Nanos idle_quiet = 0;
  std::uint32_t concurrency = 8;  // operations in flight at once
  std::uint64_t bandwidth = 0;    // bytes/s, 0: no cap
  std::uint64_t max_bytes = 1 << 20;
  bool flush_origin = true;  // flush the origin before lines turn clean

  static DestageSettings From(const CacheConfig& c);
};

// Counters of what destage did (copied into CacheStats).
struct DestageCounters {
  std::uint64_t ops = 0;  // origin writes (coalesced runs)
  std::uint64_t bytes = 0;
  std::uint64_t errors = 0;
  std::uint64_t rewritten = 0;  // lines left dirty: written while being destaged
};

class Destager {
 public:
  // `capacity_lines` sets the watermarks; `volume_size` clips the last line;
  // `with_data`: operations carry buffers. `order` decides what goes next.
  Destager(Engine& engine, DestageCache& cache, const DestageSettings& settings,
           std::uint64_t line_size, std::uint64_t capacity_lines, std::uint64_t volume_size,
           bool with_data, std::unique_ptr<DestageOrder> order);
  ~Destager();
  Destager(const Destager&) = delete;
  Destager& operator=(const Destager&) = delete;

  // The cache's dirty lines, as the order tracks them (lines being destaged
  // are not tracked until they fail).
  void MarkDirty(std::uint64_t line, Nanos now) { order_->MarkDirty(line, now); }
  void Forget(std::uint64_t line) { order_->Remove(line); }
  void PrefetchLine(std::uint64_t line) const { order_->Prefetch(line); }
  // Dirty-since time of the oldest queued line, or -1.
  std::int64_t OldestDirtyNs() const { return order_->OldestDirtyNs(); }
  std::size_t queued_lines() const { return order_->Size(); }

  // Something changed (a write turned lines dirty, a writer started waiting,
  // lines were restored): starts what the policy and the budget allow and
  // re-arms the idle timer.
  void MaybeDestage();
  // A foreground request arrived: idle destage waits idle_quiet from now.
  void NoteForeground(Nanos now) { last_foreground_ = now; }
  // A new write: the signal to retry after a failed destage.
  void Resume() { paused_ = false; }
  // A destage failed and neither Resume nor Drain came since: writers must
  // not wait for destage.
  bool paused() const { return paused_; }

  // Destages every dirty line (ignoring watermarks); `done` is posted when
  // none is left, with kIoError if an operation failed on the way. `progress`
  // (may be empty) gets the dirty bytes left after each operation. A Drain
  // while one runs joins it: every `done` is called, the newest `progress`
  // replaces the previous one.
  void Drain(std::function<void(std::uint64_t dirty_bytes)> progress,
             std::function<void(Status)> done);

  // Functional warming (BlockDevice::Warm): what destage would have cleaned
  // by now had it kept up, at once. While the dirty lines are above the low
  // watermark after reaching the high one (the same hysteresis as
  // MaybeDestage), the order's next runs go to `clean`, which applies the
  // origin write to the origin's state and marks the run's lines clean;
  // `writer_waiting` (a write found no slot) takes one run even below the
  // watermarks, as a throttled writer does. Only with no operation in
  // flight; counters are not touched (they describe timed destage).
  void WarmCatchUp(bool writer_waiting,
                   const std::function<void(const std::vector<std::uint64_t>& run)>& clean);

  std::uint32_t in_flight() const { return in_flight_; }
  const DestageCounters& counters() const { return counters_; }
  // Queue state, appended to the cache target's DebugString.
  std::string DebugString() const;

 private:
  struct Op : LockWaiter {
    Destager* self = nullptr;
    std::vector<std::uint64_t> lines;  // consecutive, ascending
    std::vector<Slot> slots;           // kNone: skipped (no longer dirty, or raced)
    // Per line, its write generation when the cache read was issued, or
    // kRaced: written before the read completed, so neither written to the
    // origin nor cleaned.
    std::vector<std::uint64_t> gens;
    AlignedBuffer buf;
    std::uint32_t pending = 0;
    Status status = Status::kOk;
    std::uint64_t bytes = 0;
    std::uint32_t ops = 0;
    std::uint8_t phase = 0;  // 0 reading the cache, 1 writing the origin
    Op* next = nullptr;      // origin-flush batch
  };

  static constexpr std::uint64_t kRaced = UINT64_MAX;

  std::uint64_t LineStart(std::uint64_t line) const { return line * line_size_; }
  std::uint64_t LineEnd(std::uint64_t line) const {
    return std::min(volume_size_, (line + 1) * line_size_);
  }
  Op* NewOp();
  void Start(std::vector<std::uint64_t>& run);
  void Locked(Op* d);
  void WriteOrigin(Op* d);
  void FlushOrigin(Op* d);
  void IssueOriginFlush();
  void OnSub(Op* d, Status st);
  void Done(Op* d, Status st);
  void ArmIdleTimer();
  void ArmTokenTimer(Nanos at);
  void CheckDrainDone();

  Engine& engine_;
  DestageCache& cache_;
  DestageSettings cfg_;
  std::uint64_t line_size_;
  std::uint64_t volume_size_;
  bool with_data_;
  std::unique_ptr<DestageOrder> order_;
  std::uint64_t high_lines_;
  std::uint64_t low_lines_;

  ObjectPool<Op> ops_;
  std::uint32_t in_flight_ = 0;
  std::uint64_t destaging_lines_ = 0;
  bool above_high_ = false;
  std::vector<std::uint64_t> next_scratch_;
  Op* flush_wait_head_ = nullptr;  // destaged, waiting for an origin flush
  Op* flush_batch_ = nullptr;      // covered by the origin flush in flight
  bool origin_flush_in_flight_ = false;
  double tokens_ = 0;  // bandwidth cap: bytes that may start now (negative = debt)
  Nanos tokens_at_ = 0;
  TimerId token_timer_ = 0;
  TimerId idle_timer_ = 0;
  Nanos idle_timer_at_ = 0;
  Nanos last_foreground_ = 0;
  // A destage failed: watermark and idle destage pause (until the next write
  // or Drain), throttled writers bypass, so a dead device cannot spin the loop.
  bool paused_ = false;

  bool draining_ = false;
  bool drain_failed_ = false;
  std::function<void(std::uint64_t)> drain_progress_;
  std::vector<std::function<void(Status)>> drain_done_;

  DestageCounters counters_;
};

}  // namespace tierlab
