#pragma once
// Pending tasks ordered by due time, FIFO among equal times. Shared by the
// simulated and the real engine.
//
// Tasks live in a slab; the heap holds 24-byte keys, so heap moves stay cheap
// at millions of events per second. A cancelled task is destroyed at once and
// its key skipped when it surfaces.

#include <cstdint>
#include <queue>
#include <vector>

#include "tiering/Engine.h"

namespace tierlab {

class TimerQueue {
 public:
  TimerId Push(Nanos at, Task task);
  bool Cancel(TimerId id);
  bool Empty() const { return live_ == 0; }
  std::size_t Size() const { return live_; }
  // Due time of the earliest live task. Requires !Empty().
  Nanos NextDue();
  // Removes the earliest live task and returns it with its due time.
  // Requires !Empty().
  Task Pop(Nanos* at);

 private:
  struct Key {
    Nanos at;
    std::uint64_t seq;
    std::uint32_t slot;
    std::uint32_t gen;
    bool operator>(const Key& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  struct Slot {
    Task task;
    std::uint32_t gen = 0;
    bool live = false;
  };
  void DropDead();

  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::uint64_t seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tierlab
