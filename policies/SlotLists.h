#pragma once
// Several intrusive doubly-linked lists threaded through the same dense slots
// [0, capacity): the building block of every list-based replacement policy
// (LRU, FIFO, the queues of 2Q/ARC/S3-FIFO, the levels of SMQ).
//
// Each slot is on at most one list at a time. A slot's two links (prev, next)
// are bit-packed side by side, each just wide enough for a slot index, a list
// head or "unlinked": 2 x bit_width(capacity + lists) bits per slot (5.25
// bytes at 1 Mi slots, 5.75 at 4 Mi, under 7 up to 2^27), one unaligned load
// per link, and a slot's two links share a cache line. The list heads are
// sentinel nodes stored after the slots, so link/unlink never branches on
// "empty list". Order: Front() is the oldest end, PushBack() adds at the
// newest end. The caller remembers which list a slot is on (it passes the list
// to Unlink) so that no per-slot list id is stored here.
//
// Threading: not thread-safe. Failure: none (preconditions are asserted).

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "policies/HugePageAllocator.h"
#include "policies/ReplacementPolicy.h"

namespace tierlab {

class SlotLists {
 public:
  static constexpr Slot kNil = UINT32_MAX;

  SlotLists(std::size_t capacity, std::size_t num_lists)
      : capacity_(static_cast<Slot>(capacity)),
        bits_(static_cast<unsigned>(std::bit_width(capacity + num_lists))),
        mask_((std::uint64_t{1} << bits_) - 1),
        sizes_(num_lists, 0) {
    assert(capacity + num_lists < kNil && bits_ <= 32);
    const std::size_t nodes = capacity + num_lists;
    // 8 bytes of slack so the last field's unaligned 8-byte load stays inside.
    words_.assign((nodes * 2 * bits_ + 63) / 64 + 1, ~std::uint64_t{0});  // all unlinked
    for (std::size_t l = 0; l < num_lists; ++l) {
      const Slot h = Head(static_cast<unsigned>(l));
      SetPrev(h, h);
      SetNext(h, h);
    }
  }

  std::size_t Capacity() const { return capacity_; }
  bool Linked(Slot s) const { return GetPrev(s) != mask_; }
  std::size_t Size(unsigned list) const { return sizes_[list]; }

  // Oldest / newest slot of `list`, kNil if empty.
  Slot Front(unsigned list) const { return Real(GetNext(Head(list))); }
  Slot Back(unsigned list) const { return Real(GetPrev(Head(list))); }
  // Neighbour towards the newest (Next) or oldest (Prev) end; kNil at the end.
  Slot Next(Slot s) const { return Real(GetNext(s)); }
  Slot Prev(Slot s) const { return Real(GetPrev(s)); }

  void PushBack(unsigned list, Slot s) { LinkAfter(GetPrev(Head(list)), s, list); }
  void PushFront(unsigned list, Slot s) { LinkAfter(Head(list), s, list); }
  // Inserts `s` just after `pos` (towards the newest end) on `list`.
  void InsertAfter(unsigned list, Slot pos, Slot s) { LinkAfter(pos, s, list); }

  void Unlink(unsigned list, Slot s) {
    assert(Linked(s) && sizes_[list] > 0);
    std::uint64_t p, n;
    GetBoth(s, &p, &n);
    SetNext(static_cast<Slot>(p), n);
    SetPrev(static_cast<Slot>(n), p);
    SetBoth(s, mask_, mask_);
    --sizes_[list];
  }
  // Moves a linked slot to the newest end of `to`.
  void MoveToBack(unsigned from, unsigned to, Slot s) {
    if (from == to && GetNext(s) == Head(to)) return;  // already the newest
    Unlink(from, s);
    PushBack(to, s);
  }
  // Hints that `s`'s links are about to be used (a batch of touches can
  // overlap their cache misses).
  void Prefetch(Slot s) const {
    __builtin_prefetch(reinterpret_cast<const char*>(words_.data()) +
                       ((std::uint64_t{s} * 2 * bits_) >> 3));
  }

  std::size_t MemoryBytes() const {
    return words_.capacity() * sizeof(std::uint64_t) + sizes_.capacity() * sizeof(std::size_t);
  }

 private:
  Slot Head(unsigned list) const { return capacity_ + list; }
  Slot Real(std::uint64_t s) const { return s >= capacity_ ? kNil : static_cast<Slot>(s); }

  // Field f (0 = prev, 1 = next) of node s: bits_ bits at bit (2s + f) * bits_.
  std::uint64_t Get(Slot s, unsigned f) const {
    const std::uint64_t bit = (std::uint64_t{s} * 2 + f) * bits_;
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const char*>(words_.data()) + (bit >> 3), sizeof v);
    return (v >> (bit & 7)) & mask_;
  }
  void Set(Slot s, unsigned f, std::uint64_t value) {
    const std::uint64_t bit = (std::uint64_t{s} * 2 + f) * bits_;
    char* p = reinterpret_cast<char*>(words_.data()) + (bit >> 3);
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    const unsigned sh = static_cast<unsigned>(bit & 7);
    v = (v & ~(mask_ << sh)) | (value << sh);
    std::memcpy(p, &v, sizeof v);
  }
  // Both links of s (one load when they fit in one 8-byte window).
  void GetBoth(Slot s, std::uint64_t* prev, std::uint64_t* next) const {
    if (bits_ > 28) {
      *prev = Get(s, 0);
      *next = Get(s, 1);
      return;
    }
    const std::uint64_t bit = std::uint64_t{s} * 2 * bits_;
    std::uint64_t v;
    std::memcpy(&v, reinterpret_cast<const char*>(words_.data()) + (bit >> 3), sizeof v);
    v >>= (bit & 7);
    *prev = v & mask_;
    *next = (v >> bits_) & mask_;
  }
  void SetBoth(Slot s, std::uint64_t prev, std::uint64_t next) {
    if (bits_ > 28) {
      Set(s, 0, prev);
      Set(s, 1, next);
      return;
    }
    const std::uint64_t bit = std::uint64_t{s} * 2 * bits_;
    char* p = reinterpret_cast<char*>(words_.data()) + (bit >> 3);
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    const unsigned sh = static_cast<unsigned>(bit & 7);
    const std::uint64_t m2 = (mask_ << bits_) | mask_;
    v = (v & ~(m2 << sh)) | (((next << bits_) | prev) << sh);
    std::memcpy(p, &v, sizeof v);
  }
  std::uint64_t GetPrev(Slot s) const { return Get(s, 0); }
  std::uint64_t GetNext(Slot s) const { return Get(s, 1); }
  void SetPrev(Slot s, std::uint64_t v) { Set(s, 0, v); }
  void SetNext(Slot s, std::uint64_t v) { Set(s, 1, v); }

  void LinkAfter(std::uint64_t pos, Slot s, unsigned list) {
    assert(s < capacity_ && !Linked(s));
    const std::uint64_t n = GetNext(static_cast<Slot>(pos));
    SetBoth(s, pos, n);
    SetNext(static_cast<Slot>(pos), s);
    SetPrev(static_cast<Slot>(n), s);
    ++sizes_[list];
  }

  Slot capacity_;
  unsigned bits_;
  std::uint64_t mask_;
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> words_;  // huge pages when large
  std::vector<std::size_t> sizes_;
};

}  // namespace tierlab
