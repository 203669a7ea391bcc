// Functional warming of the tier target (BlockDevice::Warm): heat, first
// placement and migration applied at once. Warming takes no engine time, so
// heat does not decay meanwhile and no pass is scheduled; WarmSettle plans
// passes with the schedule's own Plan() and applies each move by switching
// the map, the copy it would cost being time.

#include <cassert>

#include "tiering/tier/TierTarget.h"

namespace tierlab {

std::uint64_t TierTarget::WarmImpl(const IoRequest& req) {
  assert(!requires_data_ && active_.empty());
  if (requires_data_ || req.op == IoOp::kFlush) return 0;
  const std::uint64_t first = req.offset / extent_size_;
  const std::uint64_t last = (req.end() - 1) / extent_size_;
  const std::uint64_t n = last - first + 1;
  std::uint64_t placed = 0;
  warming_ = true;
  if (req.op == IoOp::kRead) {
    heat_.Touch(first, n, config_.read_weight, engine().Now());
  } else if (req.op == IoOp::kWrite) {
    heat_.Touch(first, n, config_.write_weight, engine().Now());
    const std::uint64_t mapped = map_.mapped();
    if (EnsureMapped(first, last) != AllocResult::kOk) {
      warming_ = false;
      return 0;  // out of space: the timed write would fail or wait; leave it to it
    }
    placed += map_.mapped() - mapped;
  }
  warming_ = false;
  // Each mapped piece goes to its tier's stack, at the slot's offset.
  map_.ForEachRun(first, n, [&](std::uint64_t e0, std::uint64_t count, const ExtentPlacement* p) {
    if (p == nullptr) return;
    const std::uint64_t lo = std::max(req.offset, e0 * extent_size_);
    const std::uint64_t hi = std::min(req.end(), (e0 + count) * extent_size_);
    IoRequest c = req;
    c.offset = p->slot * extent_size_ + (lo - e0 * extent_size_);
    c.length = hi - lo;
    c.data = nullptr;
    placed += tiers_[p->tier]->Warm(c);
  });
  if (req.op == IoOp::kDiscard) {
    // A whole extent discarded is unmapped and its slot free at once (no
    // request is in flight to still read it).
    for (std::uint64_t e = first; e <= last; ++e) {
      const std::optional<ExtentPlacement> p = map_.Lookup(e);
      const std::uint64_t start = e * extent_size_;
      if (!p || req.offset > start || req.end() < start + ExtentBytes(e)) continue;
      heat_.Reset(e);
      UnmapExtent(e);
      free_[p->tier].Free(p->slot);
    }
  }
  return placed;
}

bool TierTarget::WarmMove(const Move& mv, bool* stale) {
  const std::optional<ExtentPlacement> p = map_.Lookup(mv.extent);
  *stale = !p || p->tier != mv.from || pin_[mv.extent] != kNoPin;
  if (*stale) return false;
  if (!CanTakeForMigration(mv.to)) return false;
  map_.Set(mv.extent, {mv.to, *free_[mv.to].Allocate()});
  --usage_[mv.from].extents;
  ++usage_[mv.to].extents;
  free_[mv.from].Free(p->slot);
  return true;
}

std::uint64_t TierTarget::WarmSettleImpl() {
  assert(active_.empty());
  std::uint64_t moved = 0;
  // A pass plans against the map as it is; its moves are applied in order,
  // a swap's halves as slots allow (as PumpMigrations starts whichever half
  // finds a slot), until the queue is done or nothing in it can move.
  // Passes repeat while they move something: heat does not change between
  // them, so the hysteresis ends the loop; the cap is a guard.
  constexpr int kMaxPasses = 1000;
  for (int pass = 0;
       pass < kMaxPasses && config_.schedule != MigrationSchedule::kOff && !migrating(); ++pass) {
    if (Plan() == 0) break;
    std::uint64_t moved_now = 0;
    bool progress = true;
    while (!queue_.empty() && progress) {
      progress = false;
      for (std::size_t i = 0; i < queue_.size();) {
        bool stale = false;
        if (WarmMove(queue_[i], &stale)) {
          ++moved_now;
          progress = true;
        } else if (!stale) {
          ++i;
          continue;
        }
        queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    queue_.clear();
    moved += moved_now;
    if (moved_now == 0) break;
  }
  return moved + BlockDevice::WarmSettleImpl();
}

}  // namespace tierlab
