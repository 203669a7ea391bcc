#include <gtest/gtest.h>

#include <vector>

#include "tiering/core/ObjectPool.h"

namespace tierlab {
namespace {

struct Ctx {
  int value = 7;
  std::vector<int> buf;
};

TEST(ObjectPoolTest, AcquireResetsARecycledObject) {
  ObjectPool<Ctx> pool;
  Ctx* a = pool.Acquire();
  a->value = 1;
  a->buf.assign(100, 1);
  pool.Release(a);
  Ctx* b = pool.Acquire();
  EXPECT_EQ(b, a);  // recycled, not allocated
  EXPECT_EQ(b->value, 7);
  EXPECT_TRUE(b->buf.empty());
  EXPECT_EQ(pool.outstanding(), 1u);
}

TEST(ObjectPoolTest, ReuseKeepsARecycledObjectAsReleased) {
  ObjectPool<Ctx> pool;
  Ctx* a = pool.Reuse();
  EXPECT_EQ(a->value, 7);  // new: default-constructed
  a->value = 1;
  a->buf.assign(100, 1);
  a->buf.clear();
  pool.Release(a);
  Ctx* b = pool.Reuse();
  EXPECT_EQ(b, a);
  EXPECT_EQ(b->value, 1);              // the caller resets what it uses
  EXPECT_GE(b->buf.capacity(), 100u);  // buffers keep their capacity
  Ctx* c = pool.Reuse();
  EXPECT_NE(c, b);
  EXPECT_EQ(pool.outstanding(), 2u);
}

}  // namespace
}  // namespace tierlab
