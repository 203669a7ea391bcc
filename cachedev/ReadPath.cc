// Read path: hits from the cache devices, misses from the origin, promotion
// of admitted missed lines after the request is acknowledged.
//
// A read holds its lines in kRead mode: it never waits for a write hit or a
// destage of them, only for write misses, invalidating writes and discards.
// A write hit may therefore run while the read does; the read returns old or
// new data then, as a disk does, and once the write is acknowledged every
// read submitted after it sees it. What the overlap changes is noted per
// line as its write generation (LinePlan::gen): a promotion fill whose line
// was written since its origin read is dropped, and a hit that raced a write
// is not checked against checksums that describe the other version.

#include <algorithm>
#include <cstring>

#include "cachedev/CacheTarget.h"

namespace tierlab {

void CacheTarget::ReadLocked(Op* op) {
  const IoRequest& r = op->req;
  AccessInfo ai = AccessOf(r);
  admission_->Observe(ai);

  std::uint32_t hits = 0;
  op->plan.clear();
  const bool verifies = sink_ != nullptr && r.data != nullptr;
  for (std::uint64_t line = op->first; line <= op->last; ++line) {
    LinePlan p{line, table_.Find(line), LineKind::kHit, false, false, false, kNoBuf, 0};
    if (p.slot != LineTable::kNone) {
      policy_->Touch(p.slot);
      ++hits;
      if (verifies) p.gen = locks_.Generation(line);
    } else {
      p.kind = LineKind::kMiss;
      if (promote_reads_ && (!read_filter_ || read_filter_(LineStart(line)))) {
        ai.line = line;
        p.admit = admission_->Admit(ai);
        if (p.admit) p.gen = locks_.Generation(line);
      }
    }
    op->plan.push_back(p);
  }
  const std::uint32_t n = static_cast<std::uint32_t>(op->plan.size());
  ++stats_.read_requests;
  stats_.read_hit_lines += hits;
  stats_.read_miss_lines += n - hits;
  if (hits == n) {
    ++stats_.read_hits;
  } else if (hits > 0) {
    ++stats_.read_partial_hits;
  } else {
    ++stats_.read_misses;
  }

  op->phase = kPhaseRead;
  op->pending = 1;  // guard until every sub-request is issued
  std::vector<LinePlan>& plan = op->plan;
  for (std::uint32_t i = 0; i < n;) {
    std::uint32_t j = i + 1;
    if (plan[i].kind == LineKind::kHit) {
      // One cache read per run of lines in adjacent slots.
      while (j < n && plan[j].kind == LineKind::kHit &&
             SlotsAdjacent(plan[j - 1].slot, plan[j].slot)) {
        ++j;
      }
      const std::uint64_t b = std::max(r.offset, LineStart(plan[i].line));
      const std::uint64_t e = std::min(r.end(), LineEnd(plan[j - 1].line));
      ++op->pending;
      SubmitCache(plan[i].slot, IoOp::kRead, b - LineStart(plan[i].line), e - b, UserPtr(op, b), 0,
                  [op, i, j](Status st) { op->self->OnReadHit(op, i, j, st); });
    } else {
      bool promote = plan[i].admit;
      while (j < n && plan[j].kind == LineKind::kMiss) promote |= plan[j++].admit;
      std::uint64_t b = std::max(r.offset, LineStart(plan[i].line));
      std::uint64_t e = std::min(r.end(), LineEnd(plan[j - 1].line));
      std::byte* data = UserPtr(op, b);
      if (promote) {
        // Whole lines from the origin, so the fill has the full line.
        b = LineStart(plan[i].line);
        e = LineEnd(plan[j - 1].line);
        if (with_data_) {
          const std::uint32_t idx = static_cast<std::uint32_t>(op->bufs.size());
          op->bufs.emplace_back(e - b);
          op->buf_base.push_back(b);
          data = op->bufs.back().data();
          for (std::uint32_t k = i; k < j; ++k) plan[k].buf = idx;
        } else {
          data = nullptr;
        }
      }
      ++op->pending;
      SubmitOrigin(IoOp::kRead, b, e - b, data, 0,
                   [op, i, j](Status st) { op->self->OnReadMiss(op, i, j, st); });
    }
    i = j;
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::OnReadHit(Op* op, std::uint32_t i, std::uint32_t j, Status st) {
  // Dirty data against the checksums the sink recorded when it was written:
  // a write lost or torn below the cache fails the read, as a read error
  // would, instead of being served (CacheMetadataSink::VerifyLineData).
  // A line written while this read was in flight is not checked: the read
  // may hold either version (or, across sectors, both), the checksums only
  // the newer one.
  for (std::uint32_t k = i; k < j && st == Status::kOk && sink_ != nullptr; ++k) {
    const LinePlan& p = op->plan[k];
    if (op->req.data == nullptr || !table_.Dirty(p.slot)) continue;
    if ((p.gen & 1) != 0 || locks_.Generation(p.line) != p.gen) continue;
    const std::uint64_t b = std::max(op->req.offset, LineStart(p.line));
    const std::uint64_t e = std::min(op->req.end(), LineEnd(p.line));
    if (!sink_->VerifyLineData(p.slot, b - LineStart(p.line), UserPtr(op, b), e - b)) {
      st = Status::kIoError;
    }
  }
  if (st != Status::kOk) {
    ++stats_.cache_read_errors;
    bool dirty = false;
    for (std::uint32_t k = i; k < j; ++k) dirty = dirty || IsDirty(op->plan[k].line);
    if (dirty) {
      // The only copy is on the failed device: fail, never return stale data.
      if (op->status == Status::kOk) op->status = Status::kIoError;
    } else {
      // Clean lines: the origin has the same data. Drop them and re-read.
      for (std::uint32_t k = i; k < j; ++k) {
        const Slot s = table_.Find(op->plan[k].line);
        if (s != LineTable::kNone) Invalidate(s, /*exclusive=*/false);
      }
      const std::uint64_t b = std::max(op->req.offset, LineStart(op->plan[i].line));
      const std::uint64_t e = std::min(op->req.end(), LineEnd(op->plan[j - 1].line));
      ++op->pending;
      SubmitOrigin(IoOp::kRead, b, e - b, UserPtr(op, b), 0,
                   [op](Status s2) { op->self->OnSubDone(op, s2); });
    }
  }
  OnSubDone(op, Status::kOk);
}

void CacheTarget::OnReadMiss(Op* op, std::uint32_t i, std::uint32_t j, Status st) {
  std::vector<LinePlan>& plan = op->plan;
  if (st != Status::kOk) {
    for (std::uint32_t k = i; k < j; ++k) plan[k].admit = false;
  } else if (plan[i].buf != kNoBuf && op->req.data != nullptr) {
    const std::uint64_t base = op->buf_base[plan[i].buf];
    const std::uint64_t b = std::max(op->req.offset, LineStart(plan[i].line));
    const std::uint64_t e = std::min(op->req.end(), LineEnd(plan[j - 1].line));
    std::memcpy(UserPtr(op, b), op->bufs[plan[i].buf].data() + (b - base), e - b);
  }
  OnSubDone(op, st);
}

void CacheTarget::ReadForegroundDone(Op* op) {
  // Start the promotion fills (they keep the shared locks, so no write can
  // overtake them), then acknowledge the read without waiting for them.
  op->phase = kPhaseFill;
  op->pending = 1;
  if (op->status == Status::kOk) {
    const std::uint32_t budget = cfg_.promotion_concurrency;
    for (std::uint32_t k = 0; k < op->plan.size(); ++k) {
      LinePlan& p = op->plan[k];
      if (p.kind != LineKind::kMiss || !p.admit) continue;
      if (table_.Find(p.line) != LineTable::kNone) continue;  // another reader filled it
      // Over the budget (the cache device is behind: slower than the origin,
      // or busy with writes), or writes are waiting for space: the read is
      // served already, so skip the promotion rather than queue it.
      if ((budget != 0 && promotions_in_flight_ >= budget) || throttled_count_ > 0) {
        ++stats_.promotions_skipped;
        continue;
      }
      p.slot = AllocSlot(p.line);
      if (p.slot == LineTable::kNone) break;  // nothing evictable: skip promotion
      ++promotions_in_flight_;
      std::byte* data = nullptr;
      if (p.buf != kNoBuf) {
        data = op->bufs[p.buf].data() + (LineStart(p.line) - op->buf_base[p.buf]);
      }
      ++op->pending;
      SubmitCache(p.slot, IoOp::kWrite, 0, LineEnd(p.line) - LineStart(p.line), data, 0,
                  [op, k](Status st) { op->self->OnFillDone(op, k, st); });
    }
  }
  if (op->pending == 1) {
    op->pending = 0;
    Complete(op);
    return;
  }
  IoCallback done = std::move(op->done);
  Finish(done, op->status);
  OnSubDone(op, Status::kOk);
}

void CacheTarget::OnFillDone(Op* op, std::uint32_t k, Status st) {
  const LinePlan& p = op->plan[k];
  --promotions_in_flight_;
  // Not if the line is resident by now (another read filled it), or a write
  // of it started after its origin read was issued (then the origin data may
  // be older than an acknowledged write: a write hit of a line that a failed
  // read dropped meanwhile).
  const std::uint64_t gen = locks_.Generation(p.line);
  if (st == Status::kOk && table_.Find(p.line) == LineTable::kNone && (p.gen & 1) == 0 &&
      gen == p.gen) {
    table_.Insert(p.slot, p.line);
    policy_->Insert(p.slot, p.line);
    ++stats_.promotions;
  } else {
    if (st != Status::kOk) ++stats_.cache_write_errors;
    table_.Release(p.slot);
  }
  OnSubDone(op, Status::kOk);
}

}  // namespace tierlab
