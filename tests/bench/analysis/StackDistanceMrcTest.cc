// Exact stack-distance MRC against a brute-force LRU simulation, plus the
// building blocks (FlatU64Map, LruStackDistance).

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <random>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include "bench/analysis/FlatU64Map.h"
#include "bench/analysis/LruStackDistance.h"
#include "bench/analysis/StackDistanceMrc.h"

namespace tierlab {
namespace {

// Straightforward LRU cache of `capacity` blocks: list + map.
class BruteForceLru {
 public:
  explicit BruteForceLru(std::size_t capacity) : capacity_(capacity) {}
  bool Access(std::uint64_t key) {  // true on hit
    auto it = where_.find(key);
    if (it != where_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return true;
    }
    order_.push_front(key);
    where_[key] = order_.begin();
    if (order_.size() > capacity_) {
      where_.erase(order_.back());
      order_.pop_back();
    }
    return false;
  }

 private:
  std::size_t capacity_;
  std::list<std::uint64_t> order_;
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
};

TEST(FlatU64MapTest, MatchesStdUnorderedMapUnderInsertEraseChurn) {
  FlatU64Map<std::uint64_t> m;
  std::unordered_map<std::uint64_t, std::uint64_t> ref;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t k = rng() % 5000;
    if (i % 997 == 0) k = ~std::uint64_t{0};  // the sentinel key works too
    if (rng() % 3 == 0) {
      EXPECT_EQ(m.Erase(k), ref.erase(k) == 1);
    } else {
      auto [v, inserted] = m.Insert(k, i);
      auto [it, ref_inserted] = ref.emplace(k, i);
      EXPECT_EQ(inserted, ref_inserted);
      EXPECT_EQ(*v, it->second);
    }
  }
  EXPECT_EQ(m.size(), ref.size());
  for (const auto& [k, v] : ref) {
    ASSERT_NE(m.Find(k), nullptr);
    EXPECT_EQ(*m.Find(k), v);
  }
}

TEST(LruStackDistanceTest, SmallSequence) {
  LruStackDistance s;
  EXPECT_EQ(s.Access(1), LruStackDistance::kCold);
  EXPECT_EQ(s.Access(2), LruStackDistance::kCold);
  EXPECT_EQ(s.Access(3), LruStackDistance::kCold);
  EXPECT_EQ(s.Access(3), 0u);
  EXPECT_EQ(s.Access(1), 2u);  // 2 and 3 since
  EXPECT_EQ(s.Access(2), 2u);  // 3 and 1 since
  EXPECT_TRUE(s.Remove(3));
  EXPECT_EQ(s.Access(2), 0u);
  EXPECT_EQ(s.Access(1), 1u);  // only 2 is left since
  EXPECT_EQ(s.Access(3), LruStackDistance::kCold);
  EXPECT_EQ(s.size(), 3u);
}

// The one-pass curve equals a direct LRU simulation at every size, exactly,
// on a random trace long enough to force many slot compactions.
TEST(StackDistanceMrcTest, EqualsBruteForceLruAtEverySize) {
  std::mt19937_64 rng(12345);
  std::vector<std::uint64_t> keys;
  std::vector<bool> is_read;
  for (int i = 0; i < 60000; ++i) {
    // A mix of a hot set and a wide cold range, so all sizes matter.
    keys.push_back(rng() % 4 == 0 ? rng() % 3000 : rng() % 200);
    is_read.push_back(rng() % 3 != 0);
  }
  StackDistanceMrc mrc(4096);
  for (std::size_t i = 0; i < keys.size(); ++i) mrc.AccessBlock(keys[i], is_read[i]);
  std::vector<std::uint64_t> sizes = {1,   2,   3,   5,   10,   50,   100,  150,
                                      199, 200, 201, 500, 1000, 2999, 3000, 4000};
  MissRatioCurve curve = mrc.Curve(sizes);
  ASSERT_EQ(curve.points.size(), sizes.size());
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    BruteForceLru lru(sizes[s]);
    std::uint64_t misses = 0;
    std::uint64_t read_misses = 0;
    std::uint64_t reads = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      bool hit = lru.Access(keys[i]);
      misses += !hit;
      if (is_read[i]) {
        ++reads;
        read_misses += !hit;
      }
    }
    EXPECT_EQ(mrc.Misses(sizes[s]), misses) << "size " << sizes[s];
    EXPECT_EQ(mrc.ReadMisses(sizes[s]), read_misses) << "size " << sizes[s];
    EXPECT_DOUBLE_EQ(curve.points[s].miss_ratio, static_cast<double>(misses) / keys.size());
    EXPECT_DOUBLE_EQ(curve.points[s].read_miss_ratio, static_cast<double>(read_misses) / reads);
  }
}

