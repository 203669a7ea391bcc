// Write-back destage (Destager.h): when and what to destage (watermarks, idle
// age, drain, waiting writers), the budget (operations in flight, bandwidth),
// and one destage operation: lock a run of adjacent dirty lines (kDestage),
// read them from the cache, write them to the origin, flush the origin, and
// only then mark clean the ones no write touched meanwhile.

#include "cachedev/Destager.h"

#include <algorithm>
#include <cmath>

#include "cachedev/LineTable.h"

namespace tierlab {

DestageSettings DestageSettings::From(const CacheConfig& c) {
  DestageSettings s;
  s.high_watermark = c.high_watermark;
  s.low_watermark = c.low_watermark;
  s.idle_age = c.idle_destage_age;
  s.idle_quiet = c.idle_quiet;
  s.concurrency = c.destage_concurrency;
  s.bandwidth = c.destage_bandwidth;
  s.max_bytes = c.destage_max_bytes;
  s.flush_origin = c.destage_flush;
  return s;
}

Destager::Destager(Engine& engine, DestageCache& cache, const DestageSettings& settings,
                   std::uint64_t line_size, std::uint64_t capacity_lines, std::uint64_t volume_size,
                   bool with_data, std::unique_ptr<DestageOrder> order)
    : engine_(engine),
      cache_(cache),
      cfg_(settings),
      line_size_(line_size),
      volume_size_(volume_size),
      with_data_(with_data),
      order_(std::move(order)),
      high_lines_(std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(std::ceil(capacity_lines * cfg_.high_watermark / 100.0)))),
      low_lines_(
          static_cast<std::uint64_t>(std::floor(capacity_lines * cfg_.low_watermark / 100.0))),
      tokens_(static_cast<double>(std::max(cfg_.max_bytes, line_size_))),
      tokens_at_(engine.Now()),
      last_foreground_(engine.Now()) {}

Destager::~Destager() {
  if (idle_timer_ != 0) engine_.Cancel(idle_timer_);
  if (token_timer_ != 0) engine_.Cancel(token_timer_);
}

Destager::Op* Destager::NewOp() {
  Op* d = ops_.Reuse();
  d->self = this;
  d->next = nullptr;
  d->lines.clear();
  d->slots.clear();
  d->gens.clear();
  d->pending = 0;
  d->status = Status::kOk;
  d->bytes = 0;
  d->ops = 0;
  d->phase = 0;
  return d;
}

void Destager::MaybeDestage() {
  const Nanos now = engine_.Now();
  if (cfg_.bandwidth > 0) {
    const double burst = static_cast<double>(std::max(cfg_.max_bytes, line_size_));
    tokens_ = std::min(burst, tokens_ + static_cast<double>(now - tokens_at_) *
                                            static_cast<double>(cfg_.bandwidth) / 1e9);
    tokens_at_ = now;
  }
  const std::uint64_t dirty = cache_.DirtyLines();
  if (dirty >= high_lines_) above_high_ = true;
  const std::size_t max_lines = std::max<std::uint64_t>(1, cfg_.max_bytes / line_size_);
  while (in_flight_ < cfg_.concurrency && order_->Size() > 0) {
    const std::uint64_t queued = dirty > destaging_lines_ ? dirty - destaging_lines_ : 0;
    if (above_high_ && queued <= low_lines_) above_high_ = false;
    const bool idle = cfg_.idle_age > 0 && now - order_->OldestDirtyNs() >= cfg_.idle_age &&
                      now - last_foreground_ >= cfg_.idle_quiet;
    const bool writers = cache_.WritersWaiting();
    const bool want =
        (draining_ && !drain_failed_) || (!paused_ && (writers || above_high_ || idle));
    if (!want) break;
    if (cfg_.bandwidth > 0 && tokens_ < 0) {
      const Nanos wait =
          static_cast<Nanos>(-tokens_ * 1e9 / static_cast<double>(cfg_.bandwidth)) + 1;
      ArmTokenTimer(now + wait);
      break;
    }
    std::size_t take = max_lines;
    if (!draining_ && !writers && !idle) {
      // Watermark destage: only what brings the cache down to the low mark.
      take = std::min<std::size_t>(take, std::max<std::uint64_t>(1, queued - low_lines_));
    }
    // One run of ascending adjacent lines per call: one origin write, one
    // unit of the in-flight budget.
    next_scratch_.clear();
    order_->Next(take, &next_scratch_);
    if (next_scratch_.empty()) break;
    Start(next_scratch_);
  }
  ArmIdleTimer();
  CheckDrainDone();
}

void Destager::Start(std::vector<std::uint64_t>& run) {
  Op* d = NewOp();
  d->lines.swap(run);
  d->first = d->lines.front();
  d->last = d->lines.back();
  d->lock_mode = LineLockMode::kDestage;
  d->granted = [](LockWaiter* w) {
    auto* dd = static_cast<Op*>(w);
    dd->self->engine_.Post([dd] { dd->self->Locked(dd); });
  };
  ++in_flight_;
  destaging_lines_ += d->lines.size();
  if (cfg_.bandwidth > 0) tokens_ -= static_cast<double>(d->lines.size() * line_size_);
  if (cache_.LockLines(d)) Locked(d);
}

