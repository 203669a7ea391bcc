#include "tiering/tier/TierTarget.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tierlab {

struct TierTarget::Request {
  IoCallback done;
  IoRequest req;
  std::uint64_t epoch = 0;
  std::uint32_t remaining = 0;
  Status status = Status::kOk;
  std::vector<std::uint64_t> zeroing;  // extents this write zero-fills
};

// One extent being copied from (from, src) to (to, dst). Chunk bitmaps:
// `todo` = chunks still to copy in this round, `redirty` = chunks written
// since this round started (copied again in the next round).
struct TierTarget::Migration {
  std::uint64_t extent = 0;
  std::uint32_t from = 0, to = 0;
  std::uint64_t src = 0, dst = 0;
  std::vector<std::uint64_t> todo, redirty;
  std::uint32_t cursor = 0;     // next chunk to look at in `todo`
  std::uint32_t in_flight = 0;  // chunk copies in flight
  std::uint32_t rounds = 0;     // extra rounds so far
  bool cancelled = false;       // the extent was discarded
  bool failed = false;          // a copy I/O failed
  bool waiting_writes = false;  // clean round, waiting for writes in flight
  bool holding = false;         // final round: new writes to the extent wait in `held`
  Nanos started = 0;
  std::vector<Parked> held;  // writes/discards held by the final round, in order
};

struct TierTarget::ChunkOp {
  Migration* m = nullptr;
  std::uint32_t chunk = 0;
  std::byte* buf = nullptr;
};

namespace {

bool AnyBit(const std::vector<std::uint64_t>& bits) {
  return std::any_of(bits.begin(), bits.end(), [](std::uint64_t w) { return w != 0; });
}

}  // namespace

double TierStats::OpShare(std::size_t tier) const {
  std::uint64_t total = zero_read_ops, mine = 0;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const std::uint64_t ops = tiers[t].read_ops + tiers[t].write_ops;
    total += ops;
    if (t == tier) mine = ops;
  }
  return total == 0 ? 0.0 : static_cast<double>(mine) / static_cast<double>(total);
}

double TierStats::ByteShare(std::size_t tier) const {
  std::uint64_t total = zero_read_bytes, mine = 0;
  for (std::size_t t = 0; t < tiers.size(); ++t) {
    const std::uint64_t b = tiers[t].read_bytes + tiers[t].write_bytes;
    total += b;
    if (t == tier) mine = b;
  }
  return total == 0 ? 0.0 : static_cast<double>(mine) / static_cast<double>(total);
}

Expected<std::unique_ptr<TierTarget>> TierTarget::Create(
    Engine& engine, std::string name, std::vector<std::unique_ptr<BlockDevice>> tiers,
    const TierConfig& config) {
  std::vector<TierGeometry> geometry;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i] == nullptr) return MakeError("tiers[" + std::to_string(i) + "]: no device");
    geometry.push_back({tiers[i]->Size(), tiers[i]->BlockSize()});
  }
  if (auto ok = ValidateTierConfig(config, geometry); !ok) return ok.error();
  return std::unique_ptr<TierTarget>(
      new TierTarget(engine, std::move(name), std::move(tiers), config, geometry));
}

TierTarget::TierTarget(Engine& engine, std::string name,
                       std::vector<std::unique_ptr<BlockDevice>> tiers, const TierConfig& config,
                       const std::vector<TierGeometry>& geometry)
    : BlockDevice(engine, std::move(name)),
      tiers_(std::move(tiers)),
      config_(config),
      size_(TierVolumeSize(config, geometry)),
      block_size_(TierBlockSize(geometry)),
      extent_size_(config.extent_size),
      extents_((size_ + extent_size_ - 1) / extent_size_),
      chunks_per_extent_(static_cast<std::uint32_t>(extent_size_ / config.migration_io_size)),
      map_(extents_),
      heat_(extents_, config.heat_half_life),
      pin_(extents_, kNoPin),
      writes_in_flight_(extents_, 0),
      pin_reserve_(tiers_.size(), 0),
      usage_(tiers_.size()) {
  for (const auto& t : tiers_) {
    free_.emplace_back(TierSlots(t->Size(), extent_size_));
    requires_data_ = requires_data_ || t->RequiresData();
  }
  for (std::size_t t = 0; t < tiers_.size(); ++t) usage_[t].slots = free_[t].slots();
  for (const TierPin& p : config_.pins) {
    for (std::uint64_t e = p.offset / extent_size_; e <= (p.offset + p.length - 1) / extent_size_;
         ++e) {
      pin_[e] = static_cast<std::uint8_t>(p.tier);
    }
  }
  for (std::uint8_t p : pin_) {
    if (p == kNoPin) {
      ++unmapped_unpinned_;
    } else {
      ++pin_reserve_[p];
      ++pin_reserve_total_;
    }
  }
  move_data_ = requires_data_;
  counters_.extent_size = extent_size_;
  counters_.volume_extents = extents_;
}