TEST(StackDistanceMrcTest, RequestsSpanningBlocksCountEachBlock) {
  StackDistanceMrc mrc(4096);
  mrc.Add({0, IoOp::kRead, 1024, 8192});     // blocks 0, 1, 2
  mrc.Add({0, IoOp::kWrite, 4096, 4096});    // block 1
  mrc.Add({0, IoOp::kFlush, 0, 0});          // ignored
  mrc.Add({0, IoOp::kDiscard, 0, 1 << 20});  // ignored
  EXPECT_EQ(mrc.references(), 4u);
  EXPECT_EQ(mrc.read_references(), 3u);
  EXPECT_EQ(mrc.unique_blocks(), 3u);
  EXPECT_EQ(mrc.Misses(1), 4u);  // block 1 re-referenced at distance 1 (block 2 since)
  EXPECT_EQ(mrc.Misses(2), 3u);  // distance 1 < 2: hit
}

// Access and Remove against a list kept in LRU order (the distance is the
// position in the list), over enough operations for many compactions, which
// renumber the slots of the remaining keys.
TEST(LruStackDistanceTest, AccessAndRemoveMatchAnLruListThroughCompactions) {
  LruStackDistance s;
  std::list<std::uint64_t> order;  // most recent first
  std::mt19937_64 rng(99);
  for (int i = 0; i < 80000; ++i) {
    const std::uint64_t key = rng() % 4 == 0 ? rng() % 5000 : rng() % 300;
    if (rng() % 10 == 0) {
      auto it = std::find(order.begin(), order.end(), key);
      const bool present = it != order.end();
      if (present) order.erase(it);
      ASSERT_EQ(s.Remove(key), present) << "op " << i;
      continue;
    }
    auto it = std::find(order.begin(), order.end(), key);
    std::uint64_t expected = LruStackDistance::kCold;
    if (it != order.end()) {
      expected = static_cast<std::uint64_t>(std::distance(order.begin(), it));
      order.erase(it);
    }
    order.push_front(key);
    ASSERT_EQ(s.Access(key), expected) << "op " << i << " key " << key;
  }
  EXPECT_EQ(s.size(), order.size());
}

// Batches (the prefetching path) give exactly what one record at a time
// gives, including records longer than a batch of block references and
// the ops that are ignored.
TEST(StackDistanceMrcTest, BatchedAddEqualsOneRecordAtATime) {
  std::mt19937_64 rng(4242);
  std::vector<TraceRecord> records;
  for (int i = 0; i < 30000; ++i) {
    TraceRecord r;
    const auto kind = rng() % 100;
    r.op = kind < 60   ? IoOp::kRead
           : kind < 97 ? IoOp::kWrite
           : kind < 99 ? IoOp::kFlush
                       : IoOp::kDiscard;
    r.offset = (rng() % 4 == 0 ? rng() % 20000 : rng() % 500) * 4096 + rng() % 2 * 512;
    r.length = static_cast<std::uint32_t>((rng() % 50 == 0 ? 1 + rng() % 300 : 1) * 4096);
    records.push_back(r);
  }
  StackDistanceMrc one(4096);
  for (const TraceRecord& r : records) one.Add(r);
  StackDistanceMrc batched(4096);
  for (std::size_t i = 0; i < records.size();) {
    const std::size_t n = std::min<std::size_t>(1 + rng() % 300, records.size() - i);
    batched.Add(std::span<const TraceRecord>(records.data() + i, n));
    i += n;
  }
  EXPECT_EQ(batched.references(), one.references());
  EXPECT_EQ(batched.read_references(), one.read_references());
  EXPECT_EQ(batched.unique_blocks(), one.unique_blocks());
  for (std::uint64_t size : {1, 10, 100, 499, 500, 501, 1000, 5000, 20000, 30000}) {
    EXPECT_EQ(batched.Misses(size), one.Misses(size)) << size;
    EXPECT_EQ(batched.ReadMisses(size), one.ReadMisses(size)) << size;
  }
}

TEST(MissRatioCurveTest, EvenSizes) {
  EXPECT_EQ(EvenCacheSizes(10, 5), (std::vector<std::uint64_t>{2, 4, 6, 8, 10}));
  EXPECT_EQ(EvenCacheSizes(2, 4), (std::vector<std::uint64_t>{1, 2}));
}

}  // namespace
}  // namespace tierlab
