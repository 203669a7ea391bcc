#include "tiering/tier/ExtentMap.h"

namespace tierlab {

void IntervalExtentMap::Set(std::uint64_t e, ExtentPlacement p) {
  assert(e < extents_ && p.tier < 0xFF);
  if (map_.find(e) == map_.end()) ++mapped_;
  map_.set(std::make_pair(Interval(e, e + 1), Encode(e, p)));
}

void IntervalExtentMap::Erase(std::uint64_t e) {
  assert(e < extents_);
  if (map_.find(e) == map_.end()) return;
  --mapped_;
  map_.erase(Interval(e, e + 1));
}

std::size_t FlatExtentMap::intervals() const {
  std::size_t n = 0;
  ForEachRun(0, words_.size(), [&](std::uint64_t, std::uint64_t, const ExtentPlacement* p) {
    if (p != nullptr) ++n;
  });
  return n;
}

}  // namespace tierlab