TierTarget::~TierTarget() {
  if (pass_timer_) engine().Cancel(*pass_timer_);
  if (pump_timer_) engine().Cancel(*pump_timer_);
}

std::vector<BlockDevice*> TierTarget::Children() const {
  std::vector<BlockDevice*> out;
  for (const auto& t : tiers_) out.push_back(t.get());
  return out;
}

std::uint64_t TierTarget::ExtentBytes(std::uint64_t e) const {
  return std::min(extent_size_, size_ - e * extent_size_);
}

std::optional<ExtentPlacement> TierTarget::PlacementAt(std::uint64_t offset) const {
  if (offset >= size_) return std::nullopt;
  return map_.Lookup(offset / extent_size_);
}

// ---------------------------------------------------------------------------
// Foreground path

void TierTarget::SubmitImpl(const IoRequest& req, IoCallback done) {
  if (req.op == IoOp::kFlush) {
    Request* r = requests_.Acquire();
    r->done = std::move(done);
    r->req = req;
    r->status = Status::kOk;
    r->epoch = epoch_;
    ++in_flight_by_epoch_.back();
    r->remaining = static_cast<std::uint32_t>(tiers_.size());
    for (auto& t : tiers_) t->Submit(req, [this, r](Status st) { PieceDone(r, st); });
    return;
  }
  Dispatch(req, std::move(done), kNotHeld);
}

void TierTarget::Dispatch(const IoRequest& req, IoCallback done, Nanos held_since) {
  const std::uint64_t first = req.offset / extent_size_;
  const std::uint64_t last = (req.end() - 1) / extent_size_;
  const Nanos since = held_since == kNotHeld ? engine().Now() : held_since;
  if (!zeroing_.empty() && TouchesZeroing(first, last)) {
    zero_waiters_.push_back({req, std::move(done), since});
    return;
  }
  if (req.op != IoOp::kRead && !migrating_.empty()) {
    // A move in its final round holds new writes to its extent until the
    // map switches (bounded by one round's copy: see RoundEnd).
    for (std::uint64_t e = first; e <= last; ++e) {
      auto it = migrating_.find(e);
      if (it != migrating_.end() && it->second->holding) {
        it->second->held.push_back({req, std::move(done), since});
        return;
      }
    }
  }
  if (req.op == IoOp::kWrite) {
    if (req.data != nullptr) move_data_ = true;
    fresh_.clear();
    switch (EnsureMapped(first, last, &fresh_)) {
      case AllocResult::kOk: break;
      case AllocResult::kWait: parked_.push_back({req, std::move(done), since}); return;
      case AllocResult::kNoSpace: FinishAsync(std::move(done), Status::kNoSpace); return;
    }
  }
  if (held_since != kNotHeld) {
    const Nanos waited = engine().Now() - held_since;
    ++counters_.held_ops;
    counters_.held_ns += waited;
    counters_.max_held_ns = std::max(counters_.max_held_ns, waited);
  }
  NoteActivity();
  Request* r = requests_.Acquire();
  r->done = std::move(done);
  r->req = req;
  r->status = Status::kOk;
  r->epoch = epoch_;
  r->zeroing.clear();
  ++in_flight_by_epoch_.back();
  const std::uint64_t n = last - first + 1;
  if (req.op == IoOp::kRead) {
    heat_.Touch(first, n, config_.read_weight, engine().Now());
  } else {
    if (req.op == IoOp::kWrite) heat_.Touch(first, n, config_.write_weight, engine().Now());
    for (std::uint64_t e = first; e <= last; ++e) {
      ++writes_in_flight_[e];
      if (!migrating_.empty()) MarkDirty(e, req.offset, req.length);
    }
  }
  r->remaining = 1;  // held until every piece is issued
  if (req.op == IoOp::kDiscard) {
    IssueDiscard(r);
  } else {
    IssueReadWrite(r);
    if (req.op == IoOp::kWrite && move_data_) {
      for (std::uint64_t e : fresh_) ZeroFill(r, e);
    }
  }
  // Children never complete inside Submit, so only a request with no child
  // piece (all zero-filled reads, or discards of unmapped extents) gets here.
  // It costs a map lookup, not nothing: in simulated time a zero-latency
  // completion would let a closed loop spin forever at one instant.
  if (--r->remaining == 0) engine().ScheduleAfter(kUnmappedLatency, [this, r] { Complete(r); });
}

