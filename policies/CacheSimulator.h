#pragma once
// A minimal cache over a replacement policy, for expected-result tests, size
// sweeps and the policy micro-benchmark: maps keys to dense slots (a flat
// open-addressing table, so the cost measured is the policy's), inserts on a
// miss after evicting when full, and counts hits and misses — libCacheSim's
// simulator reduced to the policy contract of ReplacementPolicy.h.
//
// Slot assignment is deterministic: free slots are handed out in ascending
// order and a miss reuses the slot just evicted, so reference models in tests
// can mirror it. With `check` on, every call is validated against the
// contract (evicted slot resident and accepted by the filter, Size() equal to
// the number of resident keys) and breaches are counted in Violations().
//
// Ownership: does not own the policy, which must outlive the simulator and
// must be empty and of the same capacity. Threading: not thread-safe.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "policies/FlatKeyIndex.h"
#include "policies/ReplacementPolicy.h"

namespace tierlab {

class CacheSimulator {
 public:
  enum class Outcome { kHit, kMiss, kBypass };

  CacheSimulator(ReplacementPolicy* policy, std::size_t capacity, bool check = true);
  CacheSimulator(const CacheSimulator&) = delete;
  CacheSimulator& operator=(const CacheSimulator&) = delete;

  // One access: Touch on a hit; on a miss, Evict (if full) then Insert. A miss
  // for which Evict returns nullopt is a bypass: the key is not cached.
  Outcome Access(LineKey key);
  // Invalidates `key` (policy Remove); false if it was not resident.
  bool Remove(LineKey key);
  // Filter passed to every Evict (e.g. "not dirty"); default accepts all.
  void SetFilter(EvictFilter filter) { filter_ = filter; }

  bool Resident(LineKey key) const { return index_.Contains(key); }
  // Key held by `s`, or nullopt if the slot is free.
  std::optional<LineKey> KeyOf(Slot s) const {
    if (s >= used_.size() || !used_[s]) return std::nullopt;
    return slot_key_[s];
  }
  std::size_t Capacity() const { return slot_key_.size(); }
  std::size_t ResidentCount() const { return index_.Size(); }

  std::uint64_t Hits() const { return hits_; }
  std::uint64_t Misses() const { return misses_; }
  std::uint64_t Bypasses() const { return bypasses_; }
  std::uint64_t Violations() const { return violations_; }
  double HitRatio() const {
    const std::uint64_t n = hits_ + misses_;
    return n == 0 ? 0.0 : static_cast<double>(hits_) / static_cast<double>(n);
  }

 private:
  ReplacementPolicy* policy_;
  bool check_;
  EvictFilter filter_;
  FlatKeyIndex index_;             // key -> slot
  std::vector<LineKey> slot_key_;  // slot -> key
  std::vector<bool> used_;         // slot occupied
  std::vector<Slot> free_;         // stack, lowest slot on top
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t bypasses_ = 0;
  std::uint64_t violations_ = 0;
};

}  // namespace tierlab
