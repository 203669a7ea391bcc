#include "tiering/nbd/NbdBufferPool.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdlib>

namespace tierlab {

NbdBufferPool::NbdBufferPool(Engine& engine, std::size_t limit) : engine_(engine), limit_(limit) {}

NbdBufferPool::~NbdBufferPool() {
  if (wake_scheduled_) engine_.Cancel(wake_timer_);
  for (int c = 0; c < kClasses; ++c) {
    for (std::byte* p : kept_by_class_[c]) Free(p, std::size_t{1} << c);
  }
}

std::size_t NbdBufferPool::CapacityFor(std::size_t size) {
  return std::bit_ceil(std::max(size, kAlignment));
}

std::byte* NbdBufferPool::Allocate(std::size_t capacity) {
  void* p;
  if (capacity >= kMapFrom) {
    p = ::mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = nullptr;
  } else {
    p = std::aligned_alloc(kAlignment, capacity);
  }
  if (p == nullptr) std::abort();  // out of memory, as operator new would
  return static_cast<std::byte*>(p);
}

void NbdBufferPool::Free(std::byte* p, std::size_t capacity) {
  if (capacity >= kMapFrom) {
    ::munmap(p, capacity);
  } else {
    std::free(p);
  }
}

std::byte* NbdBufferPool::Acquire(std::size_t size, std::size_t* capacity, Waiter* waiter) {
  const std::size_t cap = CapacityFor(size);
  const int cls = std::countr_zero(cap);
  *capacity = cap;
  // No overtaking: while someone waits, only the head of the queue acquires.
  const bool my_turn = head_ == nullptr || head_ == waiter;
  if (!my_turn || cls >= kClasses || in_use_ + cap > limit_) {
    if (waiter != nullptr && !waiter->queued_) {
      waiter->need_ = cap;
      waiter->queued_ = true;
      waiter->next_ = nullptr;
      if (tail_ != nullptr) {
        tail_->next_ = waiter;
      } else {
        head_ = waiter;
      }
      tail_ = waiter;
    }
    return nullptr;
  }
  if (waiter != nullptr && waiter->queued_) {
    Dequeue(waiter);
    ScheduleWake();  // the next in line may fit too
  }
  std::byte* p;
  if (!kept_by_class_[cls].empty()) {
    p = kept_by_class_[cls].back();
    kept_by_class_[cls].pop_back();
    kept_ -= cap;
  } else {
    MakeRoom(cap);
    p = Allocate(cap);
  }
  in_use_ += cap;
  peak_in_use_ = std::max(peak_in_use_, in_use_);
  return p;
}

void NbdBufferPool::Release(std::byte* p, std::size_t capacity) {
  if (p == nullptr) return;
  in_use_ -= capacity;
  const int cls = std::countr_zero(capacity);
  if (keep_ && kept_ + capacity <= kMaxKeptBytes) {
    kept_by_class_[cls].push_back(p);
    kept_ += capacity;
  } else {
    Free(p, capacity);
  }
  ScheduleWake();
}

void NbdBufferPool::MakeRoom(std::size_t room) {
  for (int c = kClasses - 1; c >= 0 && in_use_ + kept_ + room > limit_; --c) {
    auto& list = kept_by_class_[c];
    while (!list.empty() && in_use_ + kept_ + room > limit_) {
      Free(list.back(), std::size_t{1} << c);
      list.pop_back();
      kept_ -= std::size_t{1} << c;
    }
  }
}

void NbdBufferPool::Trim() {
  for (int c = 0; c < kClasses; ++c) {
    for (std::byte* p : kept_by_class_[c]) Free(p, std::size_t{1} << c);
    kept_by_class_[c].clear();
    kept_by_class_[c].shrink_to_fit();
  }
  kept_ = 0;
  ::malloc_trim(0);
}

void NbdBufferPool::SetKeep(bool keep) {
  keep_ = keep;
  if (!keep) Trim();
}

void NbdBufferPool::CancelWait(Waiter* waiter) {
  if (!waiter->queued_) return;
  const bool was_head = head_ == waiter;
  Dequeue(waiter);
  if (was_head) ScheduleWake();
}

void NbdBufferPool::Dequeue(Waiter* w) {
  Waiter* prev = nullptr;
  for (Waiter* it = head_; it != nullptr; prev = it, it = it->next_) {
    if (it != w) continue;
    if (prev != nullptr) {
      prev->next_ = w->next_;
    } else {
      head_ = w->next_;
    }
    if (tail_ == w) tail_ = prev;
    break;
  }
  w->next_ = nullptr;
  w->queued_ = false;
}

void NbdBufferPool::ScheduleWake() {
  if (wake_scheduled_ || head_ == nullptr || in_use_ + head_->need_ > limit_) return;
  wake_scheduled_ = true;
  wake_timer_ = engine_.Post([this] { Wake(); });
}

void NbdBufferPool::Wake() {
  wake_scheduled_ = false;
  while (head_ != nullptr && in_use_ + head_->need_ <= limit_) {
    Waiter* w = head_;
    w->OnBufferAvailable();
    // Still first in line with room for it: it did not want the buffer
    // after all (closing, or paused for another reason). Let the next one
    // have its turn; it queues again when it asks again.
    if (head_ == w && w->queued_ && in_use_ + w->need_ <= limit_) Dequeue(w);
    // A waiter that acquired scheduled the next wake itself; one turn each.
    if (wake_scheduled_) return;
  }
}

}  // namespace tierlab
