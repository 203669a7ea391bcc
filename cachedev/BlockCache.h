#pragma once
// The RAM block cache target (like a cluster's CSV block cache): caches reads
// in host RAM in front of any stack; writes go through to the stack below and
// update (whole lines) or drop (partial lines) the cached copies; write misses
// are not inserted.
//
// Cost model (simulated engines only): every request pays `lookup_ns` per
// line, and every read miss `insert_ns` per inserted line, as service time on
// one of `locks` lock servers (the request's first line picks the lock; each
// lock serves one request at a time, FIFO). So with a fast device below and a
// working set far beyond the RAM, every request pays lookup + insert under
// contention and misses anyway: the cache makes I/O slower, as real block
// caches do in front of fast flash. On a real engine no artificial cost is
// added.
//
// Coherence: requests lock their lines (LineLocks.h), reads shared and writes
// and discards exclusive, until their cache update is done, so a read miss
// never inserts data older than a write that completed before it.
//
// Data: with data (config.with_data, or a child requiring data) lines live in
// a slot arena of `size` bytes and hits copy from it; timing-only keeps no
// data and allocates nothing per request.
//
// Ownership: owns the child. Threading: the engine's thread only.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cachedev/LineLocks.h"
#include "policies/FlatKeyIndex.h"
#include "policies/ReplacementPolicy.h"
#include "tiering/core/Expected.h"
#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

struct BlockCacheConfig {
  std::uint64_t size = 256ull << 20;  // bytes of RAM
  // Cache granularity; a power of two >= 512 (4 KiB = typical request size).
  std::uint64_t line_size = 4096;
  std::string policy = "lru";
  Nanos lookup_ns = 400;  // CPU per line looked up (simulation only)
  Nanos insert_ns = 800;  // CPU per line inserted (simulation only)
  std::uint32_t locks = 4;
  bool with_data = false;
  std::uint64_t seed = 1;

  // Empty if valid, else one line naming the field.
  std::string Validate() const;
};

struct BlockCacheStats {
  std::uint64_t capacity_lines = 0;
  std::uint64_t resident_lines = 0;
  std::uint64_t read_requests = 0;
  std::uint64_t read_hits = 0;  // requests served entirely from RAM
  std::uint64_t hit_lines = 0;
  std::uint64_t miss_lines = 0;
  std::uint64_t inserts = 0;
  std::uint64_t evictions = 0;
  std::uint64_t write_updates = 0;  // cached lines overwritten by writes
  std::uint64_t invalidations = 0;
  Nanos cpu_ns = 0;        // modelled CPU time charged
  Nanos lock_wait_ns = 0;  // time requests queued for a lock
  double HitRatio() const {
    const double l = static_cast<double>(hit_lines + miss_lines);
    return l == 0 ? 0 : static_cast<double>(hit_lines) / l;
  }
};

class BlockCache final : public ForwardingTarget {
 public:
  static Expected<std::unique_ptr<BlockCache>> Create(Engine& engine, std::string name,
                                                      std::unique_ptr<BlockDevice> child,
                                                      const BlockCacheConfig& config);

  // Its geometry, Children(), allocation answers (writes go through, so the
  // cache holds no data the child lacks) and prefetch hints are the child's
  // (ForwardingTarget); a cache with data needs buffers even over a child
  // that does not.
  bool RequiresData() const override { return with_data_; }
  std::string Kind() const override { return "blockcache"; }

  BlockCacheStats cache_stats() const;
  const BlockCacheConfig& config() const { return cfg_; }
  bool IsResident(std::uint64_t line) const { return index_.Contains(line); }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  // Functional warming (BlockDevice::Warm): hits touched, whole lines of a
  // read miss inserted, partial writes and discards dropped; not counted.
  std::uint64_t WarmImpl(const IoRequest& req) override;

 private:
  struct Op : LockWaiter {
    BlockCache* self = nullptr;
    IoRequest req;
    IoCallback done;
    Status status = Status::kOk;
    bool all_hit = false;
  };

  BlockCache(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
             const BlockCacheConfig& cfg, std::uint32_t capacity,
             std::unique_ptr<ReplacementPolicy> policy);

  // Runs `cont` after `cost` of service on the request's lock server.
  void OnLock(Op* op, Nanos cost, void (BlockCache::*cont)(Op*));
  void Locked(Op* op);
  void AfterLookup(Op* op);
  void AfterChild(Op* op);
  void AfterInsert(Op* op);
  void Done(Op* op);
  std::uint64_t Lines(const IoRequest& r) const {
    return (r.end() - 1) / cfg_.line_size - r.offset / cfg_.line_size + 1;
  }
  bool Whole(const IoRequest& r, std::uint64_t line) const {
    return r.offset <= line * cfg_.line_size && r.end() >= (line + 1) * cfg_.line_size;
  }
  std::byte* SlotData(Slot s) {
    return arena_.data() + static_cast<std::size_t>(s) * cfg_.line_size;
  }
  // Drops a resident line, counted as an invalidation.
  void Drop(std::uint64_t line);
  // Drops a resident line; false if it was not resident. Not counted.
  bool Forget(std::uint64_t line);
  // Puts `line` in a free slot, else the policy's victim's (`*evicted`);
  // nullopt when the policy has none. Not counted.
  std::optional<Slot> Place(std::uint64_t line, bool* evicted);

  BlockCacheConfig cfg_;
  bool with_data_;
  bool model_cost_;
  std::uint32_t capacity_;
  std::unique_ptr<ReplacementPolicy> policy_;
  FlatKeyIndex index_;
  std::vector<std::uint64_t> slot_key_;
  std::vector<Slot> free_;
  std::vector<std::byte> arena_;
  LineLocks locks_;
  std::vector<Nanos> busy_until_;
  ObjectPool<Op> ops_;
  BlockCacheStats stats_;
};

}  // namespace tierlab
