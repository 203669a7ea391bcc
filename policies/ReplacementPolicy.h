#pragma once
// Replacement (eviction) policy: decides which resident cache line leaves.
//
// Policies are pure data structures, no I/O and no clock. They work on dense
// slot numbers in [0, capacity) — the cache target owns the map from volume
// line to slot — so a policy can keep its metadata in flat arrays (a few bytes
// per line). The volume line number (`key`) is passed on Insert so that
// policies with ghost history (ARC, 2Q, S3-FIFO) can recognise a returning
// line after it was evicted.
//
// Threading: not thread-safe; one cache target owns one policy.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace tierlab {

using Slot = std::uint32_t;
using LineKey = std::uint64_t;

// A cheap non-owning predicate: may this slot be evicted now? (A dirty line in
// write-back may not.) Null means every slot may be evicted.
struct EvictFilter {
  bool (*fn)(void* ctx, Slot s) = nullptr;
  void* ctx = nullptr;
  bool operator()(Slot s) const { return fn == nullptr || fn(ctx, s); }
};

// How many filter-rejected candidates Evict() examines before giving up with
// nullopt. The caller (write-back cache) reacts to nullopt by destaging or by
// bypassing the cache for this request.
inline constexpr std::size_t kEvictScanLimit = 64;

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;

  // `s` (not resident) now holds `key`. The caller never inserts more than
  // capacity slots; it calls Evict() first when full.
  virtual void Insert(Slot s, LineKey key) = 0;
  // A resident slot was accessed (a hit).
  virtual void Touch(Slot s) = 0;
  // A hint that `s` will be touched soon: a software prefetch of its
  // metadata, no effect on the policy. Default: nothing.
  virtual void Prefetch(Slot s) const {}
  // `s` left the cache for another reason (invalidated, discarded). No-op if
  // `s` is not resident.
  virtual void Remove(Slot s) = 0;
  // Chooses a victim among resident slots that pass `filter`, removes it from
  // the policy and returns it. Returns nullopt if there is none (empty, or no
  // evictable slot within the policy's search bound). Slots the filter rejects
  // stay resident where they are (their recency/frequency state unchanged);
  // every policy gives up after kEvictScanLimit rejections, so Evict stays
  // cheap when the cold end of the cache is all dirty.
  virtual std::optional<Slot> Evict(EvictFilter filter = {}) = 0;

  // Number of resident slots tracked.
  virtual std::size_t Size() const = 0;
  // Bytes of metadata the policy holds (for the bytes-per-line figure).
  virtual std::size_t MemoryBytes() const = 0;
  virtual std::string Name() const = 0;
};

}  // namespace tierlab
