#pragma once
// Shared/exclusive locks on volume lines, with FIFO wait queues: the cache
// target's coherence mechanism (Open CAS takes per-cache-line read/write locks
// the same way).
//
// A request locks the contiguous range of lines it touches, in ascending
// order, so waiting can never form a cycle: every waiter waits on a line above
// all the lines it already holds. Reads and destage take shared locks; writes,
// discards and invalidations take exclusive ones. A lock request queues
// behind earlier waiters on the same line (no reader starvation of writers).
//
// Ownership: the caller owns each LockWaiter and keeps it alive and unmoved
// until Release. Threading: not thread-safe. Failure: none.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tierlab {

struct LockWaiter {
  std::uint64_t first = 0;  // lines [first, last]
  std::uint64_t last = 0;
  bool exclusive = false;
  // Called once all lines are held, if Acquire() had to queue. It runs inside
  // the Release() that granted the last line, so it must not call back into
  // the lock table synchronously (post a task instead).
  void (*granted)(LockWaiter*) = nullptr;
  // Internal: next line to take, and the wait-queue link.
  std::uint64_t next_line = 0;
  LockWaiter* wait_next = nullptr;
};

class LineLocks {
 public:
  LineLocks();

  // Takes lines [w->first, w->last]. True if all are held now; false if the
  // waiter was queued (w->granted runs later).
  bool Acquire(LockWaiter* w);
  // Releases every line of a waiter that holds them all.
  void Release(LockWaiter* w);
  // True if any request holds or waits for `line`.
  bool Locked(std::uint64_t line) const { return FindIndex(line) != kNoIndex; }
  std::size_t entries() const { return size_; }

 private:
  static constexpr std::size_t kNoIndex = SIZE_MAX;
  static constexpr std::uint64_t kEmpty = UINT64_MAX;
  struct Entry {
    std::uint64_t line = kEmpty;
    std::uint32_t readers = 0;
    bool writer = false;
    LockWaiter* head = nullptr;
    LockWaiter* tail = nullptr;
  };

  // Continues taking w's lines from w->next_line; true when all are held.
  bool Continue(LockWaiter* w);
  std::size_t Home(std::uint64_t line) const {
    return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  std::size_t FindIndex(std::uint64_t line) const;
  std::size_t FindOrInsert(std::uint64_t line);
  void EraseAt(std::size_t i);
  void Grow();

  std::vector<Entry> table_;
  std::size_t mask_ = 0;
  int shift_ = 0;
  std::size_t size_ = 0;
  std::vector<LockWaiter*> ready_;  // scratch for Release
};

}  // namespace tierlab
