#include "policies/DirtyAgeQueue.h"

namespace tierlab {

bool DirtyAgeQueue::Add(std::uint64_t line, std::int64_t now_ns) {
  const auto [it, inserted] = live_.try_emplace(line, next_seq_);
  if (!inserted) return false;
  queue_.push_back(Entry{line, next_seq_++, now_ns});
  return true;
}

bool DirtyAgeQueue::Remove(std::uint64_t line) {
  if (live_.erase(line) == 0) return false;
  DropStaleFront();
  MaybeCompact();
  return true;
}

void DirtyAgeQueue::PopFront() {
  live_.erase(queue_.front().line);
  queue_.pop_front();
  DropStaleFront();
}

bool DirtyAgeQueue::IsLive(const Entry& e) const {
  const auto it = live_.find(e.line);
  return it != live_.end() && it->second == e.seq;
}

void DirtyAgeQueue::DropStaleFront() {
  while (!queue_.empty() && !IsLive(queue_.front())) queue_.pop_front();
}

void DirtyAgeQueue::MaybeCompact() {
  // Bounded garbage: at most max(live, 64) stale entries survive.
  if (queue_.size() <= 2 * live_.size() + 64) return;
  std::deque<Entry> kept;
  for (const Entry& e : queue_) {
    if (IsLive(e)) kept.push_back(e);
  }
  queue_.swap(kept);
}

}  // namespace tierlab
