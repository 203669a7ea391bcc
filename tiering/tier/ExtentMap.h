#pragma once
// The tier target's map from volume extents to their place on a tier:
// extent index -> (tier, slot), where a slot is an extent-sized location on
// that tier (byte offset = slot * extent_size). An extent with no entry was
// never written (or was discarded) and reads as zeros.
//
// Two implementations with the same interface:
//  - IntervalExtentMap: a Boost.Icl interval_map keyed by extent index. The
//    value stored is (tier, slot - extent), so a run of extents placed on
//    consecutive slots of one tier has equal values and Icl keeps it as one
//    interval: a volume written sequentially is a handful of intervals, and
//    a request's runs come straight from equal_range().
//  - FlatExtentMap: one packed 8-byte word per extent. O(1) lookup whatever
//    the fragmentation.
// bench/micro/ExtentMapBench.cc measures both at a million scattered extents;
// docs/PERFORMANCE.md ("Tier target: extent map") gives the figures and why
// the tier target uses the one it uses (`ExtentMap` below).
//
// Threading: none (the target's engine thread). Failure: none; extent and
// slot indexes out of range are the caller's bug (checked by assert).

#include <boost/icl/interval_map.hpp>
#include <boost/icl/right_open_interval.hpp>
#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

namespace tierlab {

struct ExtentPlacement {
  std::uint32_t tier = 0;
  std::uint64_t slot = 0;
  bool operator==(const ExtentPlacement&) const = default;
};

class IntervalExtentMap {
 public:
  explicit IntervalExtentMap(std::uint64_t extents) : extents_(extents) {}

  std::uint64_t extents() const { return extents_; }
  std::optional<ExtentPlacement> Lookup(std::uint64_t e) const {
    auto it = map_.find(e);
    if (it == map_.end()) return std::nullopt;
    return Decode(e, it->second);
  }
  void Set(std::uint64_t e, ExtentPlacement p);
  void Erase(std::uint64_t e);
  // Calls fn(first_extent, count, const ExtentPlacement* p) for the maximal
  // runs covering [first, first + count): p is null for an unmapped run, else
  // the placement of first_extent (the run's slots are consecutive).
  template <typename Fn>
  void ForEachRun(std::uint64_t first, std::uint64_t count, Fn&& fn) const;
  // Mapped extents, and the number of intervals they form.
  std::uint64_t mapped() const { return mapped_; }
  std::size_t intervals() const { return boost::icl::interval_count(map_); }

 private:
  using Interval = boost::icl::right_open_interval<std::uint64_t>;
  // Value = (slot - extent) << 8 | tier. `set` overwrites, so the combiner is
  // never needed (inplace_identity); enricher keeps any value, including 0.
  using Map = boost::icl::interval_map<std::uint64_t, std::uint64_t, boost::icl::partial_enricher,
                                       std::less, boost::icl::inplace_identity,
                                       boost::icl::inter_section, Interval>;
  static std::uint64_t Encode(std::uint64_t e, ExtentPlacement p) {
    return ((p.slot - e) << 8) | p.tier;  // wraps for slot < e; Decode undoes it
  }
  static ExtentPlacement Decode(std::uint64_t e, std::uint64_t v) {
    return {static_cast<std::uint32_t>(v & 0xFF),
            static_cast<std::uint64_t>(static_cast<std::int64_t>(v) >> 8) + e};
  }

  std::uint64_t extents_;
  std::uint64_t mapped_ = 0;
  Map map_;
};

class FlatExtentMap {
 public:
  explicit FlatExtentMap(std::uint64_t extents) : words_(extents, kUnmapped) {}

  std::uint64_t extents() const { return words_.size(); }
  std::optional<ExtentPlacement> Lookup(std::uint64_t e) const {
    assert(e < words_.size());
    const std::uint64_t w = words_[e];
    if (w == kUnmapped) return std::nullopt;
    return ExtentPlacement{static_cast<std::uint32_t>(w & 0xFF), w >> 8};
  }
  void Set(std::uint64_t e, ExtentPlacement p) {
    assert(e < words_.size() && p.tier < 0xFF);
    if (words_[e] == kUnmapped) ++mapped_;
    words_[e] = (p.slot << 8) | p.tier;
  }
  void Erase(std::uint64_t e) {
    assert(e < words_.size());
    if (words_[e] != kUnmapped) --mapped_;
    words_[e] = kUnmapped;
  }
  template <typename Fn>
  void ForEachRun(std::uint64_t first, std::uint64_t count, Fn&& fn) const;
  std::uint64_t mapped() const { return mapped_; }
  // Counted by a scan (stats only).
  std::size_t intervals() const;

 private:
  static constexpr std::uint64_t kUnmapped = ~0ull;  // tier 0xFF: never a real tier
  std::vector<std::uint64_t> words_;
  std::uint64_t mapped_ = 0;
};

// The map the tier target uses; see the header comment.
using ExtentMap = FlatExtentMap;

template <typename Fn>
void IntervalExtentMap::ForEachRun(std::uint64_t first, std::uint64_t count, Fn&& fn) const {
  const std::uint64_t end = first + count;
  std::uint64_t at = first;
  auto [it, last] = map_.equal_range(Interval(first, end));
  for (; it != last; ++it) {
    const std::uint64_t lo = std::max(it->first.lower(), first);
    const std::uint64_t hi = std::min(it->first.upper(), end);
    if (lo > at) fn(at, lo - at, static_cast<const ExtentPlacement*>(nullptr));
    const ExtentPlacement p = Decode(lo, it->second);
    fn(lo, hi - lo, &p);
    at = hi;
  }
  if (at < end) fn(at, end - at, static_cast<const ExtentPlacement*>(nullptr));
}

template <typename Fn>
void FlatExtentMap::ForEachRun(std::uint64_t first, std::uint64_t count, Fn&& fn) const {
  const std::uint64_t end = first + count;
  std::uint64_t e = first;
  while (e < end) {
    const std::uint64_t w = words_[e];
    std::uint64_t n = 1;
    if (w == kUnmapped) {
      while (e + n < end && words_[e + n] == kUnmapped) ++n;
      fn(e, n, static_cast<const ExtentPlacement*>(nullptr));
    } else {
      // Consecutive slots of one tier: each word is the previous + (1 << 8).
      while (e + n < end && words_[e + n] == w + (n << 8)) ++n;
      const ExtentPlacement p{static_cast<std::uint32_t>(w & 0xFF), w >> 8};
      fn(e, n, &p);
    }
    e += n;
  }
}

}  // namespace tierlab
