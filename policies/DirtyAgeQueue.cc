#include "policies/DirtyAgeQueue.h"

#include <cassert>

namespace tierlab {

DirtyAgeQueue::DirtyAgeQueue() : live_(64), mask_(63) {}

std::size_t DirtyAgeQueue::FindIndex(std::uint64_t line) const {
  for (std::size_t i = Home(line);; i = (i + 1) & mask_) {
    if (live_[i].line == line) return i;
    if (live_[i].line == kEmpty) return kNoIndex;
  }
}

void DirtyAgeQueue::EraseAt(std::size_t i) {
  // Backward-shift deletion: no tombstones, probe sequences stay short.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask_; live_[j].line != kEmpty; j = (j + 1) & mask_) {
    const std::size_t home = Home(live_[j].line);
    const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      live_[hole] = live_[j];
      hole = j;
    }
  }
  live_[hole] = Slot{};
  --live_size_;
}

void DirtyAgeQueue::Grow() {
  auto old = std::move(live_);
  live_.assign(old.size() * 2, Slot{});
  mask_ = live_.size() - 1;
  for (const Slot& s : old) {
    if (s.line == kEmpty) continue;
    std::size_t i = Home(s.line);
    while (live_[i].line != kEmpty) i = (i + 1) & mask_;
    live_[i] = s;
  }
}

bool DirtyAgeQueue::Add(std::uint64_t line, std::int64_t now_ns) {
  assert(line != kEmpty);
  if ((live_size_ + 1) * 2 > live_.size()) Grow();
  std::size_t i = Home(line);
  for (;; i = (i + 1) & mask_) {
    if (live_[i].line == line) return false;
    if (live_[i].line == kEmpty) break;
  }
  live_[i] = Slot{line, next_seq_};
  ++live_size_;
  queue_.push_back(Entry{line, next_seq_++, now_ns});
  return true;
}

bool DirtyAgeQueue::Remove(std::uint64_t line) {
  const std::size_t i = FindIndex(line);
  if (i == kNoIndex) return false;
  EraseAt(i);
  DropStaleFront();
  MaybeCompact();
  return true;
}

void DirtyAgeQueue::PopFront() {
  const std::size_t i = FindIndex(queue_.front().line);
  assert(i != kNoIndex);
  EraseAt(i);
  queue_.pop_front();
  DropStaleFront();
}

bool DirtyAgeQueue::IsLive(const Entry& e) const {
  const std::size_t i = FindIndex(e.line);
  return i != kNoIndex && live_[i].seq == e.seq;
}

void DirtyAgeQueue::DropStaleFront() {
  while (!queue_.empty() && !IsLive(queue_.front())) queue_.pop_front();
}

void DirtyAgeQueue::MaybeCompact() {
  // Bounded garbage: at most max(live, 64) stale entries survive.
  if (queue_.size() <= 2 * live_size_ + 64) return;
  std::deque<Entry> kept;
  for (const Entry& e : queue_) {
    if (IsLive(e)) kept.push_back(e);
  }
  queue_.swap(kept);
}

}  // namespace tierlab
