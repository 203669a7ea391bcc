#pragma once
// An open-addressing hash map from LineKey to a uint32 value with a fixed
// maximum number of entries, for the bounded key sets of the policy layer:
// ghost histories (ARC, 2Q, S3-FIFO), the n-hit window and the simulator's
// key → slot map. Linear probing with backward-shift deletion (no tombstones),
// table at most half full, so lookups stay short under constant churn.
//
// It allocates once, in the constructor; MemoryBytes() is exact.
// Threading: not thread-safe. Failure: Insert returns false when the map
// already holds max_entries keys.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "policies/ReplacementPolicy.h"
#include "tiering/core/SplitMix64.h"

namespace tierlab {

class FlatKeyIndex {
 public:
  static constexpr std::uint32_t kAbsent = UINT32_MAX;

  explicit FlatKeyIndex(std::size_t max_entries);

  // Value stored for `key`, or kAbsent.
  std::uint32_t Find(LineKey key) const {
    for (std::size_t i = Home(key);; i = (i + 1) & mask_) {
      if (vals_[i] == kAbsent) return kAbsent;
      if (keys_[i] == key) return vals_[i];
    }
  }
  bool Contains(LineKey key) const { return Find(key) != kAbsent; }
  // Inserts or overwrites. `value` must not be kAbsent. False if the key is new
  // and the map is full.
  bool Insert(LineKey key, std::uint32_t value);
  // Removes `key`; false if it was absent.
  bool Erase(LineKey key);
  void Clear();

  std::size_t Size() const { return size_; }
  std::size_t MaxEntries() const { return max_entries_; }
  std::size_t MemoryBytes() const {
    return keys_.capacity() * sizeof(LineKey) + vals_.capacity() * sizeof(std::uint32_t);
  }

 private:
  std::size_t Home(LineKey key) const {
    // Line numbers are dense and sequential, so they need real mixing
    // before masking.
    return static_cast<std::size_t>(SplitMix64Hash(key)) & mask_;
  }

  std::size_t max_entries_;
  std::size_t size_ = 0;
  std::size_t mask_;
  std::vector<LineKey> keys_;
  std::vector<std::uint32_t> vals_;
};

}  // namespace tierlab
