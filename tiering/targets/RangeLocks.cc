#include "tiering/targets/RangeLocks.h"

#include <algorithm>

namespace tierlab {

bool RangeLocks::Acquire(std::uint64_t unit, std::uint64_t begin, std::uint64_t end, Task granted) {
  Unit& u = units_[unit];
  const auto blocks = [begin, end](const Range& r) { return r.Overlaps(begin, end); };
  const bool free = std::none_of(u.held.begin(), u.held.end(), blocks) &&
                    std::none_of(u.waiting.begin(), u.waiting.end(),
                                 [&](const Waiter& w) { return blocks(w.range); });
  if (free) {
    u.held.push_back({begin, end});
    return true;
  }
  u.waiting.push_back({{begin, end}, std::move(granted)});
  return false;
}

void RangeLocks::Release(std::uint64_t unit, std::uint64_t begin, std::uint64_t end) {
  auto it = units_.find(unit);
  if (it == units_.end()) return;
  Unit& u = it->second;
  auto held = std::find_if(u.held.begin(), u.held.end(),
                           [&](const Range& r) { return r.begin == begin && r.end == end; });
  if (held != u.held.end()) {
    *held = u.held.back();
    u.held.pop_back();
  }
  // A waiter goes once no held range and no older waiter overlaps it, so
  // overlapping requests keep their order.
  std::vector<Task> grant;
  for (std::size_t i = 0; i < u.waiting.size();) {
    const Range r = u.waiting[i].range;
    const auto overlaps = [&r](const Range& o) { return o.Overlaps(r.begin, r.end); };
    const bool blocked =
        std::any_of(u.held.begin(), u.held.end(), overlaps) ||
        std::any_of(u.waiting.begin(), u.waiting.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const Waiter& w) { return overlaps(w.range); });
    if (blocked) {
      ++i;
      continue;
    }
    u.held.push_back(r);
    grant.push_back(std::move(u.waiting[i].granted));
    u.waiting.erase(u.waiting.begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (u.held.empty() && u.waiting.empty()) units_.erase(it);
  // `u` may be gone; the granted run after the bookkeeping is done.
  for (Task& t : grant) t();
}

}  // namespace tierlab
