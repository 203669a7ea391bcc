// Write-back destage: when and what to destage (watermarks, idle age, drain,
// throttled writers), the budget (operations in flight, bandwidth), and one
// destage operation: shared-lock a run of adjacent dirty lines, read them from
// the cache, write them to the origin as one request, flush the origin, and
// only then mark them clean.

#include <algorithm>

#include "cachedev/CacheTarget.h"

namespace tierlab {
namespace {

// Recently cleaned lines remembered for ReclaimCleaned (16 bytes each).
constexpr std::size_t kMaxCleaned = 1 << 16;

}  // namespace

CacheTarget::DestageOp* CacheTarget::NewDestage() {
  DestageOp* d = destage_ops_.Reuse();
  d->self = this;
  d->next = nullptr;
  d->lines.clear();
  d->slots.clear();
  d->pending = 0;
  d->status = Status::kOk;
  d->bytes = 0;
  d->ops = 0;
  d->phase = 0;
  return d;
}

void CacheTarget::MaybeDestage() {
  const Nanos now = engine().Now();
  if (cfg_.destage_bandwidth > 0) {
    const double burst = static_cast<double>(std::max(cfg_.destage_max_bytes, line_size_));
    tokens_ = std::min(burst, tokens_ + static_cast<double>(now - tokens_at_) *
                                            static_cast<double>(cfg_.destage_bandwidth) / 1e9);
    tokens_at_ = now;
  }
  const std::uint64_t dirty = table_.dirty();
  if (dirty >= high_lines_) above_high_ = true;
  const std::size_t max_lines = std::max<std::uint64_t>(1, cfg_.destage_max_bytes / line_size_);
  while (destage_in_flight_ < cfg_.destage_concurrency && order_->Size() > 0) {
    const std::uint64_t queued = dirty > destaging_lines_ ? dirty - destaging_lines_ : 0;
    if (above_high_ && queued <= low_lines_) above_high_ = false;
    const bool idle = cfg_.idle_destage_age > 0 &&
                      now - order_->OldestDirtyNs() >= cfg_.idle_destage_age &&
                      now - last_foreground_ >= cfg_.idle_quiet;
    const bool want = (draining_ && !drain_failed_) ||
                      (!destage_paused_ && (throttled_count_ > 0 || above_high_ || idle));
    if (!want) break;
    if (cfg_.destage_bandwidth > 0 && tokens_ < 0) {
      const Nanos wait =
          static_cast<Nanos>(-tokens_ * 1e9 / static_cast<double>(cfg_.destage_bandwidth)) + 1;
      ArmTokenTimer(now + wait);
      break;
    }
    std::size_t take = max_lines;
    if (!draining_ && throttled_count_ == 0 && !idle) {
      // Watermark destage: only what brings the cache down to the low mark.
      take = std::min<std::size_t>(take, std::max<std::uint64_t>(1, queued - low_lines_));
    }
    // One run of ascending adjacent lines per call: one origin write, one
    // unit of the in-flight budget.
    next_scratch_.clear();
    order_->Next(take, &next_scratch_);
    if (next_scratch_.empty()) break;
    StartDestage(next_scratch_);
  }
  ArmIdleTimer();
  CheckDrainDone();
}

void CacheTarget::StartDestage(std::vector<std::uint64_t>& run) {
  DestageOp* d = NewDestage();
  d->lines.swap(run);
  d->first = d->lines.front();
  d->last = d->lines.back();
  d->exclusive = false;
  d->granted = [](LockWaiter* w) {
    auto* dd = static_cast<DestageOp*>(w);
    dd->self->engine().Post([dd] { dd->self->DestageLocked(dd); });
  };
  ++destage_in_flight_;
  destaging_lines_ += d->lines.size();
  if (cfg_.destage_bandwidth > 0) tokens_ -= static_cast<double>(d->lines.size() * line_size_);
  if (locks_.Acquire(d)) DestageLocked(d);
}

void CacheTarget::DestageLocked(DestageOp* d) {
  const std::size_t n = d->lines.size();
  d->slots.assign(n, LineTable::kNone);
  for (std::size_t k = 0; k < n; ++k) {
    const Slot s = table_.Find(d->lines[k]);
    // Discarded or invalidated since it was queued: nothing to write.
    if (s != LineTable::kNone && table_.Dirty(s)) d->slots[k] = s;
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
           SlotsAdjacent(d->slots[j - 1], d->slots[j])) {
      ++j;
    }
    std::byte* data = with_data_ ? d->buf.data() + k * line_size_ : nullptr;
    ++d->pending;
    SubmitCache(d->slots[k], IoOp::kRead, 0, LineEnd(d->lines[j - 1]) - LineStart(d->lines[k]),
                data, 0, [d](Status st) { d->self->OnDestageSub(d, st); });
    k = j;
  }
  OnDestageSub(d, Status::kOk);
}

