#pragma once
// Pending tasks ordered by due time, FIFO among equal times. Shared by the
// simulated and the real engine.
//
// Tasks live in a slab of fixed chunks; the queues hold small keys, so
// reordering never moves a task, and a task runs where it lies (RunNext):
// pushing more tasks meanwhile adds chunks but never moves one. Two queues:
//  - a run of tasks all due at the same time that is not later than anything
//    in the heap, in push order (a ring). Engine::Post() and completions at
//    the current instant land here: about a third of the tasks of a cached
//    simulated run, which then skip the heap's O(log n) push and pop;
//  - a 4-ary min-heap on (due time, push sequence) for the rest (half the
//    depth of a binary heap; a node's four children share a cache line or
//    two).
// The run only accepts a task due at its time, and starts only with a task
// due strictly before every heap key, so no heap key ever shares its time:
// taking whichever queue's front is earlier keeps the (time, push order)
// order exactly.
//
// A cancelled task is destroyed at once; its key stays queued and is skipped
// when it surfaces (its slot is reused only then). While nothing is
// cancelled, no liveness checks run at all.
//
// Threading: not thread-safe (one engine, one thread).

#include <cstdint>
#include <memory>
#include <vector>

#include "tiering/core/Engine.h"

namespace tierlab {

class TimerQueue {
 public:
  TimerId Push(Nanos at, Task&& task);
  bool Cancel(TimerId id);
  bool Empty() const { return live_ == 0; }
  std::size_t Size() const { return live_; }
  // Due time of the earliest live task. Requires !Empty().
  Nanos NextDue();
  // Removes the earliest live task, sets *at to its due time and runs it in
  // its slot (no move out); the task may push and cancel tasks, and cannot
  // cancel itself. Requires !Empty().
  void RunNext(Nanos* at);

 private:
  struct Key {
    Nanos at;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  struct Slot {
    Task task;
    std::uint32_t gen = 0;  // bumped when the task runs or is cancelled
    bool live = false;
  };
  // (due time, push sequence) as one unsigned 128-bit number: the heap's
  // comparisons become a compare and a subtract-with-borrow, with no branch
  // to mispredict (sibling keys are unordered).
  static unsigned __int128 Order(const Key& k) {
    const auto at =
        static_cast<std::uint64_t>(k.at) ^ (std::uint64_t{1} << 63);  // keeps sign order
    return (static_cast<unsigned __int128>(at) << 64) | k.seq;
  }
  static bool Earlier(const Key& a, const Key& b) { return Order(a) < Order(b); }
  static constexpr std::uint32_t kChunkBits = 8;
  static constexpr std::uint32_t kChunkMask = (1u << kChunkBits) - 1;
  Slot& At(std::uint32_t slot) { return chunks_[slot >> kChunkBits][slot & kChunkMask]; }
  const Slot& At(std::uint32_t slot) const {
    return chunks_[slot >> kChunkBits][slot & kChunkMask];
  }
  std::uint32_t NewSlot();
  // True if the next task comes from the run rather than the heap.
  bool RunIsNext() const { return run_size_ != 0 && (heap_.empty() || run_at_ < heap_[0].at); }
  void HeapPush(const Key& k);
  void HeapPopFront();
  void RunPush(std::uint32_t slot);
  std::uint32_t RunPopFront();
  // Discards cancelled keys at the front until the next key is live.
  void DropDead();

  std::vector<Key> heap_;
  // The run: slots due at run_at_, a ring of power-of-two size.
  std::vector<std::uint32_t> run_;
  std::size_t run_head_ = 0;
  std::size_t run_size_ = 0;
  Nanos run_at_ = 0;

  std::vector<std::unique_ptr<Slot[]>> chunks_;
  std::uint32_t slot_count_ = 0;
  std::vector<std::uint32_t> free_;
  std::uint64_t seq_ = 0;
  std::size_t live_ = 0;
  std::size_t dead_ = 0;  // cancelled keys still queued
};

}  // namespace tierlab