TierTarget::AllocResult TierTarget::EnsureMapped(std::uint64_t first, std::uint64_t last,
                                                 std::vector<std::uint64_t>* fresh) {
  for (std::uint64_t e = first; e <= last; ++e) {
    if (map_.Lookup(e)) continue;
    const std::optional<std::uint32_t> t = ChooseTier(e);
    if (!t) {
      // All or nothing for a request: the extents this call mapped go back
      // (their slots were never used), so a retried write finds them new
      // again and zero-fills them. Nothing else ran since they were mapped.
      if (fresh != nullptr) {
        for (std::uint64_t m : *fresh) {
          const ExtentPlacement p = *map_.Lookup(m);
          UnmapExtent(m);
          free_[p.tier].Free(p.slot);
        }
        fresh->clear();
      }
      // Slots come back when frees drain or moves finish; otherwise the
      // volume is really full (only a bug in the accounting gets here).
      return pending_frees_.empty() && active_.empty() ? AllocResult::kNoSpace : AllocResult::kWait;
    }
    MapExtent(e, {*t, *free_[*t].Allocate()});
    if (fresh != nullptr) fresh->push_back(e);
    if (!warming_ && *t + 1 < tiers_.size() &&
        static_cast<double>(free_[*t].used()) >
            config_.fill_threshold * static_cast<double>(free_[*t].slots())) {
      RequestPass(engine().Now());  // rotate cold extents down before the tier fills
    }
  }
  return AllocResult::kOk;
}

bool TierTarget::ProvisionAll() {
  return extents_ == 0 || EnsureMapped(0, extents_ - 1) == AllocResult::kOk;
}

void TierTarget::IssueReadWrite(Request* r) {
  const IoRequest q = r->req;
  const std::uint64_t first = q.offset / extent_size_;
  const std::uint64_t last = (q.end() - 1) / extent_size_;
  map_.ForEachRun(first, last - first + 1,
                  [&](std::uint64_t e0, std::uint64_t n, const ExtentPlacement* p) {
                    const std::uint64_t lo = std::max(q.offset, e0 * extent_size_);
                    const std::uint64_t hi = std::min(q.end(), (e0 + n) * extent_size_);
                    if (p == nullptr) {
                      if (q.op != IoOp::kRead) {  // EnsureMapped mapped every written extent
                        r->status = Status::kIoError;
                        return;
                      }
                      if (q.data != nullptr) std::memset(q.data + (lo - q.offset), 0, hi - lo);
                      ++counters_.zero_read_ops;
                      counters_.zero_read_bytes += hi - lo;
                      return;
                    }
                    IoRequest c = q;
                    c.offset = p->slot * extent_size_ + (lo - e0 * extent_size_);
                    c.length = hi - lo;
                    if (q.data != nullptr) c.data = q.data + (lo - q.offset);
                    TierUsage& u = usage_[p->tier];
                    if (q.op == IoOp::kRead) {
                      ++u.read_ops;
                      u.read_bytes += c.length;
                    } else {
                      ++u.write_ops;
                      u.write_bytes += c.length;
                    }
                    ++r->remaining;
                    tiers_[p->tier]->Submit(c, [this, r](Status st) { PieceDone(r, st); });
                  });
}

bool TierTarget::TouchesZeroing(std::uint64_t first, std::uint64_t last) const {
  for (std::uint64_t e = first; e <= last; ++e) {
    if (zeroing_.contains(e)) return true;
  }
  return false;
}

