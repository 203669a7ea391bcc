#pragma once
// Exclusive locks on stripes (md's stripe cache serialises the same way):
// whoever changes a stripe's data and parity, or reconstructs from them,
// holds its lock from the first read to the last write, so two updates of
// one stripe never interleave and a reconstruction never mixes old and new
// blocks. Waiters are granted in arrival order.
//
// Only held stripes take memory (a hash map entry each), and entries are
// recycled (their nodes kept when a lock is freed), so taking and freeing
// locks allocates nothing once the map has seen the queue depth.
//
// Not thread-safe: one engine, one thread. A holder that waits for a second
// lock must take them in increasing stripe order and be the only kind of
// holder that does (the rebuild), or two could wait for each other.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tiering/core/Engine.h"

namespace tierlab {

class StripeLocks {
 public:
  // Takes the lock of `stripe` and returns true, or queues `granted` and
  // returns false; `granted` then runs, holding the lock, inside the
  // Release() that passes it on.
  bool Acquire(std::uint64_t stripe, Task granted);
  // Passes the lock to the next waiter, if any, or frees it.
  void Release(std::uint64_t stripe);

  std::size_t held() const { return held_.size(); }

 private:
  // Stripe -> its waiters, oldest first (few: one per request on the stripe).
  using Map = std::unordered_map<std::uint64_t, std::vector<Task>>;
  Map held_;
  std::vector<Map::node_type> spare_;  // freed entries, reused by Acquire
};

}  // namespace tierlab
