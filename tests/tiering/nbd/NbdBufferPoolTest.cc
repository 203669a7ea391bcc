// The NBD server's shared buffer budget: never over the limit (buffers in
// use and kept for reuse together), waiters served in arrival order and
// called back from an engine task, kept buffers given up for new sizes and
// freed by Trim.

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "tiering/core/SimEngine.h"
#include "tiering/nbd/NbdBufferPool.h"

namespace tierlab {
namespace {

constexpr std::size_t kMiB = 1u << 20;

struct TestWaiter final : NbdBufferPool::Waiter {
  std::function<void()> on_available;
  int calls = 0;
  void OnBufferAvailable() override {
    ++calls;
    if (on_available) on_available();
  }
};

TEST(NbdBufferPoolTest, SizeClassesArePowersOfTwoFromOnePage) {
  EXPECT_EQ(NbdBufferPool::CapacityFor(1), 4096u);
  EXPECT_EQ(NbdBufferPool::CapacityFor(4097), 8192u);
  EXPECT_EQ(NbdBufferPool::CapacityFor(32 * kMiB), 32 * kMiB);
}

TEST(NbdBufferPoolTest, NeverExceedsTheLimitAndWakesAWaiterAfterRelease) {
  SimEngine e;
  NbdBufferPool pool(e, 4 * kMiB);
  std::size_t cap = 0;
  std::byte* a = pool.Acquire(2 * kMiB, &cap, nullptr);
  std::byte* b = pool.Acquire(2 * kMiB, &cap, nullptr);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % NbdBufferPool::kAlignment, 0u);
  TestWaiter w;
  std::byte* got = nullptr;
  w.on_available = [&] { got = pool.Acquire(1 * kMiB, &cap, &w); };
  EXPECT_EQ(pool.Acquire(1 * kMiB, &cap, &w), nullptr);
  EXPECT_TRUE(pool.has_waiters());
  pool.Release(a, 2 * kMiB);
  EXPECT_EQ(w.calls, 0);  // never called back inside Release
  e.Run();
  EXPECT_EQ(w.calls, 1);
  ASSERT_NE(got, nullptr);
  EXPECT_FALSE(pool.has_waiters());
  EXPECT_EQ(pool.in_use(), 3 * kMiB);
  EXPECT_LE(pool.in_use() + pool.kept(), pool.limit());
  EXPECT_EQ(pool.peak_in_use(), 4 * kMiB);
  pool.Release(b, 2 * kMiB);
  pool.Release(got, 1 * kMiB);
}

TEST(NbdBufferPoolTest, WaitersAreServedInArrivalOrderWithoutOvertaking) {
  SimEngine e;
  NbdBufferPool pool(e, 4 * kMiB);
  std::size_t cap = 0;
  std::byte* a = pool.Acquire(2 * kMiB, &cap, nullptr);
  std::byte* b = pool.Acquire(1 * kMiB, &cap, nullptr);
  std::byte* c = pool.Acquire(1 * kMiB, &cap, nullptr);
  std::vector<int> order;
  std::byte* big = nullptr;
  std::byte* small = nullptr;
  TestWaiter wb, ws;
  wb.on_available = [&] {
    big = pool.Acquire(2 * kMiB, &cap, &wb);
    if (big != nullptr) order.push_back(1);
  };
  ws.on_available = [&] {
    small = pool.Acquire(64 << 10, &cap, &ws);
    if (small != nullptr) order.push_back(2);
  };
  EXPECT_EQ(pool.Acquire(2 * kMiB, &cap, &wb), nullptr);
  EXPECT_EQ(pool.Acquire(64 << 10, &cap, &ws), nullptr);
  // Room for the small one but not for the big one, first in line: nobody
  // is served, not even a newcomer without a waiter.
  pool.Release(c, 1 * kMiB);
  EXPECT_EQ(pool.Acquire(64 << 10, &cap, nullptr), nullptr);
  e.Run();
  EXPECT_TRUE(order.empty());
  pool.Release(b, 1 * kMiB);
  e.Run();
  EXPECT_EQ(order, (std::vector<int>{1}));  // the big one; no room left for the small one
  pool.Release(a, 2 * kMiB);
  e.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
  EXPECT_LE(pool.in_use() + pool.kept(), pool.limit());
  pool.Release(big, 2 * kMiB);
  pool.Release(small, 64 << 10);
}

TEST(NbdBufferPoolTest, AWaiterThatDoesNotAcquireOrCancelsLosesItsTurn) {
  SimEngine e;
  NbdBufferPool pool(e, 1 * kMiB);
  std::size_t cap = 0;
  std::byte* held = pool.Acquire(1 * kMiB, &cap, nullptr);
  TestWaiter lazy, gone, next;
  std::byte* got = nullptr;
  next.on_available = [&] { got = pool.Acquire(512 << 10, &cap, &next); };
  EXPECT_EQ(pool.Acquire(512 << 10, &cap, &lazy), nullptr);  // will not ask again
  EXPECT_EQ(pool.Acquire(512 << 10, &cap, &gone), nullptr);
  EXPECT_EQ(pool.Acquire(512 << 10, &cap, &next), nullptr);
  pool.CancelWait(&gone);
  pool.Release(held, 1 * kMiB);
  e.Run();
  EXPECT_EQ(lazy.calls, 1);
  EXPECT_EQ(gone.calls, 0);
  EXPECT_EQ(next.calls, 1);
  ASSERT_NE(got, nullptr);
  EXPECT_FALSE(pool.has_waiters());
  pool.Release(got, 512 << 10);
}

TEST(NbdBufferPoolTest, KeptBuffersAreReusedCountedAndFreed) {
  SimEngine e;
  NbdBufferPool pool(e, 4 * kMiB);
  std::size_t cap = 0;
  std::byte* a = pool.Acquire(1 * kMiB, &cap, nullptr);
  pool.Release(a, 1 * kMiB);
  EXPECT_EQ(pool.kept(), 1 * kMiB);
  EXPECT_EQ(pool.Acquire(1 * kMiB, &cap, nullptr), a);  // reused
  pool.Release(a, 1 * kMiB);
  // A 4 MiB buffer needs the kept one's room: it is freed, the limit holds.
  std::byte* big = pool.Acquire(4 * kMiB, &cap, nullptr);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(pool.kept(), 0u);
  EXPECT_EQ(pool.in_use(), 4 * kMiB);
  pool.Release(big, 4 * kMiB);
  EXPECT_EQ(pool.kept(), 4 * kMiB);
  pool.Trim();
  EXPECT_EQ(pool.kept(), 0u);
  EXPECT_EQ(pool.in_use(), 0u);
}

}  // namespace
}  // namespace tierlab