void TierTarget::ZeroFill(Request* r, std::uint64_t e) {
  const IoRequest q = r->req;
  const std::uint64_t start = e * extent_size_;
  const std::uint64_t end = start + ExtentBytes(e);
  const std::uint64_t lo = std::max(q.offset, start);
  const std::uint64_t hi = std::min(q.end(), end);
  // Requests to the extent wait even when the write covers it whole: until
  // the write lands, the slot holds its last owner's data.
  ++zeroing_[e];
  r->zeroing.push_back(e);
  if (lo == start && hi == end) return;
  const ExtentPlacement p = *map_.Lookup(e);
  constexpr std::uint64_t kZeroChunk = 1ull << 20;
  if (zeros_.size() == 0) {
    zeros_ = AlignedBuffer(std::min(extent_size_, kZeroChunk));
    std::memset(zeros_.data(), 0, zeros_.size());
  }
  auto fill = [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t at = from; at < to; at += zeros_.size()) {
      const std::uint64_t len = std::min<std::uint64_t>(zeros_.size(), to - at);
      IoRequest z{IoOp::kWrite, 0, p.slot * extent_size_ + (at - start), len, zeros_.data()};
      ++usage_[p.tier].write_ops;
      usage_[p.tier].write_bytes += len;
      counters_.zero_fill_bytes += len;
      ++r->remaining;
      tiers_[p.tier]->Submit(z, [this, r](Status st) { PieceDone(r, st); });
    }
  };
  fill(start, lo);
  fill(hi, end);
}

void TierTarget::IssueDiscard(Request* r) {
  const IoRequest q = r->req;
  bool retired = false;
  for (std::uint64_t e = q.offset / extent_size_; e <= (q.end() - 1) / extent_size_; ++e) {
    const std::optional<ExtentPlacement> p = map_.Lookup(e);
    if (!p) continue;
    const std::uint64_t start = e * extent_size_;
    const std::uint64_t lo = std::max(q.offset, start);
    const std::uint64_t hi = std::min(q.end(), start + ExtentBytes(e));
    IoRequest c{IoOp::kDiscard, 0, p->slot * extent_size_ + (lo - start), hi - lo, nullptr};
    if (lo == start && hi == start + ExtentBytes(e)) {
      // Whole extent: unmap it. Its slot is reused only after the requests
      // in flight now (this discard's own piece included) have completed.
      c.length = extent_size_;
      heat_.Reset(e);
      UnmapExtent(e);
      auto it = migrating_.find(e);
      if (it != migrating_.end()) {
        Migration* m = it->second;
        m->cancelled = true;
        migrating_.erase(it);
        // A move with copies in flight frees both slots when they drain
        // (ChunkWriteDone). One with none (waiting for its bandwidth budget,
        // or for writes in flight) has nothing left to call it: retire it
        // now. It holds no writes (this discard would have been held).
        if (m->in_flight == 0) {
          Retire(m, false);
          retired = true;
        }
      } else {
        DeferFree(p->tier, p->slot);
      }
    }
    ++r->remaining;
    tiers_[p->tier]->Submit(c, [this, r](Status st) { PieceDone(r, st); });
  }
  if (retired) PumpMigrations();  // the next queued move, or the end of the batch
}

void TierTarget::PieceDone(Request* r, Status st) {
  // A tier that cannot discard still holds the old data; discard does not
  // promise zeros, so that is not an error.
  if (r->req.op == IoOp::kDiscard && st == Status::kNotSupported) st = Status::kOk;
  if (r->status == Status::kOk && st != Status::kOk) r->status = st;
  if (--r->remaining == 0) Complete(r);
}

void TierTarget::Complete(Request* r) {
  const IoRequest q = r->req;
  if (q.op == IoOp::kWrite || q.op == IoOp::kDiscard) {
    bool kicked = false;
    for (std::uint64_t e = q.offset / extent_size_; e <= (q.end() - 1) / extent_size_; ++e) {
      --writes_in_flight_[e];
      if (migrating_.empty()) continue;
      // Marking at completion too catches writes submitted before the copy
      // round started that landed after its reads.
      MarkDirty(e, q.offset, q.length);
      auto it = migrating_.find(e);
      if (it != migrating_.end() && it->second->waiting_writes && writes_in_flight_[e] == 0) {
        it->second->waiting_writes = false;
        RoundEnd(it->second);
        kicked = true;
      }
    }
    if (kicked) PumpMigrations();
  }
  bool unblocked = false;
  for (std::uint64_t e : r->zeroing) {
    // A move planned meanwhile may have copied the slot before the zeros
    // landed: copy it again.
    if (!migrating_.empty()) MarkDirty(e, e * extent_size_, extent_size_);
    auto it = zeroing_.find(e);
    if (--it->second == 0) {
      zeroing_.erase(it);
      unblocked = true;
    }
  }
  --in_flight_by_epoch_[r->epoch - epoch_base_];
  IoCallback done = std::move(r->done);
  const Status st = r->status;
  requests_.Release(r);
  ReleaseDeferred();
  if (unblocked) Redispatch(zero_waiters_);
  Finish(done, st);
}

