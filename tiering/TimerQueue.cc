#include "tiering/TimerQueue.h"

#include <cassert>

namespace tierlab {

TimerId TimerQueue::Push(Nanos at, Task&& task) {
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
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
  if (slot >= slots_.size()) return false;
  Slot& s = slots_[slot];
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
      if (slots_[slot].live) return;
      RunPopFront();
      free_.push_back(slot);
    } else {
      const std::uint32_t slot = heap_[0].slot;
      if (slots_[slot].live) return;
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

Task TimerQueue::Pop(Nanos* at) {
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
  Slot& s = slots_[slot];
  Task t = std::move(s.task);
  FreeSlot(slot);
  --live_;
  return t;
}

void TimerQueue::FreeSlot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.live = false;
  ++s.gen;
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
  // branch per comparison mispredicts about half the time: compare without
  // short-circuits and select with conditional moves instead.
  const auto earlier = [](const Key& a, const Key& b) {
    return (a.at < b.at) | ((a.at == b.at) & (a.seq < b.seq));
  };
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
