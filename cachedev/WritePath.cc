// Write path for every write mode, plus the throttle queue of write-back.
//
// A write holds its lines from planning to commit. A write hit (every line
// resident, updated in place) holds them in kWrite mode: reads, destage and
// other write hits of them go on meanwhile, and nothing can evict or discard
// them; only a read that fails on a clean line, or another write hit's failed
// cache write, can drop it (then the write's data goes to the origin). Any other write holds them
// kExclusive, so the line states it planned with cannot change under it. Slots for new lines are
// all taken before any I/O; if one is missing in write-back, the write gives everything back,
// unlocks, and waits for destage (throttle), then replans. Waiting writes are admitted in arrival
// order: only the head of the queue replans when space frees, and a newer write that needs a slot
// queues behind them, so no write can be overtaken indefinitely.

#include <algorithm>
#include <cstring>

#include "cachedev/CacheTarget.h"

namespace tierlab {

void CacheTarget::WriteLocked(Op* op) {
  if (!PlanWrite(op)) return;  // throttled; replanned when destage frees lines
  bool fill = false;
  for (const LinePlan& p : op->plan) fill = fill || (p.kind == LineKind::kNew && p.admit);
  if (fill) {
    WriteFillPhase(op);
  } else {
    WriteIoPhase(op);
  }
}

bool CacheTarget::PlanWrite(Op* op) {
  const IoRequest& r = op->req;
  if (op->lock_mode == LineLockMode::kWrite) {
    // Locked as a hit, but a line went while it waited (a discard or a
    // write miss ahead of it invalidated it): lock again as a miss.
    for (std::uint64_t line = op->first; line <= op->last; ++line) {
      if (table_.Find(line) != LineTable::kNone) continue;
      locks_.Release(op);
      Lock(op, LineLockMode::kExclusive);
      return false;
    }
  }
  AccessInfo ai = AccessOf(r);
  if (!op->throttled) admission_->Observe(ai);

  op->plan.clear();
  bool all_resident = true;
  for (std::uint64_t line = op->first; line <= op->last; ++line) {
    LinePlan p{line, table_.Find(line), LineKind::kHit, false, false, false, kNoBuf, 0};
    if (p.slot != LineTable::kNone) {
      p.was_dirty = table_.Dirty(p.slot);
      if (op->lock_mode == LineLockMode::kWrite && sink_ != nullptr) {
        p.gen = locks_.Writers(line) > 1 ? kConcurrent : locks_.Generation(line);
      }
    } else {
      p.kind = LineKind::kMiss;
      all_resident = false;
    }
    op->plan.push_back(p);
  }

  std::uint64_t new_lines = 0;
  const WriteMode mode = DecideWrite(op->plan, r, all_resident, ai, &new_lines);
  op->mode = mode;
  const bool keeps_dirty = KeepsDirtyLines(mode);
  // A failed destage pauses destage: then nobody waits for it (writes go
  // around the cache instead), whether they arrive or were already waiting.
  const bool may_wait = keeps_dirty && !op->no_throttle && !destager_.paused();
  if (may_wait && new_lines > 0 && !op->throttled && throttled_head_ != nullptr) {
    // Earlier writes are waiting for space: the space destage frees is theirs.
    Throttle(op);
    return false;
  }
  for (std::size_t k = 0; k < op->plan.size() && new_lines > 0; ++k) {
    LinePlan& p = op->plan[k];
    if (p.kind != LineKind::kNew) continue;
    p.slot = AllocSlot(p.line);
    if (p.slot != LineTable::kNone) continue;
    // Wait only if destage can free a slot: lines are dirty, or will be
    // once the write-back writes in flight commit.
    if (may_wait && (table_.dirty() > 0 || wb_writes_in_flight_ > 0)) {
      // Full of dirty lines: give the slots back and wait for destage.
      for (std::size_t m = 0; m < k; ++m) {
        if (op->plan[m].kind == LineKind::kNew) table_.Release(op->plan[m].slot);
      }
      Throttle(op);
      return false;
    }
    p.kind = keeps_dirty ? LineKind::kOrigin : LineKind::kSkip;
    p.admit = false;
  }

  if (op->throttled) {
    // Admitted: the head of the queue leaves it, its wait is counted once
    // (first wait to now), and the next waiting write may try.
    const Nanos waited = engine().Now() - op->throttle_start;
    stats_.throttled_ns += waited;
    stats_.throttled_max_ns = std::max(stats_.throttled_max_ns, waited);
    if (throttled_head_ == op) {
      throttled_head_ = op->next;
      if (throttled_head_ == nullptr) throttled_tail_ = nullptr;
      --throttled_count_;
      throttle_waking_ = false;
    }
    op->next = nullptr;
    op->throttled = false;
    WakeThrottled();
  }

  bool holds_new = false;
  for (const LinePlan& p : op->plan) holds_new = holds_new || p.kind == LineKind::kNew;
  if (keeps_dirty && holds_new) {
    op->counted_in_flight = true;
    ++wb_writes_in_flight_;
  }
  ++stats_.write_requests;
  std::uint64_t hits = 0;
  bool around = false;
  for (const LinePlan& p : op->plan) {
    hits += p.kind == LineKind::kHit;
    around = around || p.kind == LineKind::kOrigin;
  }
  stats_.write_hit_lines += hits;
  if (hits == op->plan.size()) ++stats_.write_hits;
  if (keeps_dirty) {
    if (around) {
      ++stats_.write_bypassed;
    } else {
      ++stats_.write_absorbed;
    }
  }
  return true;
}

WriteMode CacheTarget::DecideWrite(std::vector<LinePlan>& plan, const IoRequest& r,
                                   bool all_resident, AccessInfo& ai, std::uint64_t* new_lines) {
  WriteMode mode = cfg_.write;
  if (mode == WriteMode::kWriteAround) {
    mode = all_resident ? WriteMode::kWriteThrough : WriteMode::kWriteInvalidate;
  }
  const bool keeps_dirty = KeepsDirtyLines(mode);
  *new_lines = 0;
  for (LinePlan& p : plan) {
    const bool whole = r.offset <= LineStart(p.line) && r.end() >= LineEnd(p.line);
    if (p.kind == LineKind::kHit) {
      if (mode == WriteMode::kPassthrough || mode == WriteMode::kWriteInvalidate) {
        // Only planned under kExclusive (WriteLockMode; wa's partial hits
        // are never locked kWrite: a missing line makes them exclusive).
        Invalidate(p.slot, /*exclusive=*/true);
        p.kind = LineKind::kSkip;
      }
      continue;
    }
    ai.line = p.line;
    if (keeps_dirty) {
      if (admission_->Admit(ai)) {
        p.kind = LineKind::kNew;
        p.admit = !whole;  // a partial line is read-filled from the origin first
        ++*new_lines;
      } else {
        p.kind = LineKind::kOrigin;
      }
    } else if (mode == WriteMode::kWriteThrough && whole && admission_->Admit(ai)) {
      p.kind = LineKind::kNew;
      ++*new_lines;
    } else {
      p.kind = LineKind::kSkip;
    }
  }
  // A write larger than half the cache would flush it: write it around.
  if (keeps_dirty && *new_lines > table_.capacity() / 2) {
    for (LinePlan& p : plan) {
      if (p.kind == LineKind::kNew) p.kind = LineKind::kOrigin, p.admit = false;
    }
    *new_lines = 0;
  }
  return mode;
}

void CacheTarget::Throttle(Op* op) {
  op->plan.clear();
  locks_.Release(op);
  op->locked = false;
  if (op->throttled) {
    // The head, woken but still short of space: it keeps its place.
    throttle_waking_ = false;
  } else {
    ++stats_.write_throttled;
    op->throttled = true;
    op->throttle_start = engine().Now();
    op->next = nullptr;
    if (throttled_tail_ != nullptr) {
      throttled_tail_->next = op;
    } else {
      throttled_head_ = op;
    }
    throttled_tail_ = op;
    ++throttled_count_;
  }
  destager_.MaybeDestage();
}

void CacheTarget::WakeThrottled() {
  // One replan at a time, the head's: the others keep their places, so the
  // queue stays in arrival order and a wake costs one replan, not one per
  // waiting write.
  if (throttled_head_ == nullptr || throttle_waking_) return;
  throttle_waking_ = true;
  Op* op = throttled_head_;
  if (destager_.paused()) op->no_throttle = true;
  // Replan from scratch on a later turn (this may run inside a completion).
  engine().Post([op] { op->self->Lock(op, op->self->WriteLockMode(op->req)); });
}

void CacheTarget::WriteFillPhase(Op* op) {
  op->phase = kPhaseWriteFill;
  op->pending = 1;
  for (std::uint32_t k = 0; k < op->plan.size(); ++k) {
    LinePlan& p = op->plan[k];
    if (p.kind != LineKind::kNew || !p.admit) continue;
    std::byte* data = nullptr;
    if (with_data_) {
      p.buf = static_cast<std::uint32_t>(op->bufs.size());
      op->bufs.emplace_back(line_size_);
      op->buf_base.push_back(LineStart(p.line));
      data = op->bufs.back().data();
    }
    ++op->pending;
    SubmitOrigin(IoOp::kRead, LineStart(p.line), LineEnd(p.line) - LineStart(p.line), data, 0,
                 [op, k](Status st) { op->self->OnWriteFillRead(op, k, st); });
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::OnWriteFillRead(Op* op, std::uint32_t k, Status st) {
  LinePlan& p = op->plan[k];
  if (st != Status::kOk) {
    // Cannot complete the line: write this part around the cache instead.
    table_.Release(p.slot);
    p.slot = LineTable::kNone;
    p.kind = LineKind::kOrigin;
    p.admit = false;
    p.buf = kNoBuf;
  } else {
    ++stats_.write_fills;
    if (p.buf != kNoBuf && op->req.data != nullptr) {
      const std::uint64_t b = std::max(op->req.offset, LineStart(p.line));
      const std::uint64_t e = std::min(op->req.end(), LineEnd(p.line));
      std::memcpy(op->bufs[p.buf].data() + (b - LineStart(p.line)), UserPtr(op, b), e - b);
    }
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::WriteIoPhase(Op* op) {
  const IoRequest& r = op->req;
  const std::uint32_t flags = r.flags & kIoFua;
  std::vector<LinePlan>& plan = op->plan;
  const std::uint32_t n = static_cast<std::uint32_t>(plan.size());
  op->phase = kPhaseWriteIo;
  op->pending = 1;
  auto cached = [](const LinePlan& p) {
    return p.kind == LineKind::kHit || p.kind == LineKind::kNew;
  };
  for (std::uint32_t i = 0; i < n;) {
    std::uint32_t j = i + 1;
    if (cached(plan[i])) {
      if (plan[i].buf != kNoBuf || (plan[i].kind == LineKind::kNew && plan[i].admit)) {
        // A read-filled line: the whole line, from its own buffer.
        ++op->pending;
        std::byte* data = plan[i].buf != kNoBuf ? op->bufs[plan[i].buf].data() : nullptr;
        SubmitCache(plan[i].slot, IoOp::kWrite, 0, LineEnd(plan[i].line) - LineStart(plan[i].line),
                    data, flags, [op, i, j](Status st) { op->self->OnWriteIo(op, i, j, st); });
      } else {
        while (j < n && cached(plan[j]) && plan[j].buf == kNoBuf &&
               !(plan[j].kind == LineKind::kNew && plan[j].admit) &&
               SlotsAdjacent(plan[j - 1].slot, plan[j].slot)) {
          ++j;
        }
        const std::uint64_t b = std::max(r.offset, LineStart(plan[i].line));
        const std::uint64_t e = std::min(r.end(), LineEnd(plan[j - 1].line));
        ++op->pending;
        SubmitCache(plan[i].slot, IoOp::kWrite, b - LineStart(plan[i].line), e - b, UserPtr(op, b),
                    flags, [op, i, j](Status st) { op->self->OnWriteIo(op, i, j, st); });
      }
    } else if (plan[i].kind == LineKind::kOrigin) {
      while (j < n && plan[j].kind == LineKind::kOrigin) ++j;
      const std::uint64_t b = std::max(r.offset, LineStart(plan[i].line));
      const std::uint64_t e = std::min(r.end(), LineEnd(plan[j - 1].line));
      ++op->pending;
      origin_unflushed_ = true;
      SubmitOrigin(IoOp::kWrite, b, e - b, UserPtr(op, b), flags,
                   [op](Status st) { op->self->OnSubDone(op, st); });
    }
    i = j;
  }
  if (!KeepsDirtyLines(op->mode)) {
    // Through/around/invalidate/passthrough: the whole write goes to the origin.
    ++op->pending;
    origin_unflushed_ = true;
    SubmitOrigin(IoOp::kWrite, r.offset, r.length, r.data, flags,
                 [op](Status st) { op->self->OnSubDone(op, st); });
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::OnWriteIo(Op* op, std::uint32_t i, std::uint32_t j, Status st) {
  if (st != Status::kOk) {
    ++stats_.cache_write_errors;
    for (std::uint32_t k = i; k < j; ++k) op->plan[k].failed = true;
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::WriteIoDone(Op* op) {
  const bool exclusive = op->lock_mode == LineLockMode::kExclusive;
  if (!KeepsDirtyLines(op->mode)) {
    // The origin has the data; a hit line dropped meanwhile needs nothing.
    for (LinePlan& p : op->plan) {
      if (p.kind == LineKind::kHit && !exclusive && !Holds(p)) p.kind = LineKind::kSkip;
    }
    WriteCommit(op);
    return;
  }
  // Write-back: a line whose cache write failed is written to the origin
  // instead, unless it holds dirty data (then that data is lost: fail), from
  // before this write or from a write hit beside it that completed first. So
  // is a hit line dropped while this write was in flight (it was clean: a
  // read failing on a dirty line does not drop it, nor does a failed write
  // beside this one once the line is dirty, and a line being written cannot
  // turn clean, see Destager.h).
  op->phase = kPhaseWriteFallback;
  op->pending = 1;
  const IoRequest& r = op->req;
  for (LinePlan& p : op->plan) {
    const bool lost = p.kind == LineKind::kHit && !exclusive && !Holds(p);
    if (!p.failed && !lost) continue;
    if (!lost && (p.was_dirty || table_.Dirty(p.slot))) {
      op->status = Status::kIoError;
      continue;
    }
    if (p.kind == LineKind::kNew) {
      table_.Release(p.slot);
    } else if (!lost) {
      Invalidate(p.slot, exclusive);
    }
    p.kind = LineKind::kOrigin;
    const std::uint64_t b = std::max(r.offset, LineStart(p.line));
    const std::uint64_t e = std::min(r.end(), LineEnd(p.line));
    ++op->pending;
    origin_unflushed_ = true;
    SubmitOrigin(IoOp::kWrite, b, e - b, UserPtr(op, b), r.flags & kIoFua,
                 [op](Status st) { op->self->OnSubDone(op, st); });
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::WriteCommit(Op* op) {
  const bool keeps_dirty = KeepsDirtyLines(op->mode);
  const bool origin_failed = !keeps_dirty && op->status != Status::kOk;
  // The data each line now holds, for the sink's checksums.
  auto line_data = [this, op](const LinePlan& p) {
    if (sink_ == nullptr || op->req.data == nullptr) return;
    const std::uint64_t b = std::max(op->req.offset, LineStart(p.line));
    const std::uint64_t e = std::min(op->req.end(), LineEnd(p.line));
    if (op->lock_mode == LineLockMode::kWrite &&
        (p.gen == kConcurrent || locks_.Generation(p.line) != p.gen)) {
      // Another write of the line ran beside this one: if their bytes
      // overlap, which of them the device kept is unknown.
      sink_->OnLineData(p.slot, p.line, b - LineStart(p.line), nullptr, e - b);
      return;
    }
    if (p.buf != kNoBuf) {
      sink_->OnLineData(p.slot, p.line, 0, op->bufs[p.buf].data(),
                        LineEnd(p.line) - LineStart(p.line));
      return;
    }
    sink_->OnLineData(p.slot, p.line, b - LineStart(p.line), UserPtr(op, b), e - b);
  };
  for (LinePlan& p : op->plan) {
    if (p.kind == LineKind::kHit && !Holds(p)) {
      // Dropped by a failed read during this write's fallback phase (see
      // WriteIoDone): the data is on no live copy, so the write fails.
      if (keeps_dirty) op->status = Status::kIoError;
      continue;
    }
    if (p.kind == LineKind::kHit) {
      if (keeps_dirty) {
        if (!p.failed) {  // failed dirty lines stay dirty
          line_data(p);
          MarkDirty(p.slot);
        }
        policy_->Touch(p.slot);
      } else if (p.failed || origin_failed) {
        // The cache copy may differ from the origin now: drop it.
        Invalidate(p.slot, op->lock_mode == LineLockMode::kExclusive);
      } else {
        policy_->Touch(p.slot);
      }
    } else if (p.kind == LineKind::kNew) {
      if (p.failed || origin_failed) {
        table_.Release(p.slot);
        continue;
      }
      table_.Insert(p.slot, p.line);
      policy_->Insert(p.slot, p.line);
      ++stats_.write_inserts;
      if (keeps_dirty) {
        line_data(p);
        MarkDirty(p.slot);
      }
    }
  }
  if (op->counted_in_flight) --wb_writes_in_flight_;
  Complete(op);
  destager_.MaybeDestage();
  // Writers that waited on this write's lines turning dirty: if nothing is
  // dirty after all (the lines failed), destage will never wake them.
  if (throttled_count_ > 0 && table_.dirty() == 0 && wb_writes_in_flight_ == 0) WakeThrottled();
}

}  // namespace tierlab