void TierTarget::Redispatch(std::deque<Parked>& waiting) {
  if (waiting.empty()) return;
  // Taken out first: a request that has to wait again goes back in.
  std::deque<Parked> retry;
  retry.swap(waiting);
  for (Parked& p : retry) Dispatch(p.req, std::move(p.done), p.since);
}

void TierTarget::NoteActivity() {
  activity_ = true;
  if (!pass_timer_ && !migrating() && config_.schedule != MigrationSchedule::kOff) {
    RequestPass(NextPassTime());
  }
}

// ---------------------------------------------------------------------------
// Space accounting

std::optional<std::uint32_t> TierTarget::ChooseTier(std::uint64_t e) const {
  if (pin_[e] != kNoPin) {
    // The pin's reserve counts this extent, so any free slot is its own.
    if (free_[pin_[e]].free() > 0) return pin_[e];
    return std::nullopt;
  }
  const std::uint32_t n = static_cast<std::uint32_t>(tiers_.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t t = config_.placement == TierPlacement::kFastFirst ? i : n - 1 - i;
    if (free_[t].free() > pin_reserve_[t]) return t;
  }
  return std::nullopt;
}

bool TierTarget::CanTakeForMigration(std::uint32_t t) const {
  // A copy holds two slots; every extent not yet written must still find one.
  std::uint64_t total_free = 0;
  for (const auto& f : free_) total_free += f.free();
  return free_[t].free() >= 1 + pin_reserve_[t] &&
         total_free >= 1 + pin_reserve_total_ + unmapped_unpinned_;
}

void TierTarget::MapExtent(std::uint64_t e, ExtentPlacement p) {
  map_.Set(e, p);
  ++usage_[p.tier].extents;
  if (pin_[e] == kNoPin) {
    --unmapped_unpinned_;
  } else {
    --pin_reserve_[pin_[e]];
    --pin_reserve_total_;
  }
}

void TierTarget::UnmapExtent(std::uint64_t e) {
  const std::optional<ExtentPlacement> p = map_.Lookup(e);
  if (!p) return;
  map_.Erase(e);
  --usage_[p->tier].extents;
  if (pin_[e] == kNoPin) {
    ++unmapped_unpinned_;
  } else {
    ++pin_reserve_[pin_[e]];
    ++pin_reserve_total_;
  }
}

void TierTarget::DeferFree(std::uint32_t tier, std::uint64_t slot) {
  pending_frees_.push_back({epoch_, tier, slot});
  ++epoch_;
  in_flight_by_epoch_.push_back(0);
  ReleaseDeferred();
}

void TierTarget::ReleaseDeferred() {
  while (in_flight_by_epoch_.size() > 1 && in_flight_by_epoch_.front() == 0) {
    in_flight_by_epoch_.pop_front();
    ++epoch_base_;
  }
  bool freed = false;
  while (!pending_frees_.empty() && pending_frees_.front().epoch < epoch_base_) {
    free_[pending_frees_.front().tier].Free(pending_frees_.front().slot);
    pending_frees_.pop_front();
    freed = true;
  }
  if (freed) {
    Redispatch(parked_);
    PumpMigrations();
  }
}

// ---------------------------------------------------------------------------
// Migration

Nanos TierTarget::NextPassTime() const {
  const Nanos now = engine().Now();
  if (config_.schedule == MigrationSchedule::kPeriodic) {
    return (now / config_.period + 1) * config_.period;
  }
  return now + config_.interval;
}

void TierTarget::RequestPass(Nanos at) {
  if (config_.schedule == MigrationSchedule::kOff) return;
  if (pass_timer_) {
    if (pass_at_ <= at) return;
    engine().Cancel(*pass_timer_);
  }
  pass_at_ = at;
  pass_timer_ = engine().ScheduleAt(at, [this] {
    pass_timer_.reset();
    RunPass();
  });
}

void TierTarget::RunPass() {
  // A pass while moves are in progress would plan with stale counts; the
  // end of the batch re-arms the schedule instead.
  if (migrating()) return;
  OptimizeNow();
}

