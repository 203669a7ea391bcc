#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include "cachedev/CacheTarget.h"
#include "cachedev/LineTable.h"
#include "tiering/core/SimEngine.h"
#include "tiering/devices/RamDevice.h"

namespace tierlab {
namespace {

// Random insert/remove/find against a hash map, at capacities that are not
// powers of two (the bucket count is ceil(capacity / 4), any value).
TEST(LineTableTest, MatchesReferenceMapAtOddCapacities) {
  for (std::uint32_t cap : {1u, 2u, 3u, 5u, 1000u, 4097u}) {
    LineTable t(cap);
    std::unordered_map<std::uint64_t, Slot> ref;  // key -> slot
    std::vector<Slot> resident;
    std::mt19937_64 rng(cap);
    for (int i = 0; i < 20000; ++i) {
      const std::uint64_t key = rng() % (3ull * cap + 7);
      const Slot found = t.Find(key);
      const auto it = ref.find(key);
      ASSERT_EQ(found, it == ref.end() ? LineTable::kNone : it->second) << "cap " << cap;
      if (found == LineTable::kNone) {
        Slot s = t.AllocFree();
        if (s == LineTable::kNone) {
          // Full: drop a random resident line and reuse its slot.
          const std::size_t k = rng() % resident.size();
          s = resident[k];
          resident[k] = resident.back();
          resident.pop_back();
          ref.erase(t.Key(s));
          t.Remove(s);
          ASSERT_EQ(t.state(s), LineTable::State::kReserved);
        }
        t.Insert(s, key);
        ref[key] = s;
        resident.push_back(s);
        if (rng() % 2 == 0) t.SetDirty(s, true);
      }
      ASSERT_EQ(t.resident(), ref.size());
      ASSERT_EQ(t.resident() + t.free(), cap);
    }
    for (const auto& [key, slot] : ref) {
      ASSERT_EQ(t.Find(key), slot);
      ASSERT_EQ(t.Key(slot), key);
      ASSERT_TRUE(t.Resident(slot));
    }
  }
}

TEST(LineTableTest, LargestKeyAndDirtyCount) {
  LineTable t(4);
  const Slot s = t.AllocFree();
  t.Insert(s, LineTable::kMaxKey);
  EXPECT_EQ(t.Find(LineTable::kMaxKey), s);
  EXPECT_EQ(t.Find(0), LineTable::kNone);
  t.SetDirty(s, true);
  t.SetDirty(s, true);
  EXPECT_EQ(t.dirty(), 1u);
  t.Remove(s);  // clears dirty
  EXPECT_EQ(t.dirty(), 0u);
  EXPECT_EQ(t.Key(s), LineTable::kMaxKey);  // a reserved slot keeps its key
  t.Release(s);
  EXPECT_EQ(t.free(), 4u);
}

// The line table alone: 8 bytes per slot plus a 4-byte bucket head per 2
// slots, per 4 slots from LineTable::kSparseHeadsFrom on, whatever the
// capacity.
TEST(LineTableTest, TenBytesPerLineThenNine) {
  for (std::uint32_t cap : {4096u, 1000003u, 3u << 20, LineTable::kSparseHeadsFrom + 7}) {
    LineTable t(cap);
    const double per_line = static_cast<double>(t.MemoryBytes()) / cap;
    const double want = cap < LineTable::kSparseHeadsFrom ? 10.0 : 9.0;
    EXPECT_LE(per_line, want + 4.0 / cap) << cap;
    EXPECT_GE(per_line, want) << cap;
  }
}

double MetadataBytesPerLine(std::uint64_t lines, const char* policy) {
  SimEngine e;
  CacheConfig cfg;
  cfg.line_size = 4096;
  cfg.policy = policy;
  std::vector<std::unique_ptr<BlockDevice>> caches;
  caches.push_back(std::make_unique<RamDevice>(e, "c", lines * 4096));
  auto r = CacheTarget::Create(e, "x", std::make_unique<RamDevice>(e, "o", 1ull << 40),
                               std::move(caches), cfg);
  EXPECT_TRUE(r.ok()) << r.error().message;
  if (!r.ok()) return 1e9;
  EXPECT_EQ(r.value()->capacity_lines(), lines);
  return r.value()->cache_stats().metadata_bytes_per_line;
}

// The target, from the target's own accounting (line table + policy
// MemoryBytes): at most 16 bytes per line with LRU (the default) and FIFO, at
// power-of-two and odd sizes on both sides of kSparseHeadsFrom (the bound
// holds up to 2^27 - 2 lines: links of at most 27 bits).
TEST(LineTableTest, MetadataAtMostSixteenBytesPerLineWithLruAndFifo) {
  for (std::uint64_t lines : {1ull << 20, (3ull << 20) + 5, (1ull << 22) + 3}) {
    for (const char* policy : {"lru", "fifo"}) {
      const double b = MetadataBytesPerLine(lines, policy);
      EXPECT_LE(b, 16.0) << policy << " at " << lines << " lines";
      EXPECT_GE(b, 10.0) << policy << " at " << lines << " lines";  // the table alone is 10
    }
  }
  EXPECT_LE(MetadataBytesPerLine(1ull << 20, "clock"), 11.1);  // table + 1 byte
}

}  // namespace
}  // namespace tierlab