void CacheTarget::OnDestageSub(DestageOp* d, Status st) {
  if (st != Status::kOk && d->status == Status::kOk) d->status = st;
  if (--d->pending != 0) return;
  if (d->status != Status::kOk) {
    DestageDone(d, d->status);
  } else if (d->phase == 0) {
    // Data that fails the sink's checksum (a write lost or torn below the
    // cache) must not reach the origin as the line's content: the destage
    // fails and the lines stay dirty.
    bool intact = true;
    for (std::size_t k = 0; k < d->lines.size() && intact && sink_ != nullptr && with_data_; ++k) {
      if (d->slots[k] == LineTable::kNone) continue;
      intact = sink_->VerifyLineData(d->slots[k], 0, d->buf.data() + k * line_size_,
                                     LineEnd(d->lines[k]) - LineStart(d->lines[k]));
    }
    if (intact) {
      DestageWriteOrigin(d);
    } else {
      DestageDone(d, Status::kIoError);
    }
  } else if (d->ops > 0 && cfg_.destage_flush) {
    DestageFlushOrigin(d);
  } else {
    DestageDone(d, Status::kOk);
  }
}

void CacheTarget::DestageWriteOrigin(DestageOp* d) {
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
    SubmitOrigin(IoOp::kWrite, b, e - b, data, 0, [d](Status st) { d->self->OnDestageSub(d, st); });
    k = j;
  }
  OnDestageSub(d, Status::kOk);
}

void CacheTarget::DestageFlushOrigin(DestageOp* d) {
  d->next = flush_wait_head_;
  flush_wait_head_ = d;
  if (!origin_flush_in_flight_) IssueOriginFlush();
}

void CacheTarget::IssueOriginFlush() {
  // One origin flush covers every destage write completed before it was
  // issued; destages finishing meanwhile wait for the next one.
  flush_batch_ = flush_wait_head_;
  flush_wait_head_ = nullptr;
  origin_flush_in_flight_ = true;
  SubmitOrigin(IoOp::kFlush, 0, 0, nullptr, 0, [this](Status st) {
    origin_flush_in_flight_ = false;
    DestageOp* batch = flush_batch_;
    flush_batch_ = nullptr;
    if (flush_wait_head_ != nullptr) IssueOriginFlush();
    while (batch != nullptr) {
      DestageOp* next = batch->next;
      DestageDone(batch, st);
      batch = next;
    }
  });
}

void CacheTarget::DestageDone(DestageOp* d, Status st) {
  const Nanos now = engine().Now();
  for (std::size_t k = 0; k < d->lines.size(); ++k) {
    const Slot s = d->slots[k];
    if (s == LineTable::kNone) continue;
    if (st == Status::kOk) {
      // The shared lock kept writers out, so the slot still holds exactly
      // what was written to the origin.
      table_.SetDirty(s, false);
      order_->Remove(d->lines[k]);
      if (sink_ != nullptr) sink_->OnLineClean(s, d->lines[k]);
      cleaned_.push_back({s, d->lines[k]});
      if (cleaned_.size() > std::min<std::size_t>(table_.capacity(), kMaxCleaned)) {
        cleaned_.pop_front();
      }
    } else {
      order_->MarkDirty(d->lines[k], now);
    }
  }
  if (st == Status::kOk) {
    stats_.destage_ops += d->ops;
    stats_.destaged_bytes += d->bytes;
  } else {
    ++stats_.destage_errors;
    destage_paused_ = true;
    if (draining_) drain_failed_ = true;
  }
  --destage_in_flight_;
  destaging_lines_ -= d->lines.size();
  locks_.Release(d);
  d->buf = AlignedBuffer();
  destage_ops_.Release(d);
  if (draining_ && drain_progress_) drain_progress_(table_.dirty() * line_size_);
  WakeThrottled();
  MaybeDestage();
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
    ++stats_.evictions;
    return c.slot;
  }
  return LineTable::kNone;
}

void CacheTarget::ArmIdleTimer() {
  if (cfg_.idle_destage_age <= 0 || order_->Size() == 0 || destage_paused_) return;
  const Nanos now = engine().Now();
  const Nanos due =
      std::max(order_->OldestDirtyNs() + cfg_.idle_destage_age, last_foreground_ + cfg_.idle_quiet);
  // Due now but not started: the in-flight budget is used up, and each
  // completion calls MaybeDestage again.
  if (due <= now) return;
  if (idle_timer_ != 0) {
    if (idle_timer_at_ <= due) return;
    engine().Cancel(idle_timer_);
  }
  idle_timer_at_ = due;
  idle_timer_ = engine().ScheduleAt(due, [this] {
    idle_timer_ = 0;
    MaybeDestage();
  });
}

void CacheTarget::ArmTokenTimer(Nanos at) {
  if (token_timer_ != 0) return;
  token_timer_ = engine().ScheduleAt(at, [this] {
    token_timer_ = 0;
    MaybeDestage();
  });
}

void CacheTarget::Drain(std::function<void(std::uint64_t)> progress,
                        std::function<void(Status)> done) {
  if (!draining_) drain_failed_ = false;  // joining a drain keeps its failure
  draining_ = true;
  destage_paused_ = false;
  drain_progress_ = std::move(progress);
  drain_done_.push_back(std::move(done));
  MaybeDestage();
}

void CacheTarget::CheckDrainDone() {
  if (!draining_ || destage_in_flight_ > 0) return;
  if (!drain_failed_ && table_.dirty() > 0) return;
  draining_ = false;
  const Status st = drain_failed_ ? Status::kIoError : Status::kOk;
  drain_progress_ = nullptr;
  engine().Post([done = std::move(drain_done_), st]() mutable {
    for (auto& d : done) {
      if (d) d(st);
    }
  });
  drain_done_.clear();
}

}  // namespace tierlab