std::uint32_t TierTarget::OptimizeNow() {
  if (migrating()) return 0;
  ++counters_.migration_passes;
  const std::uint32_t planned = Plan();
  activity_ = false;
  truncated_ = planned >= config_.max_moves_per_pass;
  if (planned > 0) {
    batch_open_ = true;
    moved_in_batch_ = 0;
    PumpMigrations();
  }
  return planned;
}

std::uint32_t TierTarget::Plan() {
  const std::size_t n = tiers_.size();
  using Candidate = std::pair<float, std::uint64_t>;  // (score, extent)
  std::vector<std::vector<Candidate>> by_tier(n);
  map_.ForEachRun(0, extents_,
                  [&](std::uint64_t e0, std::uint64_t count, const ExtentPlacement* p) {
                    if (p == nullptr) return;
                    for (std::uint64_t e = e0; e < e0 + count; ++e) {
                      if (pin_[e] == kNoPin) by_tier[p->tier].push_back({heat_.Score(e), e});
                    }
                  });
  // Slots per tier after the moves planned so far; a tier's room is what is
  // neither used nor reserved for its pinned extents not yet written.
  std::vector<std::uint64_t> used(n);
  for (std::size_t t = 0; t < n; ++t) used[t] = free_[t].used();
  auto room = [&](std::size_t t) {
    const std::uint64_t taken = used[t] + pin_reserve_[t];
    return taken >= free_[t].slots() ? 0 : free_[t].slots() - taken;
  };
  const double min_score = config_.min_promote_heat * heat_.ScoreScale(engine().Now());
  const double factor = 1.0 + config_.promote_hysteresis;
  std::uint32_t planned = 0;
  const std::uint32_t budget = config_.max_moves_per_pass;
  for (std::uint32_t i = 0; i + 1 < n && planned < budget; ++i) {
    auto& fast = by_tier[i];
    auto& slow = by_tier[i + 1];
    std::sort(fast.begin(), fast.end());                    // coldest first
    std::sort(slow.begin(), slow.end(), std::greater<>());  // hottest first
    const auto allowed = static_cast<std::uint64_t>(
        std::floor(config_.fill_threshold * static_cast<double>(free_[i].slots())));
    std::size_t fi = 0, si = 0;
    // Rotation: a tier above its fill threshold sends its coldest extents
    // down, as far as the tier below has room, so that new extents find
    // room. Once every extent is mapped (fixed provisioning, or a thin volume
    // written everywhere) no write needs a new slot and rotation would only
    // cost copies: a full fast tier then stays full and swaps below change
    // what is on it. Rotation takes at most half the budget so a pass also
    // promotes what is hot.
    const std::uint32_t rotate_budget = std::max<std::uint32_t>(1, budget / 2);
    while (unmapped_unpinned_ > 0 && used[i] > allowed && fi < fast.size() &&
           planned < rotate_budget && room(i + 1) > 0) {
      queue_.push_back({fast[fi++].second, i, i + 1});
      --used[i];
      ++used[i + 1];
      ++planned;
    }
    // Promotion into free room below the threshold, then by swaps: the
    // hottest extent below displaces the coldest above if hotter by the
    // hysteresis. A swap is two moves through the spare slots (the
    // promotion's source slot makes room for the demotion, or the other way
    // round), so it needs no free room on either tier; PumpMigrations starts
    // whichever half finds a slot first.
    while (si < slow.size() && planned < budget) {
      const auto [hot_score, hot] = slow[si];
      if (hot_score <= 0 || hot_score < min_score) break;
      if (used[i] < allowed && room(i) > 0) {
        queue_.push_back({hot, i + 1, i});
        ++used[i];
        --used[i + 1];
        ++si;
        ++planned;
        continue;
      }
      if (fi >= fast.size() || planned + 2 > budget) break;
      const auto [cold_score, cold] = fast[fi];
      if (!(hot_score > cold_score * factor)) break;
      queue_.push_back({hot, i + 1, i});
      queue_.push_back({cold, i, i + 1});
      ++fi;
      ++si;
      planned += 2;
    }
  }
  return planned;
}

