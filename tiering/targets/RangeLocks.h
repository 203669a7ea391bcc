#pragma once
// Exclusive locks on byte ranges, within units (a cluster's extents): a
// holder of [begin, end) in a unit excludes every overlapping range of that
// unit until it releases, and overlapping requests are granted in arrival
// order; ranges that do not overlap are held at once. A cluster's writes
// take them so that two overlapping writes reach every copy in the same
// order (as a primary orders them): otherwise one copy could end with the
// first write's data and another with the second's.
//
// Only units with a range held or waited for take memory. Not thread-safe:
// one engine, one thread. A holder must not wait for a second range (no
// order between units is kept, so two could wait for each other).

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "tiering/core/Engine.h"

namespace tierlab {

class RangeLocks {
 public:
  // Takes [begin, end) of `unit` and returns true, or queues `granted` and
  // returns false; `granted` then runs, holding the range, inside the
  // Release() that frees the way.
  bool Acquire(std::uint64_t unit, std::uint64_t begin, std::uint64_t end, Task granted);
  // Frees a range Acquire gave (or granted), and grants waiters it blocked.
  void Release(std::uint64_t unit, std::uint64_t begin, std::uint64_t end);

  std::size_t units() const { return units_.size(); }

 private:
  struct Range {
    std::uint64_t begin, end;
    bool Overlaps(std::uint64_t b, std::uint64_t e) const { return begin < e && b < end; }
  };
  struct Waiter {
    Range range;
    Task granted;
  };
  struct Unit {
    std::vector<Range> held;
    std::deque<Waiter> waiting;  // oldest first
  };
  std::unordered_map<std::uint64_t, Unit> units_;
};

}  // namespace tierlab
