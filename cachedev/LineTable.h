#pragma once
// The cache target's line metadata: which volume line each slot holds, its
// state, and the index from volume line to slot.
//
// Per slot one packed 64-bit word: volume line (32 bits), hash-chain link
// (28 bits), state (2 bits) and dirty (1 bit). The index is a chained hash
// table of uint32 bucket heads, ceil(capacity / 2) of them below 4 Mi lines
// and ceil(capacity / 4) from 4 Mi lines (the bucket is picked by
// multiply-shift range reduction, so any count works). So the table costs 10
// bytes per line, 9 from 4 Mi lines; with LRU or FIFO links (2 x
// bit_width(capacity + 1) bits, SlotLists.h) a line costs at most 16 bytes up
// to 2^27 - 2 lines. A hit in a full table reads the head and about two words
// (load factor 2), three from 4 Mi lines. The arrays are on huge pages when
// large (HugePageAllocator.h). Valid and dirty are whole-line (see
// docs/CACHE.md).
//
// Limits: volume lines < 2^32 - 1, slots < 2^28 - 1 (CacheTarget::Create
// checks both and suggests a larger line).
//
// Free slots are kept in one list per cache device (SlotPlacement says which
// device a slot is on), each in ascending slot order on a fresh table, so a
// caller can ask for a slot on the device that a line's address maps to and
// consecutive lines of one request get consecutive slots of one device.
//
// Slot lifecycle: free -> reserved (AllocFree, or Remove of a resident slot)
// -> resident (Insert) -> reserved (Remove) -> free (Release). A reserved slot
// keeps its last key, so a slot invalidated while others still read it can be
// parked and released later.
//
// Threading: not thread-safe; one cache target owns it. No allocation after
// construction.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cachedev/SlotPlacement.h"
#include "policies/HugePageAllocator.h"
#include "policies/ReplacementPolicy.h"

namespace tierlab {

class LineTable {
 public:
  static constexpr Slot kNone = UINT32_MAX;
  static constexpr std::uint64_t kMaxKey = 0xFFFFFFFEull;
  static constexpr std::uint64_t kMaxSlots = (1ull << 28) - 2;
  // From this capacity on, one bucket head per 4 slots instead of per 2.
  static constexpr std::uint32_t kSparseHeadsFrom = 1u << 22;
  enum class State : std::uint8_t { kFree = 0, kReserved = 1, kResident = 2 };

  // `placement` maps slots to devices (default: one device).
  explicit LineTable(std::uint32_t capacity, SlotPlacement placement = SlotPlacement(1, 1));

  // Slot holding volume line `key`, or kNone.
  Slot Find(std::uint64_t key) const {
    std::uint32_t s = heads_[Bucket(key)];
    while (s != kLink) {
      const std::uint64_t w = words_[s];
      if ((w & kKeyMask) == key) return s;
      s = static_cast<std::uint32_t>((w >> kLinkShift) & kLink);
    }
    return kNone;
  }

  // Lookup batching (CacheTarget's read batch): a hit at scale costs the
  // dependent cache misses of bucket head, then one slot word per chain
  // position. PrefetchBucket when a key is queued, then WarmChains over the
  // batch walks all chains in lock step, one position per round, prefetching
  // the next word of each, so a batch's misses overlap; Find on these keys
  // then runs from the CPU cache. Only reads the table.
  static constexpr std::size_t kWarmBatch = 32;
  void PrefetchBucket(std::uint64_t key) const { __builtin_prefetch(&heads_[Bucket(key)]); }
  // The first word of the key's chain (reads the bucket head).
  void PrefetchChain(std::uint64_t key) const {
    const std::uint32_t s = heads_[Bucket(key)];
    if (s != kLink) __builtin_prefetch(&words_[s]);
  }
  void WarmChains(const std::uint64_t* keys, std::size_t n) const;
  // One step further than PrefetchChain, reading the head and first word it
  // fetched: the key's slot if that word holds it, else kNone after
  // prefetching the chain's second word.
  Slot PrefetchChainNext(std::uint64_t key) const {
    const std::uint32_t s = heads_[Bucket(key)];
    if (s == kLink) return kNone;
    const std::uint64_t w = words_[s];
    if ((w & kKeyMask) == key) return s;
    const auto next = static_cast<std::uint32_t>((w >> kLinkShift) & kLink);
    if (next != kLink) __builtin_prefetch(&words_[next]);
    return kNone;
  }

  // Takes a free slot (now reserved), or kNone if there is none: the lowest
  // free slot of device `preferred` on a fresh table, else one of the next
  // device that has a free slot.
  Slot AllocFree(std::uint32_t preferred = 0);
  // Reserved -> free.
  void Release(Slot s);
  // Reserved -> resident, holding `key` (clean).
  void Insert(Slot s, std::uint64_t key);
  // Resident -> reserved (dirty cleared); the slot keeps its key.
  void Remove(Slot s);

  std::uint64_t Key(Slot s) const { return words_[s] & kKeyMask; }
  State state(Slot s) const { return static_cast<State>((words_[s] >> kStateShift) & 3); }
  bool Resident(Slot s) const { return state(s) == State::kResident; }
  bool Dirty(Slot s) const { return (words_[s] & kDirtyBit) != 0; }
  void SetDirty(Slot s, bool dirty);

  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t resident() const { return resident_; }
  std::uint32_t dirty() const { return dirty_; }
  std::uint32_t free() const { return free_count_; }
  std::size_t MemoryBytes() const {
    return words_.capacity() * sizeof(std::uint64_t) + heads_.capacity() * sizeof(std::uint32_t);
  }

 private:
  static constexpr std::uint64_t kKeyMask = 0xFFFFFFFFull;
  static constexpr int kLinkShift = 32;
  static constexpr std::uint32_t kLink = (1u << 28) - 1;  // also "end of chain"
  static constexpr int kStateShift = 60;
  static constexpr std::uint64_t kDirtyBit = 1ull << 62;

  std::uint32_t Bucket(std::uint64_t key) const {
    // Fibonacci hashing (line numbers are dense and sequential), then the
    // high bits scaled to [0, buckets): (h * buckets) >> 64.
    const std::uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return static_cast<std::uint32_t>((static_cast<unsigned __int128>(h) * heads_.size()) >> 64);
  }
  std::uint32_t Link(Slot s) const {
    return static_cast<std::uint32_t>((words_[s] >> kLinkShift) & kLink);
  }
  void SetLink(Slot s, std::uint32_t link) {
    words_[s] =
        (words_[s] & ~(std::uint64_t{kLink} << kLinkShift)) | (std::uint64_t{link} << kLinkShift);
  }
  void SetState(Slot s, State st) {
    words_[s] =
        (words_[s] & ~(3ull << kStateShift)) | (static_cast<std::uint64_t>(st) << kStateShift);
  }

  std::uint32_t capacity_;
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> words_;
  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> heads_;
  SlotPlacement placement_;
  // Per device, the head of its free list, threaded through the links.
  std::vector<std::uint32_t> free_heads_;
  std::uint32_t resident_ = 0;
  std::uint32_t dirty_ = 0;
  std::uint32_t free_count_ = 0;
};

}  // namespace tierlab
