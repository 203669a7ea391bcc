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

bool LineLocks::Compatible(const Entry& e, LineLockMode m) {
  switch (m) {
    case LineLockMode::kRead:
    case LineLockMode::kWrite: return !e.exclusive;
    case LineLockMode::kDestage: return !e.exclusive && e.writers == 0;
    case LineLockMode::kExclusive:
      return e.readers == 0 && e.destagers == 0 && e.writers == 0 && !e.exclusive;
  }
  return false;
}

void LineLocks::Take(Entry& e, LineLockMode m) {
  switch (m) {
    case LineLockMode::kRead: ++e.readers; return;
    case LineLockMode::kWrite:
      ++e.writers;
      ++e.writes;
      return;
    case LineLockMode::kDestage: ++e.destagers; return;
    case LineLockMode::kExclusive:
      e.exclusive = true;
      ++e.writes;
      return;
  }
}

std::uint64_t LineLocks::Generation(std::uint64_t line) const {
  const std::size_t i = FindIndex(line);
  if (i == kNoIndex) return 0;
  const Entry& e = table_[i];
  return 2 * static_cast<std::uint64_t>(e.writes) + ((e.writers > 0 || e.exclusive) ? 1 : 0);
}

std::uint32_t LineLocks::Writers(std::uint64_t line) const {
  const std::size_t i = FindIndex(line);
  return i == kNoIndex ? 0 : table_[i].writers;
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
    // A read waits only for an exclusive holder or waiter; anything else
    // queues behind every earlier waiter (FIFO).
    const bool wait = w->lock_mode == LineLockMode::kRead
                          ? e.exclusive || e.exclusive_waiting > 0
                          : e.head != nullptr || !Compatible(e, w->lock_mode);
    if (wait) {
      w->wait_next = nullptr;
      if (e.tail != nullptr) {
        e.tail->wait_next = w;
      } else {
        e.head = w;
      }
      e.tail = w;
      if (w->lock_mode == LineLockMode::kExclusive) ++e.exclusive_waiting;
      return false;
    }
    Take(e, w->lock_mode);
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
      switch (w->lock_mode) {
        case LineLockMode::kRead:
          assert(e.readers > 0);
          --e.readers;
          break;
        case LineLockMode::kWrite:
          assert(e.writers > 0);
          --e.writers;
          break;
        case LineLockMode::kDestage:
          assert(e.destagers > 0);
          --e.destagers;
          break;
        case LineLockMode::kExclusive:
          assert(e.exclusive);
          e.exclusive = false;
          break;
      }
      if (e.head == nullptr) {
        // Nobody waits (the common case): no grants to work out.
        if (e.Idle()) EraseAt(i);
        continue;
      }
    }
    // Grant queued waiters that are now compatible, in FIFO order: the scan
    // stops at the first waiter that must stay, except that reads behind a
    // waiting write or destage are still granted (they do not conflict with
    // it); waiting writes and destages behind it stay in order. Their
    // remaining lines are taken after this line is settled (taking them can
    // grow the table and move entries).
    std::vector<LockWaiter*> granted_here;
    {
      Entry& e = table_[i];
      LockWaiter* prev = nullptr;
      bool writer_waits = false;  // a kWrite or kDestage ahead stays queued
      for (LockWaiter* h = e.head; h != nullptr;) {
        LockWaiter* next = h->wait_next;
        const LineLockMode m = h->lock_mode;
        const bool ok = m == LineLockMode::kRead
                            ? Compatible(e, m)
                            : !writer_waits && (m != LineLockMode::kExclusive || prev == nullptr) &&
                                  Compatible(e, m);
        if (!ok) {
          if (m == LineLockMode::kRead || m == LineLockMode::kExclusive) break;
          writer_waits = true;
          prev = h;
          h = next;
          continue;
        }
        // Unlink h.
        if (prev == nullptr) {
          e.head = next;
        } else {
          prev->wait_next = next;
        }
        if (e.tail == h) e.tail = prev;
        h->wait_next = nullptr;
        if (m == LineLockMode::kExclusive) --e.exclusive_waiting;
        Take(e, m);
        ++h->next_line;
        granted_here.push_back(h);
        h = next;
      }
      if (e.Idle()) EraseAt(i);
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