void Destager::Locked(Op* d) {
  const std::size_t n = d->lines.size();
  d->slots.assign(n, LineTable::kNone);
  // Discarded or invalidated since it was queued: nothing to write.
  for (std::size_t k = 0; k < n; ++k) d->slots[k] = cache_.DirtySlot(d->lines[k]);
  // The lock was granted with no write in flight, but one may have started
  // since (this runs a task later): an odd generation. Such a line is still
  // read (every operation costs an I/O, so a line kept busy by writes cannot
  // spin the destage loop at one instant) but counts as raced below.
  d->gens.assign(n, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t g = cache_.WriteGeneration(d->lines[k]);
    d->gens[k] = (g & 1) != 0 ? kRaced : g;
  }
  if (with_data_) d->buf = AlignedBuffer(n * line_size_);
  d->phase = 0;
  d->pending = 1;
  for (std::size_t k = 0; k < n;) {
    std::size_t j = k + 1;
    if (d->slots[k] == LineTable::kNone) {
      k = j;
      continue;
    }
    while (j < n && d->slots[j] != LineTable::kNone &&
           cache_.SlotsAdjacent(d->slots[j - 1], d->slots[j])) {
      ++j;
    }
    std::byte* data = with_data_ ? d->buf.data() + k * line_size_ : nullptr;
    ++d->pending;
    cache_.ReadSlots(d->slots[k], LineEnd(d->lines[j - 1]) - LineStart(d->lines[k]), data,
                     [d](Status st) { d->self->OnSub(d, st); });
    k = j;
  }
  OnSub(d, Status::kOk);
}

void Destager::OnSub(Op* d, Status st) {
  if (st != Status::kOk && d->status == Status::kOk) d->status = st;
  if (--d->pending != 0) return;
  if (d->status != Status::kOk) {
    Done(d, d->status);
  } else if (d->phase == 0) {
    // A line written since its read was issued may have been read half old,
    // half new (and its checksums describe the new data): it is not written
    // to the origin and stays dirty (Done queues it again).
    for (std::size_t k = 0; k < d->lines.size(); ++k) {
      if (d->slots[k] == LineTable::kNone) continue;
      if (d->gens[k] == kRaced || cache_.WriteGeneration(d->lines[k]) != d->gens[k]) {
        d->gens[k] = kRaced;
        d->slots[k] = LineTable::kNone;
      }
    }
    // Data that fails the metadata's checksum (a write lost or torn below
    // the cache) must not reach the origin as the line's content: the
    // destage fails and the lines stay dirty.
    bool intact = true;
    for (std::size_t k = 0; k < d->lines.size() && intact && with_data_; ++k) {
      if (d->slots[k] == LineTable::kNone) continue;
      intact = cache_.VerifyLineData(d->slots[k], d->buf.data() + k * line_size_,
                                     LineEnd(d->lines[k]) - LineStart(d->lines[k]));
    }
    if (intact) {
      WriteOrigin(d);
    } else {
      Done(d, Status::kIoError);
    }
  } else if (d->ops > 0 && cfg_.flush_origin) {
    FlushOrigin(d);
  } else {
    Done(d, Status::kOk);
  }
}

void Destager::WriteOrigin(Op* d) {
  const std::size_t n = d->lines.size();
  d->phase = 1;
  d->pending = 1;
  for (std::size_t k = 0; k < n;) {
    std::size_t j = k + 1;
    if (d->slots[k] == LineTable::kNone) {
      k = j;
      continue;
    }
    while (j < n && d->slots[j] != LineTable::kNone) ++j;
    const std::uint64_t b = LineStart(d->lines[k]);
    const std::uint64_t e = LineEnd(d->lines[j - 1]);
    std::byte* data = with_data_ ? d->buf.data() + k * line_size_ : nullptr;
    ++d->pending;
    ++d->ops;
    d->bytes += e - b;
    cache_.WriteOrigin(b, e - b, data, [d](Status st) { d->self->OnSub(d, st); });
    k = j;
  }
  OnSub(d, Status::kOk);
}

void Destager::FlushOrigin(Op* d) {
  d->next = flush_wait_head_;
  flush_wait_head_ = d;
  if (!origin_flush_in_flight_) IssueOriginFlush();
}

void Destager::IssueOriginFlush() {
  // One origin flush covers every destage write completed before it was
  // issued; destages finishing meanwhile wait for the next one.
  flush_batch_ = flush_wait_head_;
  flush_wait_head_ = nullptr;
  origin_flush_in_flight_ = true;
  cache_.FlushOrigin([this](Status st) {
    origin_flush_in_flight_ = false;
    Op* batch = flush_batch_;
    flush_batch_ = nullptr;
    if (flush_wait_head_ != nullptr) IssueOriginFlush();
    while (batch != nullptr) {
      Op* next = batch->next;
      Done(batch, st);
      batch = next;
    }
  });
}

