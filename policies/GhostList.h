#pragma once
// A bounded FIFO of evicted keys with O(1) membership test and removal from
// anywhere: the ghost history of ARC (B1, B2), 2Q (A1out) and S3-FIFO (G).
//
// Entries live in a fixed pool of `capacity` nodes (key + uint32 links) and a
// FlatKeyIndex from key to node; adding to a full list drops the oldest key.
// Full keys are stored (not fingerprints), so a ghost hit is never a false
// positive. All memory is allocated in the constructor.
//
// Threading: not thread-safe. Failure: none.

#include <vector>

#include "policies/FlatKeyIndex.h"
#include "policies/SlotLists.h"

namespace tierlab {

class GhostList {
 public:
  explicit GhostList(std::size_t capacity);

  bool Contains(LineKey key) const { return index_.Contains(key); }
  // Removes `key`; false if absent.
  bool Erase(LineKey key);
  // Records `key` as the newest entry (moving it if present), dropping the
  // oldest entry if the list is full. No-op for a zero-capacity list.
  void PushBack(LineKey key);
  // Drops the oldest entry; false if empty.
  bool PopFront();

  std::size_t Size() const { return links_.Size(0); }
  std::size_t Capacity() const { return keys_.size(); }
  std::size_t MemoryBytes() const {
    return links_.MemoryBytes() + index_.MemoryBytes() + keys_.capacity() * sizeof(LineKey) +
           free_.capacity() * sizeof(Slot);
  }

 private:
  SlotLists links_;            // one list, front = oldest
  FlatKeyIndex index_;         // key -> node
  std::vector<LineKey> keys_;  // node -> key
  std::vector<Slot> free_;     // unused nodes
};

}  // namespace tierlab