TierTarget::StartResult TierTarget::StartMove(const Move& mv) {
  const std::optional<ExtentPlacement> p = map_.Lookup(mv.extent);
  if (!p || p->tier != mv.from || pin_[mv.extent] != kNoPin || migrating_.count(mv.extent) != 0) {
    return StartResult::kStale;  // discarded, rewritten elsewhere, or already moving
  }
  if (!CanTakeForMigration(mv.to)) return StartResult::kNoSpace;
  auto m = std::make_unique<Migration>();
  m->extent = mv.extent;
  m->from = mv.from;
  m->to = mv.to;
  m->src = p->slot;
  m->dst = *free_[mv.to].Allocate();
  const std::size_t words = (chunks_per_extent_ + 63) / 64;
  m->todo.assign(words, ~0ull);
  if (chunks_per_extent_ % 64 != 0) m->todo.back() = (1ull << (chunks_per_extent_ % 64)) - 1;
  m->redirty.assign(words, 0);
  if (active_.empty()) busy_since_ = engine().Now();
  m->started = engine().Now();
  migrating_[mv.extent] = m.get();
  active_.push_back(std::move(m));
  return StartResult::kStarted;
}

void TierTarget::PumpMigrations() {
  if (pumping_) return;
  pumping_ = true;
  for (auto it = queue_.begin();
       it != queue_.end() && active_.size() < config_.max_migration_ios;) {
    if (StartMove(*it) == StartResult::kNoSpace) {
      ++it;  // a move ahead of it (or a free in flight) may make room
    } else {
      it = queue_.erase(it);
    }
  }
  if (active_.empty() && pending_frees_.empty()) queue_.clear();  // nothing will make room
  const Nanos now = engine().Now();
  bool progress = true;
  while (progress && copy_ios_ < config_.max_migration_ios) {
    progress = false;
    for (std::size_t i = 0; i < active_.size() && copy_ios_ < config_.max_migration_ios; ++i) {
      if (config_.migration_bandwidth != 0 && now < next_copy_at_) break;
      if (IssueNextChunk(active_[i].get())) progress = true;
    }
  }
  if (config_.migration_bandwidth != 0 && now < next_copy_at_ && !pump_timer_ &&
      copy_ios_ < config_.max_migration_ios) {
    pump_timer_ = engine().ScheduleAt(next_copy_at_, [this] {
      pump_timer_.reset();
      PumpMigrations();
    });
  }
  pumping_ = false;
  if (!migrating()) AfterMigrationsDrain();
}

std::byte* TierTarget::TakeBuffer() {
  if (!move_data_) return nullptr;
  if (free_buffers_.empty()) {
    buffers_.emplace_back(config_.migration_io_size);
    return buffers_.back().data();
  }
  std::byte* b = free_buffers_.back();
  free_buffers_.pop_back();
  return b;
}

bool TierTarget::IssueNextChunk(Migration* m) {
  if (m->cancelled || m->failed) return false;
  std::uint32_t c = m->cursor;
  while (c < chunks_per_extent_ && (m->todo[c / 64] & (1ull << (c % 64))) == 0) ++c;
  m->cursor = c;
  if (c >= chunks_per_extent_) return false;
  m->todo[c / 64] &= ~(1ull << (c % 64));
  m->cursor = c + 1;
  ChunkOp* op = chunk_ops_.Acquire();
  op->m = m;
  op->chunk = c;
  op->buf = TakeBuffer();
  ++copy_ios_;
  ++m->in_flight;
  const std::uint64_t chunk = config_.migration_io_size;
  if (config_.migration_bandwidth != 0) {
    next_copy_at_ = std::max(next_copy_at_, engine().Now()) +
                    static_cast<Nanos>(static_cast<double>(chunk) * 1e9 /
                                       static_cast<double>(config_.migration_bandwidth));
  }
  IoRequest rd{IoOp::kRead, 0, m->src * extent_size_ + c * chunk, chunk, op->buf};
  tiers_[m->from]->Submit(rd, [this, op](Status st) { ChunkReadDone(op, st); });
  return true;
}

void TierTarget::ChunkReadDone(ChunkOp* op, Status st) {
  Migration* m = op->m;
  if (st == Status::kOk && !m->cancelled) {
    const std::uint64_t chunk = config_.migration_io_size;
    IoRequest wr{IoOp::kWrite, 0, m->dst * extent_size_ + op->chunk * chunk, chunk, op->buf};
    tiers_[m->to]->Submit(wr, [this, op](Status s) { ChunkWriteDone(op, s); });
    return;
  }
  ChunkWriteDone(op, st);
}

