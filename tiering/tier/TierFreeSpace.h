#pragma once
// Free extent-sized slots of one tier, as a Boost.Icl interval_set: a fresh
// tier is one interval, and first-fit allocation hands out consecutive slots
// to consecutive allocations, so sequentially written extents land on
// consecutive slots (one run in the extent map, one child I/O per request).
//
// Threading: none (the tier target's engine thread). Freeing a slot that is
// already free is the caller's bug (checked by assert).

#include <boost/icl/interval_set.hpp>
#include <boost/icl/right_open_interval.hpp>
#include <cstdint>
#include <optional>

namespace tierlab {

class TierFreeSpace {
 public:
  // All `slots` start free.
  explicit TierFreeSpace(std::uint64_t slots);

  // The lowest free slot, now allocated; nullopt if the tier is full.
  std::optional<std::uint64_t> Allocate();
  void Free(std::uint64_t slot);
  bool IsFree(std::uint64_t slot) const { return boost::icl::contains(free_, slot); }

  std::uint64_t slots() const { return slots_; }
  std::uint64_t free() const { return free_count_; }
  std::uint64_t used() const { return slots_ - free_count_; }
  std::size_t intervals() const { return boost::icl::interval_count(free_); }

 private:
  using Interval = boost::icl::right_open_interval<std::uint64_t>;
  boost::icl::interval_set<std::uint64_t, std::less, Interval> free_;
  std::uint64_t slots_;
  std::uint64_t free_count_;
};

}  // namespace tierlab
