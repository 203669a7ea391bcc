// Functional warming of the cache target (BlockDevice::Warm): what the read
// and write paths decide, applied at once with no I/O, no locks and no time.
// Each step mirrors ReadPath.cc / WritePath.cc in the same order, so the
// replacement and admission policies see the same calls; what differs is
// only what time would change: no throttling (destage is taken to have kept
// up), no promotion budget, no races.

#include <algorithm>
#include <cassert>

#include "cachedev/CacheTarget.h"

namespace tierlab {
namespace {

// A request to the origin's Warm.
IoRequest Piece(IoOp op, std::uint64_t offset, std::uint64_t length) {
  IoRequest r;
  r.op = op;
  r.offset = offset;
  r.length = length;
  return r;
}

}  // namespace

std::uint64_t CacheTarget::WarmImpl(const IoRequest& req) {
  // A data-carrying cache would claim contents nobody wrote (the contract).
  assert(!with_data_ && sink_ == nullptr);
  if (with_data_ || sink_ != nullptr) return 0;
  warming_ = true;
  std::uint64_t placed = 0;
  switch (req.op) {
    case IoOp::kRead: placed = WarmRead(req); break;
    case IoOp::kWrite: placed = WarmWrite(req); break;
    case IoOp::kDiscard: placed = WarmDiscard(req); break;
    case IoOp::kFlush: break;
  }
  warming_ = false;
  return placed;
}

std::uint64_t CacheTarget::WarmSettleImpl() {
  warming_ = true;
  std::uint64_t placed = LandWarmFills();
  warming_ = false;
  return placed + BlockDevice::WarmSettleImpl();
}

std::uint64_t CacheTarget::LandWarmFills() {
  std::uint64_t placed = 0;
  for (const WarmFill& f : warm_fills_) {
    if (table_.Find(f.line) != LineTable::kNone) {
      table_.Release(f.slot);
      continue;
    }
    table_.Insert(f.slot, f.line);
    policy_->Insert(f.slot, f.line);
    ++placed;
  }
  warm_fills_.clear();
  return placed;
}

std::uint64_t CacheTarget::WarmRead(const IoRequest& r) {
  // ReadLocked: observe, then per line in order a hit's touch or a miss's
  // admission decision; the misses go to the origin in runs, whole lines
  // where one of the run is promoted.
  AccessInfo ai = AccessOf(r);
  admission_->Observe(ai);
  warm_admitted_.clear();
  std::uint64_t placed = 0;
  const std::uint64_t first = LineOf(r.offset);
  const std::uint64_t last = LineOf(r.end() - 1);
  for (std::uint64_t line = first; line <= last;) {
    const Slot s = table_.Find(line);
    if (s != LineTable::kNone) {
      policy_->Touch(s);
      ++line;
      continue;
    }
    std::uint64_t end = line;
    bool promote = false;
    while (end <= last && (end == line || table_.Find(end) == LineTable::kNone)) {
      if (promote_reads_ && (!read_filter_ || read_filter_(LineStart(end)))) {
        ai.line = end;
        if (admission_->Admit(ai)) {
          warm_admitted_.push_back(end);
          promote = true;
        }
      }
      ++end;
    }
    const std::uint64_t b = promote ? LineStart(line) : std::max(r.offset, LineStart(line));
    const std::uint64_t e = promote ? LineEnd(end - 1) : std::min(r.end(), LineEnd(end - 1));
    placed += origin_->Warm(Piece(IoOp::kRead, b, e - b));
    line = end;
  }
  // The fills of the request before land now, after this one's lookups;
  // this one's slots are taken now, as ReadForegroundDone takes them.
  placed += LandWarmFills();
  for (std::uint64_t line : warm_admitted_) {
    if (table_.Find(line) != LineTable::kNone) continue;
    const Slot s = AllocSlot(line);
    if (s == LineTable::kNone) break;  // nothing evictable: no promotion
    warm_fills_.push_back({s, line});
  }
  return placed;
}

std::uint64_t CacheTarget::WarmWrite(const IoRequest& r) {
  // PlanWrite, WriteIoPhase and WriteCommit in one step. A write of a line
  // whose fill is pending waited for that fill (its lock): land them first.
  std::uint64_t placed = LandWarmFills();
  AccessInfo ai = AccessOf(r);
  admission_->Observe(ai);

  const std::uint64_t first = LineOf(r.offset);
  const std::uint64_t last = LineOf(r.end() - 1);
  std::vector<LinePlan>& plan = warm_plan_;
  plan.clear();
  bool all_resident = true;
  for (std::uint64_t line = first; line <= last; ++line) {
    LinePlan p{line, table_.Find(line), LineKind::kHit, false, false, false, kNoBuf, 0};
    if (p.slot == LineTable::kNone) {
      p.kind = LineKind::kMiss;
      all_resident = false;
    }
    plan.push_back(p);
  }
  std::uint64_t new_lines = 0;
  const WriteMode mode = DecideWrite(plan, r, all_resident, ai, &new_lines);
  const bool keeps_dirty = KeepsDirtyLines(mode);
  for (LinePlan& p : plan) {
    if (p.kind != LineKind::kNew) continue;
    p.slot = AllocSlot(p.line);
    // A cache full of dirty lines: a timed write waits while destage frees
    // a slot; here destage frees it at once.
    while (p.slot == LineTable::kNone && keeps_dirty && table_.dirty() > 0) {
      const std::uint64_t dirty = table_.dirty();
      placed += WarmDestage(/*writer_waiting=*/true);
      p.slot = AllocSlot(p.line);
      if (table_.dirty() == dirty) break;  // the order had nothing to give
    }
    if (p.slot == LineTable::kNone) {
      p.kind = keeps_dirty ? LineKind::kOrigin : LineKind::kSkip;
      p.admit = false;
    }
  }

  // The origin's share: read-fills of partial new lines, lines written
  // around, and in the non-write-back modes the whole write.
  for (std::size_t i = 0; i < plan.size();) {
    std::size_t j = i + 1;
    if (plan[i].kind == LineKind::kNew && plan[i].admit) {
      const std::uint64_t b = LineStart(plan[i].line);
      placed += origin_->Warm(Piece(IoOp::kRead, b, LineEnd(plan[i].line) - b));
    } else if (keeps_dirty && plan[i].kind == LineKind::kOrigin) {
      while (j < plan.size() && plan[j].kind == LineKind::kOrigin) ++j;
      const std::uint64_t b = std::max(r.offset, LineStart(plan[i].line));
      const std::uint64_t e = std::min(r.end(), LineEnd(plan[j - 1].line));
      placed += origin_->Warm(Piece(IoOp::kWrite, b, e - b));
    }
    i = j;
  }
  if (!keeps_dirty) placed += origin_->Warm(Piece(IoOp::kWrite, r.offset, r.length));

  for (const LinePlan& p : plan) {
    if (p.kind == LineKind::kHit) {
      if (keeps_dirty) MarkDirty(p.slot);
      policy_->Touch(p.slot);
    } else if (p.kind == LineKind::kNew) {
      table_.Insert(p.slot, p.line);
      policy_->Insert(p.slot, p.line);
      ++placed;
      if (keeps_dirty) MarkDirty(p.slot);
    }
  }
  if (keeps_dirty) placed += WarmDestage(/*writer_waiting=*/false);
  return placed;
}

std::uint64_t CacheTarget::WarmDiscard(const IoRequest& r) {
  std::uint64_t placed = LandWarmFills();
  for (std::uint64_t line = LineOf(r.offset); line <= LineOf(r.end() - 1); ++line) {
    const Slot s = table_.Find(line);
    if (s == LineTable::kNone) continue;
    const bool whole = r.offset <= LineStart(line) && r.end() >= LineEnd(line);
    if (whole || !table_.Dirty(s)) Invalidate(s, /*exclusive=*/true);
  }
  return placed + origin_->Warm(r);
}

std::uint64_t CacheTarget::WarmDestage(bool writer_waiting) {
  std::uint64_t placed = 0;
  destager_.WarmCatchUp(writer_waiting, [this, &placed](const std::vector<std::uint64_t>& run) {
    // The run's lines still dirty turn clean; each stretch of them is one
    // origin write, as a destage operation writes them.
    std::size_t i = 0;
    while (i < run.size()) {
      const Slot s = DirtySlot(run[i]);
      if (s == LineTable::kNone) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < run.size() && (j == i || run[j] == run[j - 1] + 1)) {
        const Slot sj = DirtySlot(run[j]);
        if (sj == LineTable::kNone) break;
        MarkClean(sj, run[j]);
        ++j;
      }
      const std::uint64_t b = LineStart(run[i]);
      placed += origin_->Warm(Piece(IoOp::kWrite, b, LineEnd(run[j - 1]) - b));
      i = j;
    }
  });
  return placed;
}

}  // namespace tierlab
