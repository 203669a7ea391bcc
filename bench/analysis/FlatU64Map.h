#pragma once
// Open-addressing hash map from uint64 keys to small values, for the trace
// analyzers' per-block state (millions of entries, one lookup per block
// access). Linear probing, power-of-two capacity, load factor <= 1/2,
// backward-shift deletion (no tombstones, so lookups stay short after many
// erases). About 2 * 16 bytes per entry for V = uint64_t. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tierlab {

template <typename V>
class FlatU64Map {
 public:
  explicit FlatU64Map(std::size_t expected = 16) { Rehash(CapacityFor(expected)); }

  std::size_t size() const { return size_ + (has_empty_key_ ? 1 : 0); }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

  // Pointer to the value of `key`, or null.
  V* Find(std::uint64_t key) {
    if (key == kEmpty) return has_empty_key_ ? &empty_key_value_ : nullptr;
    for (std::size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }

  // Hints the CPU to load the cache line where a lookup of `key` starts, so
  // that a lookup issued a few accesses later does not wait for memory.
  void Prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[Home(key)]); }

  // Inserts `key` with `value` if absent. Returns the value slot and whether
  // it was inserted. The pointer is valid until the next insertion or erase.
  std::pair<V*, bool> Insert(std::uint64_t key, V value) {
    if (key == kEmpty) {
      if (has_empty_key_) return {&empty_key_value_, false};
      has_empty_key_ = true;
      empty_key_value_ = value;
      return {&empty_key_value_, true};
    }
    if ((size_ + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    for (std::size_t i = Home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) return {&s.value, false};
      if (s.key == kEmpty) {
        s.key = key;
        s.value = value;
        ++size_;
        return {&s.value, true};
      }
    }
  }

  bool Erase(std::uint64_t key) {
    if (key == kEmpty) {
      bool had = has_empty_key_;
      has_empty_key_ = false;
      return had;
    }
    std::size_t i = Home(key);
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) break;
      if (slots_[i].key == kEmpty) return false;
    }
    // Backward-shift: pull later members of the probe run into the hole.
    std::size_t hole = i;
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].key == kEmpty) break;
      std::size_t home = Home(slots_[j].key);
      // Move j into the hole when its home is not in (hole, j] cyclically.
      bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].key = kEmpty;
    --size_;
    return true;
  }

  // Calls f(key, value&) for every entry.
  template <typename F>
  void ForEach(F&& f) {
    if (has_empty_key_) f(kEmpty, empty_key_value_);
    for (Slot& s : slots_) {
      if (s.key != kEmpty) f(s.key, s.value);
    }
  }

  template <typename F>
  void ForEach(F&& f) const {
    if (has_empty_key_) f(kEmpty, empty_key_value_);
    for (const Slot& s : slots_) {
      if (s.key != kEmpty) f(s.key, s.value);
    }
  }

  void Clear() {
    for (Slot& s : slots_) s.key = kEmpty;
    size_ = 0;
    has_empty_key_ = false;
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmpty;
    V value{};
  };

  static std::size_t CapacityFor(std::size_t n) {
    std::size_t c = 16;
    while (c < n * 2) c *= 2;
    return c;
  }
  // Multiplicative hashing (Fibonacci) spreads sequential block numbers.
  std::size_t Home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void Rehash(std::size_t capacity) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64 - __builtin_ctzll(capacity);
    size_ = 0;
    for (const Slot& s : old) {
      if (s.key == kEmpty) continue;
      for (std::size_t i = Home(s.key);; i = (i + 1) & mask_) {
        if (slots_[i].key == kEmpty) {
          slots_[i] = s;
          ++size_;
          break;
        }
      }
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 60;
  std::size_t size_ = 0;
  bool has_empty_key_ = false;
  V empty_key_value_{};
};

}  // namespace tierlab
