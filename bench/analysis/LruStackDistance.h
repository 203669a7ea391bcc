#pragma once
// LRU stack distances in O(log n) per access (Bennett-Kruskal / Olken):
// each live key holds a slot at its last access time; a bitmap marks the
// live slots and a Fenwick tree over the bitmap's 64-slot words counts the
// live keys accessed since a given time. (Counting per word keeps the tree
// 64x smaller than one node per slot, so tree and bitmap stay in the CPU's
// L2 cache for a million live keys; the hash map lookup is the one likely
// cache miss per access, which Prefetch() lets a caller hide.) The distance
// of a re-access is the number of distinct other keys accessed since the
// key's previous access, so an LRU cache of C entries hits iff distance < C.
//
// Memory is O(live keys), not O(accesses): when the time slots run out they
// are renumbered densely in time order (amortized O(1) per access: one
// sequential pass over the hash map every ~3 x live accesses), and the
// bitmap is sized to four times the live keys. Keys may be removed (SHARDS
// lowers its sampling threshold that way). Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bench/analysis/FlatU64Map.h"

namespace tierlab {

class LruStackDistance {
 public:
  static constexpr std::uint64_t kCold = ~std::uint64_t{0};

  LruStackDistance();

  // Records an access; returns the key's stack distance, or kCold on its
  // first access (or first since Remove).
  std::uint64_t Access(std::uint64_t key);

  // A hint only: starts loading the hash map line that Access(key) will
  // read. Callers that know their next keys (a batch of trace records) call
  // it a few accesses ahead.
  void Prefetch(std::uint64_t key) const { last_.Prefetch(key); }

  // Forgets `key`; false if it was not present.
  bool Remove(std::uint64_t key);

  std::size_t size() const { return live_; }
  std::size_t memory_bytes() const;

 private:
  void Compact();
  void SetLive(std::size_t slot);
  void ClearLive(std::size_t slot);
  std::uint64_t LiveUpTo(std::size_t slot) const;  // live keys in slots [0, slot]

  FlatU64Map<std::uint64_t> last_;   // key -> slot of its last access
  std::vector<std::uint32_t> tree_;  // Fenwick tree over words, 1-based, capacity_ / 64 + 1 entries
  std::vector<std::uint64_t> live_bits_;
  std::size_t capacity_ = 0;
  std::size_t now_ = 0;  // next free slot
  std::size_t live_ = 0;
};

}  // namespace tierlab
