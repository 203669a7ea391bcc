// The timer queue against a plain reference (a list ordered by due time and
// push order): the run of same-time tasks beside the heap must never change
// the order tasks come out in, whatever mix of times, cancels and pops.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "tiering/core/TimerQueue.h"

namespace tierlab {
namespace {

// Runs everything, returning the tags in the order the tasks ran.
std::vector<int> Drain(TimerQueue& q, std::vector<int>& ran) {
  while (!q.Empty()) {
    Nanos at;
    q.RunNext(&at);
  }
  return ran;
}

TEST(TimerQueueTest, EqualTimesRunInPushOrderAcrossHeapAndRun) {
  TimerQueue q;
  std::vector<int> ran;
  // 10 goes to the heap behind 20's run; later 10s and 20s interleave.
  q.Push(20, [&] { ran.push_back(1); });
  q.Push(10, [&] { ran.push_back(2); });
  q.Push(20, [&] { ran.push_back(3); });
  q.Push(10, [&] { ran.push_back(4); });
  q.Push(30, [&] { ran.push_back(5); });
  q.Push(20, [&] { ran.push_back(6); });
  EXPECT_EQ(q.Size(), 6u);
  EXPECT_EQ(q.NextDue(), 10);
  EXPECT_EQ(Drain(q, ran), (std::vector<int>{2, 4, 1, 3, 6, 5}));
}

TEST(TimerQueueTest, CancelledTasksAreSkippedAndDestroyedAtOnce) {
  TimerQueue q;
  std::vector<int> ran;
  auto token = std::make_shared<int>(0);
  const TimerId a = q.Push(5, [&ran, token] { ran.push_back(1); });
  const TimerId b = q.Push(5, [&] { ran.push_back(2); });
  const TimerId c = q.Push(7, [&] { ran.push_back(3); });
  EXPECT_EQ(token.use_count(), 2);
  EXPECT_TRUE(q.Cancel(a));
  EXPECT_EQ(token.use_count(), 1);  // the task's captures are gone already
  EXPECT_FALSE(q.Cancel(a));
  EXPECT_TRUE(q.Cancel(c));
  EXPECT_EQ(q.Size(), 1u);
  EXPECT_EQ(q.NextDue(), 5);
  EXPECT_EQ(Drain(q, ran), (std::vector<int>{2}));
  EXPECT_FALSE(q.Cancel(b));  // already ran
  // Slots are reused, ids are not.
  const TimerId d = q.Push(9, [] {});
  EXPECT_NE(d, a);
  EXPECT_NE(d, b);
  EXPECT_NE(d, c);
  EXPECT_FALSE(q.Cancel(a));
  EXPECT_TRUE(q.Cancel(d));
  EXPECT_TRUE(q.Empty());
}

// Random pushes (many due at the front's time, as posts are), cancels and
// pops, checked step by step against a std::map keyed by (time, push index).
TEST(TimerQueueTest, RunNextRunsTheTaskInPlaceWhileItPushesManyMore) {
  // The running task stays in its slot while it pushes enough tasks to add
  // slab chunks; its captures must stay intact (ASan would see a move or a
  // freed chunk here) and every pushed task must still come out in order.
  TimerQueue q;
  std::vector<int> ran;
  struct Payload {
    std::uint64_t words[8];
  };
  Payload p{};
  for (int i = 0; i < 8; ++i) p.words[i] = 1000 + i;
  q.Push(5, [&q, &ran, p] {
    for (int i = 0; i < 2000; ++i) q.Push(10 + i % 3, [&ran, i] { ran.push_back(i); });
    std::uint64_t sum = 0;
    for (std::uint64_t w : p.words) sum += w;
    ran.push_back(static_cast<int>(sum));  // 8 * 1000 + 28
  });
  Nanos at = -1;
  q.RunNext(&at);
  EXPECT_EQ(at, 5);
  ASSERT_EQ(ran, (std::vector<int>{8028}));
  ran.clear();
  std::vector<Nanos> times;
  while (!q.Empty()) {
    q.RunNext(&at);
    times.push_back(at);
  }
  ASSERT_EQ(ran.size(), 2000u);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  // Push order within each due time.
  for (int r = 0; r < 3; ++r) {
    std::vector<int> with_r;
    for (int v : ran) {
      if (v % 3 == r) with_r.push_back(v);
    }
    EXPECT_TRUE(std::is_sorted(with_r.begin(), with_r.end())) << r;
  }
}

TEST(TimerQueueTest, ARunningTaskCannotCancelItselfAndItsSlotIsReusedAfter) {
  TimerQueue q;
  TimerId self = 0;
  bool cancelled = true;
  self = q.Push(1, [&] { cancelled = q.Cancel(self); });
  Nanos at;
  q.RunNext(&at);
  EXPECT_FALSE(cancelled);
  EXPECT_TRUE(q.Empty());
  int ran = 0;
  const TimerId next = q.Push(2, [&] { ++ran; });
  EXPECT_NE(next, self);         // same slot, new generation
  EXPECT_FALSE(q.Cancel(self));  // the old id stays dead
  q.RunNext(&at);
  EXPECT_EQ(ran, 1);
}

TEST(TimerQueueTest, MatchesAReferenceOrderUnderRandomOperations) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    TimerQueue q;
    std::map<std::pair<Nanos, int>, TimerId> ref;
    std::vector<std::pair<std::pair<Nanos, int>, TimerId>> issued;
    int ran_tag = -1;
    std::uint64_t s = seed * 0x9E3779B97F4A7C15ull;
    auto next = [&] {
      s ^= s << 13;
      s ^= s >> 7;
      s ^= s << 17;
      return s;
    };
    Nanos now = 0;
    int tag = 0;
    for (int step = 0; step < 20000; ++step) {
      const std::uint64_t r = next() % 100;
      if (r < 45) {
        // Due now (a post), soon, or a little later; sometimes in the past.
        const std::uint64_t k = next() % 4;
        const Nanos at = k == 0   ? now
                         : k == 1 ? now + static_cast<Nanos>(next() % 8)
                         : k == 2 ? now + static_cast<Nanos>(next() % 1000)
                                  : now - static_cast<Nanos>(next() % 3);
        const int t = tag++;
        const TimerId id = q.Push(at, [&ran_tag, t] { ran_tag = t; });
        ref.emplace(std::make_pair(at, t), id);
        issued.push_back({{at, t}, id});
      } else if (r < 55 && !issued.empty()) {
        const auto& [key, id] = issued[next() % issued.size()];
        const bool present = ref.erase(key) == 1;
        ASSERT_EQ(q.Cancel(id), present) << "seed " << seed << " step " << step;
      } else if (!ref.empty()) {
        ASSERT_FALSE(q.Empty());
        ASSERT_EQ(q.NextDue(), ref.begin()->first.first) << "seed " << seed << " step " << step;
        Nanos at;
        q.RunNext(&at);
        ASSERT_EQ(at, ref.begin()->first.first);
        ASSERT_EQ(ran_tag, ref.begin()->first.second) << "seed " << seed << " step " << step;
        now = std::max(now, at);
        ref.erase(ref.begin());
      }
      ASSERT_EQ(q.Size(), ref.size());
    }
  }
}

}  // namespace
}  // namespace tierlab