void Destager::Done(Op* d, Status st) {
  const Nanos now = engine_.Now();
  for (std::size_t k = 0; k < d->lines.size(); ++k) {
    const Slot s = d->slots[k];
    const std::uint64_t line = d->lines[k];
    if (d->gens[k] == kRaced) {
      // Rewritten during the read: still dirty (the lock kept discards out),
      // and the write that dirtied it again did not queue it (it was out of
      // the order while being destaged).
      ++counters_.rewritten;
      if (cache_.DirtySlot(line) != LineTable::kNone) order_->MarkDirty(line, now);
      continue;
    }
    if (s == LineTable::kNone) continue;
    if (st == Status::kOk && cache_.WriteGeneration(line) == d->gens[k]) {
      // No write started since the slot was read (the dm-cache/bcache race:
      // one that did keeps the line dirty), so the origin now holds exactly
      // what the slot holds.
      cache_.MarkClean(s, line);
    } else {
      if (st == Status::kOk) ++counters_.rewritten;
      order_->MarkDirty(line, now);
    }
  }
  if (st == Status::kOk) {
    counters_.ops += d->ops;
    counters_.bytes += d->bytes;
  } else {
    ++counters_.errors;
    paused_ = true;
    if (draining_) drain_failed_ = true;
  }
  --in_flight_;
  destaging_lines_ -= d->lines.size();
  cache_.UnlockLines(d);
  d->buf = AlignedBuffer();
  ops_.Release(d);
  if (draining_ && drain_progress_) drain_progress_(cache_.DirtyLines() * line_size_);
  cache_.OnDestageFinished();
  MaybeDestage();
}

void Destager::ArmIdleTimer() {
  if (cfg_.idle_age <= 0 || order_->Size() == 0 || paused_) return;
  const Nanos now = engine_.Now();
  const Nanos due =
      std::max(order_->OldestDirtyNs() + cfg_.idle_age, last_foreground_ + cfg_.idle_quiet);
  // Due now but not started: the in-flight budget is used up, and each
  // completion calls MaybeDestage again.
  if (due <= now) return;
  if (idle_timer_ != 0) {
    if (idle_timer_at_ <= due) return;
    engine_.Cancel(idle_timer_);
  }
  idle_timer_at_ = due;
  idle_timer_ = engine_.ScheduleAt(due, [this] {
    idle_timer_ = 0;
    MaybeDestage();
  });
}

void Destager::ArmTokenTimer(Nanos at) {
  if (token_timer_ != 0) return;
  token_timer_ = engine_.ScheduleAt(at, [this] {
    token_timer_ = 0;
    MaybeDestage();
  });
}

void Destager::WarmCatchUp(
    bool writer_waiting, const std::function<void(const std::vector<std::uint64_t>& run)>& clean) {
  const std::size_t max_lines = std::max<std::uint64_t>(1, cfg_.max_bytes / line_size_);
  if (cache_.DirtyLines() >= high_lines_) above_high_ = true;
  bool one_run = writer_waiting;
  while (order_->Size() > 0) {
    const std::uint64_t dirty = cache_.DirtyLines();
    if (above_high_ && dirty <= low_lines_) above_high_ = false;
    if (!above_high_ && !one_run) break;
    std::size_t take = max_lines;
    if (!one_run)
      take = std::min<std::size_t>(take, std::max<std::uint64_t>(1, dirty - low_lines_));
    one_run = false;
    next_scratch_.clear();
    order_->Next(take, &next_scratch_);
    if (next_scratch_.empty()) break;
    clean(next_scratch_);
  }
}

void Destager::Drain(std::function<void(std::uint64_t)> progress,
                     std::function<void(Status)> done) {
  if (!draining_) drain_failed_ = false;  // joining a drain keeps its failure
  draining_ = true;
  paused_ = false;
  drain_progress_ = std::move(progress);
  drain_done_.push_back(std::move(done));
  MaybeDestage();
}

void Destager::CheckDrainDone() {
  if (!draining_ || in_flight_ > 0) return;
  if (!drain_failed_ && cache_.DirtyLines() > 0) return;
  draining_ = false;
  const Status st = drain_failed_ ? Status::kIoError : Status::kOk;
  drain_progress_ = nullptr;
  engine_.Post([done = std::move(drain_done_), st]() mutable {
    for (auto& d : done) {
      if (d) d(st);
    }
  });
  drain_done_.clear();
}

std::string Destager::DebugString() const {
  return "destage_in_flight=" + std::to_string(in_flight_) +
         " destaging_lines=" + std::to_string(destaging_lines_) +
         " order=" + std::to_string(order_->Size()) + " paused=" + std::to_string(paused_) +
         " flush_in_flight=" + std::to_string(origin_flush_in_flight_);
}

}  // namespace tierlab
