#pragma once
// Per-line locks with four modes and FIFO wait queues: the cache target's
// coherence mechanism, and the table of lines that have I/O in flight (a line
// with a holder is never evicted and its slot never reused).
//
// The modes say who must wait for whom, and nothing more. Independent hits on
// a resident line do not wait for each other (dm-cache, bcache and Open CAS
// do not serialise them either); only what changes where a line lives, or
// whether it is dirty, is ordered:
//
//   mode        granted unless the line is held by   used by
//   kRead       kExclusive                            reads (hits, and misses
//                                                     until their fills land)
//   kWrite      kExclusive                            writes that update
//                                                     resident lines in place
//   kDestage    kExclusive or kWrite                  destage
//   kExclusive  anyone                                write misses, writes
//                                                     that invalidate, discards
//
// So reads run with each other, with write hits and with destage (a read
// submitted while a write is in flight returns old or new data, as on a
// disk), and write hits of one line run together (two writes of the same
// bytes in flight at once leave either version, as on a disk: neither was
// ordered before the other; a write submitted after another's acknowledgement
// is issued after it and wins). Destage starts only once no write of the line
// is in flight, but a write may start while destage runs: the destager sees
// the line's generation change and leaves the line dirty (bcache's writeback
// checks the same way that a key did not change before it marks it clean).
//
// Generation: a per-line count of kWrite and kExclusive grants (odd while one
// is held, see Generation()), valid for as long as the caller holds a lock on
// the line (the count restarts when nobody holds or waits for the line).
//
// Waiting: a request locks the contiguous range of lines it touches in
// ascending order, so waiting can never form a cycle: every waiter waits on a
// line above all the lines it already holds. Waiters are granted in FIFO
// order, except that a read passes waiting writes and destages (neither
// waits for readers, so passing them delays nothing); nothing passes a
// waiting kExclusive (no starvation of writers by readers), and a write does
// not pass a waiting destage (no starvation of destage by a hot line).
//
// Ownership: the caller owns each LockWaiter and keeps it alive and unmoved
// until Release. Threading: not thread-safe. Failure: none.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tierlab {

enum class LineLockMode : std::uint8_t { kRead, kWrite, kDestage, kExclusive };

struct LockWaiter {
  std::uint64_t first = 0;  // lines [first, last]
  std::uint64_t last = 0;
  LineLockMode lock_mode = LineLockMode::kRead;
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

  // Takes lines [w->first, w->last] in mode w->lock_mode. True if all are held
  // now; false if the waiter was queued (w->granted runs later).
  bool Acquire(LockWaiter* w);
  // Releases every line of a waiter that holds them all.
  void Release(LockWaiter* w);
  // True if any request holds or waits for `line`.
  bool Locked(std::uint64_t line) const { return FindIndex(line) != kNoIndex; }
  // kWrite holders of `line` now.
  std::uint32_t Writers(std::uint64_t line) const;
  // 2 x (kWrite and kExclusive grants on `line`) + 1 while one is held; 0 if
  // nobody holds or waits for the line. Two equal even readings taken while
  // the caller held a lock on the line mean no write ran in between.
  std::uint64_t Generation(std::uint64_t line) const;
  std::size_t entries() const { return size_; }

 private:
  static constexpr std::size_t kNoIndex = SIZE_MAX;
  static constexpr std::uint64_t kEmpty = UINT64_MAX;
  struct Entry {
    std::uint64_t line = kEmpty;
    std::uint32_t readers = 0;    // kRead holders
    std::uint32_t destagers = 0;  // kDestage holders
    std::uint32_t writes = 0;     // kWrite and kExclusive grants (generation)
    std::uint32_t exclusive_waiting = 0;
    std::uint32_t writers = 0;  // kWrite holders
    bool exclusive = false;
    LockWaiter* head = nullptr;
    LockWaiter* tail = nullptr;
    bool Idle() const {
      return readers == 0 && destagers == 0 && writers == 0 && !exclusive && head == nullptr;
    }
  };

  // Whether mode `m` may be granted next to the holders of `e` (not counting
  // waiters).
  static bool Compatible(const Entry& e, LineLockMode m);
  static void Take(Entry& e, LineLockMode m);
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