void TierTarget::ChunkWriteDone(ChunkOp* op, Status st) {
  Migration* m = op->m;
  if (st != Status::kOk) {
    ++counters_.migration_errors;
    m->failed = true;
  }
  if (op->buf != nullptr) free_buffers_.push_back(op->buf);
  chunk_ops_.Release(op);
  --copy_ios_;
  --m->in_flight;
  if (m->in_flight == 0) {
    std::uint32_t c = m->cursor;
    while (c < chunks_per_extent_ && (m->todo[c / 64] & (1ull << (c % 64))) == 0) ++c;
    if (c >= chunks_per_extent_ || m->cancelled || m->failed) RoundEnd(m);
  }
  PumpMigrations();
}

void TierTarget::RoundEnd(Migration* m) {
  if (m->cancelled || m->failed) {
    Retire(m, false);
    return;
  }
  if (AnyBit(m->redirty)) {
    // An extent written faster than a round copies never comes clean: after
    // max_recopy_rounds the move holds new writes to it (Dispatch parks them
    // on the move), so the next rounds only see the writes already in flight
    // and the move converges; the held writes go to the new place.
    if (++m->rounds >= config_.max_recopy_rounds && !m->holding) {
      m->holding = true;
      ++counters_.held_rounds;
    }
    ++counters_.recopy_rounds;
    m->todo.swap(m->redirty);
    std::fill(m->redirty.begin(), m->redirty.end(), 0);
    m->cursor = 0;
    return;  // the caller pumps the next round
  }
  if (writes_in_flight_[m->extent] > 0) {
    m->waiting_writes = true;  // their completion marks chunks and calls RoundEnd again
    return;
  }
  Retire(m, true);
}

void TierTarget::Retire(Migration* m, bool switched) {
  std::vector<Parked> held = std::move(m->held);
  const Migration done = std::move(*m);
  if (!done.cancelled) migrating_.erase(done.extent);
  auto it =
      std::find_if(active_.begin(), active_.end(), [m](const auto& p) { return p.get() == m; });
  active_.erase(it);  // m is gone from here on
  if (active_.empty()) counters_.migration_busy_ns += engine().Now() - busy_since_;
  const Nanos took = engine().Now() - done.started;
  counters_.max_move_ns = std::max(counters_.max_move_ns, took);
  if (switched) {
    map_.Set(done.extent, {done.to, done.dst});
    --usage_[done.from].extents;
    ++usage_[done.to].extents;
    ++moved_in_batch_;
    if (done.to < done.from) {
      ++counters_.promotions;
      counters_.promoted_bytes += extent_size_;
    } else {
      ++counters_.demotions;
      counters_.demoted_bytes += extent_size_;
    }
    DeferFree(done.from, done.src);  // in-flight reads may still use the source
  } else {
    ++counters_.migrations_abandoned;
    if (done.cancelled) DeferFree(done.from, done.src);
    DeferFree(done.to, done.dst);
  }
  // Held writes now go wherever the extent lives (or allocate it anew if a
  // discard unmapped it), in their arrival order.
  for (Parked& p : held) Dispatch(p.req, std::move(p.done), p.since);
}

void TierTarget::MarkDirty(std::uint64_t e, std::uint64_t offset, std::uint64_t length) {
  auto it = migrating_.find(e);
  if (it == migrating_.end()) return;
  Migration* m = it->second;
  const std::uint64_t start = e * extent_size_;
  const std::uint64_t lo = std::max(offset, start);
  const std::uint64_t hi = std::min(offset + length, start + extent_size_);
  if (lo >= hi) return;
  const std::uint64_t chunk = config_.migration_io_size;
  for (std::uint64_t c = (lo - start) / chunk; c <= (hi - 1 - start) / chunk; ++c) {
    m->redirty[c / 64] |= 1ull << (c % 64);
  }
}

void TierTarget::AfterMigrationsDrain() {
  if (!batch_open_) return;
  batch_open_ = false;
  if (activity_ || (truncated_ && moved_in_batch_ > 0)) RequestPass(NextPassTime());
}

TierStats TierTarget::tier_stats() const {
  TierStats s = counters_;
  s.tiers = usage_;
  for (std::size_t t = 0; t < s.tiers.size(); ++t) {
    s.tiers[t].bytes = s.tiers[t].extents * extent_size_;
    s.tiers[t].free_slots = free_[t].free();
  }
  if (!active_.empty()) s.migration_busy_ns += engine().Now() - busy_since_;
  s.map_intervals = map_.intervals();
  s.heat_histogram = heat_.Histogram(engine().Now());
  return s;
}

}  // namespace tierlab
