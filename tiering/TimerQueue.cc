#include "tiering/TimerQueue.h"

namespace tierlab {

TimerId TimerQueue::Push(Nanos at, Task task) {
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
  heap_.push(Key{at, seq_++, slot, s.gen});
  ++live_;
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
  --live_;
  // The slot is freed when its key surfaces, so the generation check holds.
  return true;
}

void TimerQueue::DropDead() {
  while (!heap_.empty()) {
    const Key& k = heap_.top();
    Slot& s = slots_[k.slot];
    if (s.live && s.gen == k.gen) return;
    if (s.gen == k.gen) {  // cancelled: release the slot now
      ++s.gen;
      free_.push_back(k.slot);
    }
    heap_.pop();
  }
}

Nanos TimerQueue::NextDue() {
  DropDead();
  return heap_.top().at;
}

Task TimerQueue::Pop(Nanos* at) {
  DropDead();
  const Key k = heap_.top();
  heap_.pop();
  Slot& s = slots_[k.slot];
  Task t = std::move(s.task);
  s.live = false;
  ++s.gen;
  free_.push_back(k.slot);
  --live_;
  *at = k.at;
  return t;
}

}  // namespace tierlab
