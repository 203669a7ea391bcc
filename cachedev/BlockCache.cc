#include "cachedev/BlockCache.h"

#include <algorithm>
#include <cstring>

#include "policies/PolicyRegistry.h"

namespace tierlab {

std::string BlockCacheConfig::Validate() const {
  if (line_size < 512 || (line_size & (line_size - 1)) != 0) {
    return "line_size: must be a power of two >= 512, got " + std::to_string(line_size);
  }
  if (size < line_size) return "size: must hold at least one line";
  if (size / line_size >= (1ull << 31)) return "size: too many lines";
  if (lookup_ns < 0) return "lookup_ns: must be >= 0";
  if (insert_ns < 0) return "insert_ns: must be >= 0";
  if (locks == 0) return "locks: must be >= 1";
  return {};
}

Expected<std::unique_ptr<BlockCache>> BlockCache::Create(Engine& engine, std::string name,
                                                         std::unique_ptr<BlockDevice> child,
                                                         const BlockCacheConfig& config) {
  if (child == nullptr) return MakeError("child: missing");
  if (std::string e = config.Validate(); !e.empty()) return MakeError(e);
  if (config.line_size % child->BlockSize() != 0) {
    return MakeError("line_size: not a multiple of the device block size " +
                     std::to_string(child->BlockSize()));
  }
  const auto capacity = static_cast<std::uint32_t>(config.size / config.line_size);
  auto spec = ParseReplacementSpec(config.policy);
  if (!spec.ok()) return MakeError("policy: " + spec.error().message);
  auto policy = spec->make(capacity, config.seed);
  if (policy == nullptr) return MakeError("policy: too many lines for " + config.policy);
  return std::unique_ptr<BlockCache>(new BlockCache(engine, std::move(name), std::move(child),
                                                    config, capacity, std::move(policy)));
}

BlockCache::BlockCache(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                       const BlockCacheConfig& cfg, std::uint32_t capacity,
                       std::unique_ptr<ReplacementPolicy> policy)
    : ForwardingTarget(engine, std::move(name), std::move(child)),
      cfg_(cfg),
      with_data_(cfg.with_data || this->child().RequiresData()),
      model_cost_(engine.IsSimulated()),
      capacity_(capacity),
      policy_(std::move(policy)),
      index_(capacity),
      slot_key_(capacity, 0),
      busy_until_(cfg.locks, 0) {
  cfg_.with_data = with_data_;
  free_.reserve(capacity);
  for (Slot s = capacity; s-- > 0;) free_.push_back(s);
  if (with_data_) arena_.resize(static_cast<std::size_t>(capacity) * cfg_.line_size);
  stats_.capacity_lines = capacity;
}

BlockCacheStats BlockCache::cache_stats() const {
  BlockCacheStats s = stats_;
  s.resident_lines = index_.Size();
  return s;
}

void BlockCache::SubmitImpl(const IoRequest& req, IoCallback done) {
  Op* op = ops_.Reuse();
  op->self = this;
  op->req = req;
  op->done = std::move(done);
  op->status = Status::kOk;
  op->all_hit = false;
  if (req.op == IoOp::kFlush) {
    child().Submit(req, [op](Status st) {
      op->status = st;
      op->self->Done(op);
    });
    return;
  }
  op->first = req.offset / cfg_.line_size;
  op->last = (req.end() - 1) / cfg_.line_size;
  op->lock_mode = req.op == IoOp::kRead ? LineLockMode::kRead : LineLockMode::kExclusive;
  op->granted = [](LockWaiter* w) {
    Op* o = static_cast<Op*>(w);
    o->self->engine().Post([o] { o->self->Locked(o); });
  };
  if (locks_.Acquire(op)) Locked(op);
}

void BlockCache::OnLock(Op* op, Nanos cost, void (BlockCache::*cont)(Op*)) {
  if (!model_cost_ || cost == 0) {
    // Never continue inline: this may run inside Submit().
    engine().Post([this, op, cont] { (this->*cont)(op); });
    return;
  }
  const std::uint64_t h = op->first * 0x9E3779B97F4A7C15ull;
  Nanos& busy = busy_until_[(h >> 32) % busy_until_.size()];
  const Nanos now = engine().Now();
  const Nanos start = std::max(now, busy);
  busy = start + cost;
  stats_.lock_wait_ns += start - now;
  stats_.cpu_ns += cost;
  engine().ScheduleAt(busy, [this, op, cont] { (this->*cont)(op); });
}

void BlockCache::Locked(Op* op) {
  OnLock(op, cfg_.lookup_ns * static_cast<Nanos>(Lines(op->req)), &BlockCache::AfterLookup);
}

void BlockCache::Drop(std::uint64_t line) {
  if (Forget(line)) ++stats_.invalidations;
}

bool BlockCache::Forget(std::uint64_t line) {
  const std::uint32_t s = index_.Find(line);
  if (s == FlatKeyIndex::kAbsent) return false;
  policy_->Remove(s);
  index_.Erase(line);
  free_.push_back(s);
  return true;
}

std::optional<Slot> BlockCache::Place(std::uint64_t line, bool* evicted) {
  Slot s;
  *evicted = false;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
  } else {
    const std::optional<Slot> v = policy_->Evict();
    if (!v) return std::nullopt;
    s = *v;
    index_.Erase(slot_key_[s]);
    *evicted = true;
  }
  slot_key_[s] = line;
  index_.Insert(line, s);
  policy_->Insert(s, line);
  return s;
}

