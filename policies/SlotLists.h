#pragma once
// Several intrusive doubly-linked lists threaded through the same dense slots
// [0, capacity): the building block of every list-based replacement policy
// (LRU, FIFO, the queues of 2Q/ARC/S3-FIFO, the levels of SMQ).
//
// Each slot is on at most one list at a time. Links are uint32 indices into
// two flat arrays (8 bytes per slot); the list heads are sentinel nodes stored
// after the slots, so link/unlink never branches on "empty list".
// Order: Front() is the oldest end, PushBack() adds at the newest end.
// The caller remembers which list a slot is on (it passes the list to Unlink)
// so that no per-slot list id is stored here.
//
// Threading: not thread-safe. Failure: none (preconditions are asserted).

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "policies/ReplacementPolicy.h"

namespace tierlab {

class SlotLists {
 public:
  static constexpr Slot kNil = UINT32_MAX;

  SlotLists(std::size_t capacity, std::size_t num_lists)
      : capacity_(static_cast<Slot>(capacity)),
        prev_(capacity + num_lists, kNil),
        next_(capacity + num_lists, kNil),
        sizes_(num_lists, 0) {
    assert(capacity + num_lists < kNil);
    for (std::size_t l = 0; l < num_lists; ++l) {
      const Slot h = Head(static_cast<unsigned>(l));
      prev_[h] = next_[h] = h;
    }
  }

  std::size_t Capacity() const { return capacity_; }
  bool Linked(Slot s) const { return prev_[s] != kNil; }
  std::size_t Size(unsigned list) const { return sizes_[list]; }

  // Oldest / newest slot of `list`, kNil if empty.
  Slot Front(unsigned list) const { return Real(next_[Head(list)]); }
  Slot Back(unsigned list) const { return Real(prev_[Head(list)]); }
  // Neighbour towards the newest (Next) or oldest (Prev) end; kNil at the end.
  Slot Next(Slot s) const { return Real(next_[s]); }
  Slot Prev(Slot s) const { return Real(prev_[s]); }

  void PushBack(unsigned list, Slot s) { LinkAfter(prev_[Head(list)], s, list); }
  void PushFront(unsigned list, Slot s) { LinkAfter(Head(list), s, list); }
  // Inserts `s` just after `pos` (towards the newest end) on `list`.
  void InsertAfter(unsigned list, Slot pos, Slot s) { LinkAfter(pos, s, list); }

  void Unlink(unsigned list, Slot s) {
    assert(Linked(s) && sizes_[list] > 0);
    next_[prev_[s]] = next_[s];
    prev_[next_[s]] = prev_[s];
    prev_[s] = next_[s] = kNil;
    --sizes_[list];
  }
  // Moves a linked slot to the newest end of `to`.
  void MoveToBack(unsigned from, unsigned to, Slot s) {
    Unlink(from, s);
    PushBack(to, s);
  }

  std::size_t MemoryBytes() const {
    return (prev_.capacity() + next_.capacity()) * sizeof(Slot) +
           sizes_.capacity() * sizeof(std::size_t);
  }

 private:
  Slot Head(unsigned list) const { return capacity_ + list; }
  Slot Real(Slot s) const { return s >= capacity_ ? kNil : s; }
  void LinkAfter(Slot pos, Slot s, unsigned list) {
    assert(s < capacity_ && !Linked(s));
    const Slot n = next_[pos];
    prev_[s] = pos;
    next_[s] = n;
    next_[pos] = s;
    prev_[n] = s;
    ++sizes_[list];
  }

  Slot capacity_;
  std::vector<Slot> prev_;
  std::vector<Slot> next_;
  std::vector<std::size_t> sizes_;
};

}  // namespace tierlab
