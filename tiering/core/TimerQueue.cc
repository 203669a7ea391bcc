#include "tiering/core/TimerQueue.h"

#include <cassert>

namespace tierlab {

std::uint32_t TimerQueue::NewSlot() {
  if (!free_.empty()) {
    const std::uint32_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  if ((slot_count_ & kChunkMask) == 0) chunks_.push_back(std::make_unique<Slot[]>(kChunkMask + 1));
  return slot_count_++;
}

TimerId TimerQueue::Push(Nanos at, Task&& task) {
  const std::uint32_t slot = NewSlot();
  Slot& s = At(slot);
  s.task = std::move(task);
  s.live = true;
  ++live_;
  if (run_size_ != 0 ? at == run_at_ : (heap_.empty() || at < heap_[0].at)) {
    run_at_ = at;
    RunPush(slot);
  } else {
    HeapPush(Key{at, seq_++, slot});
  }
  return (static_cast<TimerId>(slot) << 32) | s.gen;
}

bool TimerQueue::Cancel(TimerId id) {
  const auto slot = static_cast<std::uint32_t>(id >> 32);
  const auto gen = static_cast<std::uint32_t>(id);
  if (slot >= slot_count_) return false;
  Slot& s = At(slot);
  if (!s.live || s.gen != gen) return false;
  s.task.Reset();
  s.live = false;
  ++s.gen;
  --live_;
  // The slot is freed when its key surfaces, so no queued key ever refers to
  // a reused slot.
  ++dead_;
  return true;
}

void TimerQueue::DropDead() {
  while (dead_ != 0) {
    if (RunIsNext()) {
      const std::uint32_t slot = run_[run_head_];
      if (At(slot).live) return;
      RunPopFront();
      free_.push_back(slot);
    } else {
      const std::uint32_t slot = heap_[0].slot;
      if (At(slot).live) return;
      HeapPopFront();
      free_.push_back(slot);
    }
    --dead_;
  }
}

Nanos TimerQueue::NextDue() {
  DropDead();
  return RunIsNext() ? run_at_ : heap_[0].at;
}

void TimerQueue::RunNext(Nanos* at) {
  DropDead();
  std::uint32_t slot;
  if (RunIsNext()) {
    assert(heap_.empty() || heap_[0].at != run_at_);
    *at = run_at_;
    slot = RunPopFront();
  } else {
    *at = heap_[0].at;
    slot = heap_[0].slot;
    HeapPopFront();
  }
  Slot& s = At(slot);
  s.live = false;
  ++s.gen;  // a Cancel from now on finds the task gone
  --live_;
  // Run in place: chunks never move, so the slot stays valid while the task
  // pushes more, and it is off the free list until the task returns.
  s.task();
  s.task.Reset();
  free_.push_back(slot);
}

void TimerQueue::HeapPush(const Key& k) {
  std::size_t i = heap_.size();
  heap_.push_back(k);
  while (i > 0) {
    const std::size_t parent = (i - 1) / 4;
    if (!Earlier(k, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = k;
}

void TimerQueue::HeapPopFront() {
  const Key last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return;
  // Due times of the keys in a heap are unordered among siblings, so a
  // branch per comparison mispredicts about half the time: Earlier() has no
  // branch, and the picks below compile to conditional moves.
  const auto earlier = &TimerQueue::Earlier;
  // Sift the last key down from the root through the earliest child.
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = 4 * i + 1;
    if (first >= n) break;
    std::size_t best = first;
    if (first + 3 < n) {
      const std::size_t a = earlier(heap_[first + 1], heap_[first]) ? first + 1 : first;
      const std::size_t b = earlier(heap_[first + 3], heap_[first + 2]) ? first + 3 : first + 2;
      best = earlier(heap_[b], heap_[a]) ? b : a;
    } else {
      for (std::size_t c = first + 1; c < n; ++c) {
        if (earlier(heap_[c], heap_[best])) best = c;
      }
    }
    if (!earlier(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
}

void TimerQueue::RunPush(std::uint32_t slot) {
  if (run_size_ == run_.size()) {
    // Grow the ring, unrolling it so the front is at index 0.
    std::vector<std::uint32_t> bigger(run_.empty() ? 64 : run_.size() * 2);
    for (std::size_t k = 0; k < run_size_; ++k) {
      bigger[k] = run_[(run_head_ + k) & (run_.size() - 1)];
    }
    run_.swap(bigger);
    run_head_ = 0;
  }
  run_[(run_head_ + run_size_) & (run_.size() - 1)] = slot;
  ++run_size_;
}

std::uint32_t TimerQueue::RunPopFront() {
  const std::uint32_t slot = run_[run_head_];
  run_head_ = (run_head_ + 1) & (run_.size() - 1);
  --run_size_;
  return slot;
}

}  // namespace tierlab