void BlockCache::AfterLookup(Op* op) {
  const IoRequest& r = op->req;
  if (r.op == IoOp::kRead) {
    ++stats_.read_requests;
    std::uint64_t hits = 0;
    for (std::uint64_t line = op->first; line <= op->last; ++line) {
      const std::uint32_t s = index_.Find(line);
      if (s != FlatKeyIndex::kAbsent) {
        policy_->Touch(s);
        ++hits;
      }
    }
    const std::uint64_t n = op->last - op->first + 1;
    stats_.hit_lines += hits;
    stats_.miss_lines += n - hits;
    if (hits == n) {
      ++stats_.read_hits;
      if (r.data != nullptr && with_data_) {
        for (std::uint64_t line = op->first; line <= op->last; ++line) {
          const std::uint64_t b = std::max(r.offset, line * cfg_.line_size);
          const std::uint64_t e = std::min(r.end(), (line + 1) * cfg_.line_size);
          std::memcpy(r.data + (b - r.offset),
                      SlotData(index_.Find(line)) + (b - line * cfg_.line_size), e - b);
        }
      }
      Done(op);
      return;
    }
  } else {
    // Writes and discards: partial lines and discarded lines are dropped now
    // (the exclusive lock keeps readers out until the write completes);
    // whole written lines are updated after the write succeeds.
    for (std::uint64_t line = op->first; line <= op->last; ++line) {
      if (r.op == IoOp::kDiscard || !Whole(r, line)) Drop(line);
    }
  }
  child().Submit(r, [op](Status st) {
    op->status = st;
    op->self->AfterChild(op);
  });
}

void BlockCache::AfterChild(Op* op) {
  const IoRequest& r = op->req;
  if (r.op == IoOp::kWrite) {
    for (std::uint64_t line = op->first; line <= op->last; ++line) {
      const std::uint32_t s = index_.Find(line);
      if (s == FlatKeyIndex::kAbsent) continue;
      if (op->status != Status::kOk || !with_data_ || r.data == nullptr) {
        if (op->status != Status::kOk) Drop(line);
        continue;
      }
      std::memcpy(SlotData(s), r.data + (line * cfg_.line_size - r.offset), cfg_.line_size);
      ++stats_.write_updates;
    }
    Done(op);
    return;
  }
  if (r.op != IoOp::kRead || op->status != Status::kOk) {
    Done(op);
    return;
  }
  std::uint64_t inserts = 0;
  for (std::uint64_t line = op->first; line <= op->last; ++line) {
    inserts += Whole(r, line) && !index_.Contains(line);
  }
  OnLock(op, cfg_.insert_ns * static_cast<Nanos>(inserts), &BlockCache::AfterInsert);
}

void BlockCache::AfterInsert(Op* op) {
  const IoRequest& r = op->req;
  for (std::uint64_t line = op->first; line <= op->last; ++line) {
    if (!Whole(r, line) || index_.Contains(line)) continue;
    bool evicted = false;
    const std::optional<Slot> s = Place(line, &evicted);
    if (!s) break;
    stats_.evictions += evicted;
    ++stats_.inserts;
    if (with_data_ && r.data != nullptr) {
      std::memcpy(SlotData(*s), r.data + (line * cfg_.line_size - r.offset), cfg_.line_size);
    }
  }
  Done(op);
}

void BlockCache::Done(Op* op) {
  IoCallback done = std::move(op->done);
  const Status st = op->status;
  if (op->req.op != IoOp::kFlush) locks_.Release(op);
  ops_.Release(op);
  Finish(done, st);
}

std::uint64_t BlockCache::WarmImpl(const IoRequest& r) {
  // What the request leaves behind, without its lookup and insert costs
  // (they are time) and without counting it: the counters describe the
  // timed run.
  if (r.op == IoOp::kFlush) return 0;
  const std::uint64_t first = r.offset / cfg_.line_size;
  const std::uint64_t last = (r.end() - 1) / cfg_.line_size;
  if (r.op != IoOp::kRead) {
    // A whole written line keeps its slot (updated in place); the rest go.
    for (std::uint64_t line = first; line <= last; ++line) {
      if (r.op == IoOp::kDiscard || !Whole(r, line)) Forget(line);
    }
    return child().Warm(r);
  }
  bool all_hit = true;
  for (std::uint64_t line = first; line <= last; ++line) {
    const std::uint32_t s = index_.Find(line);
    if (s == FlatKeyIndex::kAbsent) {
      all_hit = false;
    } else {
      policy_->Touch(s);
    }
  }
  if (all_hit) return 0;
  std::uint64_t placed = child().Warm(r);
  for (std::uint64_t line = first; line <= last; ++line) {
    if (!Whole(r, line) || index_.Contains(line)) continue;
    bool evicted = false;
    if (!Place(line, &evicted)) break;
    ++placed;
  }
  return placed;
}

}  // namespace tierlab
