#include "cachedev/LineLocks.h"

#include <cassert>

namespace tierlab {

LineLocks::LineLocks() {
  table_.resize(64);
  mask_ = 63;
  shift_ = 64 - 6;
}

std::size_t LineLocks::FindIndex(std::uint64_t line) const {
  for (std::size_t i = Home(line);; i = (i + 1) & mask_) {
    if (table_[i].line == line) return i;
    if (table_[i].line == kEmpty) return kNoIndex;
  }
}

std::size_t LineLocks::FindOrInsert(std::uint64_t line) {
  if ((size_ + 1) * 2 > table_.size()) Grow();
  std::size_t i = Home(line);
  for (;; i = (i + 1) & mask_) {
    if (table_[i].line == line) return i;
    if (table_[i].line == kEmpty) break;
  }
  table_[i] = Entry{};
  table_[i].line = line;
  ++size_;
  return i;
}

void LineLocks::EraseAt(std::size_t i) {
  // Backward-shift deletion: no tombstones, probe sequences stay short.
  std::size_t hole = i;
  for (std::size_t j = (i + 1) & mask_; table_[j].line != kEmpty; j = (j + 1) & mask_) {
    const std::size_t home = Home(table_[j].line);
    // Move j into the hole if its home is not in (hole, j] cyclically.
    const bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      table_[hole] = table_[j];
      hole = j;
    }
  }
  table_[hole] = Entry{};
  --size_;
}

void LineLocks::Grow() {
  std::vector<Entry> old = std::move(table_);
  table_.assign(old.size() * 2, Entry{});
  mask_ = table_.size() - 1;
  --shift_;
  for (const Entry& e : old) {
    if (e.line == kEmpty) continue;
    std::size_t i = Home(e.line);
    while (table_[i].line != kEmpty) i = (i + 1) & mask_;
    table_[i] = e;
  }
}

bool LineLocks::Acquire(LockWaiter* w) {
  assert(w->first <= w->last);
  w->next_line = w->first;
  w->wait_next = nullptr;
  return Continue(w);
}

bool LineLocks::Continue(LockWaiter* w) {
  for (; w->next_line <= w->last; ++w->next_line) {
    Entry& e = table_[FindOrInsert(w->next_line)];
    const bool conflict = e.head != nullptr || e.writer || (w->exclusive && e.readers > 0);
    if (conflict) {
      w->wait_next = nullptr;
      if (e.tail != nullptr) {
        e.tail->wait_next = w;
      } else {
        e.head = w;
      }
      e.tail = w;
      return false;
    }
    if (w->exclusive) {
      e.writer = true;
    } else {
      ++e.readers;
    }
  }
  return true;
}

void LineLocks::Release(LockWaiter* w) {
  const std::size_t ready_start = ready_.size();
  for (std::uint64_t line = w->first; line <= w->last; ++line) {
    std::size_t i = FindIndex(line);
    assert(i != kNoIndex);
    {
      Entry& e = table_[i];
      if (w->exclusive) {
        assert(e.writer);
        e.writer = false;
      } else {
        assert(e.readers > 0);
        --e.readers;
      }
      if (e.head == nullptr) {
        // Nobody waits (the common case): no grants to work out.
        if (e.readers == 0 && !e.writer) EraseAt(i);
        continue;
      }
    }
    // Grant queued waiters that are now compatible, in FIFO order. Their
    // remaining lines are taken after this line is settled (taking them can
    // grow the table and move entries).
    std::vector<LockWaiter*> granted_here;
    for (;;) {
      Entry& e = table_[i];
      LockWaiter* h = e.head;
      if (h == nullptr) break;
      const bool ok = h->exclusive ? (!e.writer && e.readers == 0) : !e.writer;
      if (!ok) break;
      e.head = h->wait_next;
      if (e.head == nullptr) e.tail = nullptr;
      h->wait_next = nullptr;
      if (h->exclusive) {
        e.writer = true;
      } else {
        ++e.readers;
      }
      ++h->next_line;
      granted_here.push_back(h);
    }
    {
      Entry& e = table_[i];
      if (e.readers == 0 && !e.writer && e.head == nullptr) EraseAt(i);
    }
    for (LockWaiter* h : granted_here) {
      if (Continue(h)) ready_.push_back(h);
    }
  }
  if (ready_.size() == ready_start) return;
  // Callbacks last, after the table is consistent.
  std::vector<LockWaiter*> ready(ready_.begin() + ready_start, ready_.end());
  ready_.resize(ready_start);
  for (LockWaiter* h : ready) h->granted(h);
}

}  // namespace tierlab
